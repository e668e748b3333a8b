#!/usr/bin/env bash
# Lit frames on CPU ranks (issue #36) on the GPU machine's cores (carry .deps, .data and .before, a
# copy of the tree before a change): builds granray-render of both trees, then renders the
# LIGGGHTS packing (1920 x 1080, shadows + 8 occlusion rays) on 1, 2 and 4 ranks with all the
# cores shared, before and after alternated ROUNDS times (2), each way of WAYS ("set plain"):
# `set` gives each rank cores / N OpenMP threads and no binding; `plain` is a user's bare
# `mpirun -np N` (mpirun's binding, the threads the program picks),
# and checks that every image equals the one-rank image. SNAPSHOTS=N renders the packing N times
# in one process (a dump of N snapshots) and prints the medians of the frames after the first,
# as a run's later frames see them (its arrays made already). Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
GRANRAY_TARGETS="granray-render" source scripts/gpu-build.sh
build .before build-before granray-render || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(nproc --all)
packing=.data/liggghts/pour-20k.step10000.liggghts
work=$(mktemp -d)
snapshots=${SNAPSHOTS:-1}
dump=$work/packing.liggghts
for k in $(seq "$snapshots"); do sed "2s/.*/$((10000 + k))/" "$packing"; done >"$dump"
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
launch() {  # launch WAY NP: the mpirun command line of one way
  if [ "$1" = set ]; then
    echo env OMP_NUM_THREADS=$((cores / $2)) OMP_WAIT_POLICY=passive mpirun --bind-to none -np "$2"
  else
    echo mpirun -np "$2"
  fi
}
for round in $(seq "${ROUNDS:-2}"); do
  for way in ${WAYS:-set plain}; do
  for tree in build-before "$BUILD"; do
    for np in 1 2 4; do
      log=$work/$tree-$np.log
      timeout 300 $(launch "$way" $np) \
        "$tree/tools/granray-render" "$dump" --set width=1920 --set height=1080 \
        --set 'backend="cpu"' --set shading.shadows=true --set shading.ao_samples=8 \
        --out "$work/$tree-$np-*.png" >"$log" 2>&1
      same=same
      for k in $(seq "$snapshots"); do
        cmp -s "$work/$tree-$np-$((10000 + k)).png" "$work/$tree-1-$((10000 + k)).png" || same=DIFFERS
      done
      later=$(grep " frame " "$log" | tail -n +$((snapshots > 1 ? 2 : 1)))
      field() { grep -oE "$1 [0-9.]+ $2" <<<"$later" | awk '{print $2}' | median; }
      echo "round $round, $way, $tree, $np rank(s): render $(field render ms) ms, composite $(field composite ms) ms, sent $(field sent MB) MB, frame $(field frame ms) ms (medians of $(wc -l <<<"$later") frames; $same as 1 rank)"
    done
  done
  done
done 2>&1 | tee "$OUT/cpu-ranks.txt"
rm -rf "$work"
