#!/usr/bin/env bash
# On a GPU machine with 2 or more GPUs (carry .deps): a path-traced still of a 1 M-grain lattice
# (1920 x 1080, PATHS paths a pixel, 64 by default, 4 bounces) by granray-render on one rank and
# on 2 ranks of one GPU each (the grains gathered onto every rank, each tracing bands of rows),
# alternated ROUNDS times (2); every image must equal the one-rank image. Then the MPI rendering
# tests on CUDA on 2 ranks. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
nvidia-smi --query-gpu=index,name --format=csv,noheader | tee "$OUT/gpu.txt"
GRANRAY_TARGETS="granray-render granray_mpi_tests" source scripts/gpu-build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
work=$(mktemp -d)
awk 'BEGIN { print "# x y z r"; for (i = 0; i < 100; i++) for (j = 0; j < 100; j++)
  for (k = 0; k < 100; k++) printf "%.4f %.4f %.4f 1\n", 2.2 * i + 0.1 * (j % 3), 2.2 * j, 2.2 * k }' \
  >"$work/lattice.xyzr"
args=(--set width=1920 --set height=1080 --set 'renderer="path"' --set "path.samples=${PATHS:-64}"
  --set shading.bounces=4 --set 'backend="cuda"')
for round in $(seq "${ROUNDS:-2}"); do
  for np in 1 2; do
    mpirun --bind-to none --oversubscribe -np $np "$BUILD"/tools/granray-render "$work/lattice.xyzr" \
      "${args[@]}" --out "$work/still-$np.png" 2>&1 | grep -oE "render [0-9.]+ ms.*frame [0-9.]+ ms" |
      sed "s/^/round $round, $np rank(s): /"
  done
  cmp -s "$work/still-1.png" "$work/still-2.png" && echo "round $round: same image" ||
    echo "round $round: IMAGES DIFFER"
done 2>&1 | tee "$OUT/path-ranks.txt"
GRANRAY_MPI_TEST_BACKEND=cuda OMP_NUM_THREADS=8 timeout 300 mpirun --bind-to none --oversubscribe \
  -np 2 "$BUILD/tests/granray_mpi_tests" --gtest_filter='MpiRender.*' >"$OUT/mpi-cuda-2.log" 2>&1
echo "MPI rendering tests on CUDA, 2 ranks: exit $? ($(grep -E "PASSED|FAILED" "$OUT/mpi-cuda-2.log" | head -2 | tr '\n' ' '))"
rm -rf "$work"
