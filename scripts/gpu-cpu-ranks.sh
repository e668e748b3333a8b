#!/usr/bin/env bash
# Lit frames on CPU ranks (issue #36) on the GPU machine's cores (carry .deps, .data and .before, a
# copy of the tree before a change): builds granray-render of both trees, then renders the
# LIGGGHTS packing (1920 x 1080, shadows + 8 occlusion rays) on 1, 2 and 4 ranks with all the
# cores shared (cores / N OpenMP threads each), before and after alternated ROUNDS times (2),
# and checks that every image equals the one-rank image. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
GRANRAY_TARGETS="granray-render" source scripts/gpu-build.sh
build .before build-before granray-render || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
cores=$(nproc --all)
dump=.data/liggghts/pour-20k.step10000.liggghts
work=$(mktemp -d)
for round in $(seq "${ROUNDS:-2}"); do
  for tree in build-before "$BUILD"; do
    for np in 1 2 4; do
      line=$(OMP_NUM_THREADS=$((cores / np)) timeout 120 mpirun --bind-to none --oversubscribe \
        -np $np "$tree/tools/granray-render" "$dump" --set width=1920 --set height=1080 \
        --set 'backend="cpu"' --set shading.shadows=true --set shading.ao_samples=8 \
        --out "$work/$tree-$np.png" 2>&1 | tail -1)
      same=$(cmp -s "$work/$tree-$np.png" "$work/$tree-1.png" && echo same || echo DIFFERS)
      echo "round $round, $tree, $np rank(s): $(grep -oE "render [0-9.]+ ms|composite [0-9.]+ ms|sent [0-9.]+ MB|frame [0-9.]+ ms" <<<"$line" | tr '\n' ' ')($same as 1 rank)"
    done
  done
done 2>&1 | tee "$OUT/cpu-ranks.txt"
rm -rf "$work"
