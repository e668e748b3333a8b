#!/usr/bin/env bash
# The rays asked of other ranks (issue #36), on the GPU machine (carry .deps, .data and .before,
# a copy of the tree before the change, e.g. `git archive 8e6cfe1 | tar -x -C .before`): builds
# both trees, runs the GPU tests and the MPI rendering tests on CUDA on 1-4 ranks of GPU 0, then
# the lit frame's stages of the example DEM (2 M grains, 1080p, shadows + 8 occlusion rays; see
# gpu-lit-stages.sh) before and after, alternated ROUNDS times (2). SKIP_TESTS=1 leaves the
# tests out; RANKS, MODES and STEPS go to gpu-lit-stages.sh. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
build .before build-before granray-dem &
before_build=$!
targets="granray-dem granray_gpu_tests granray_mpi_tests"
[ "${SKIP_TESTS:-0}" = 1 ] && targets="granray-dem"
GRANRAY_TARGETS="$targets" source scripts/gpu-build.sh
wait "$before_build" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
[ "${SKIP_TESTS:-0}" = 1 ] || {
  (cd "$BUILD" && ctest -L gpu -R '^cuda[.]' -j 4 --output-on-failure) >"$OUT/gpu-tests.log" 2>&1
  echo "GPU tests: $(grep -E "tests passed" "$OUT/gpu-tests.log")"
  grep -E "\(Failed\)|Timeout" "$OUT/gpu-tests.log" | head
  for np in 1 2 3 4; do
    GRANRAY_MPI_TEST_BACKEND=cuda OMP_NUM_THREADS=4 CUDA_VISIBLE_DEVICES=0 timeout 300 \
      mpirun --bind-to none --oversubscribe -np $np "$BUILD/tests/granray_mpi_tests" \
      --gtest_filter='MpiRender.*' >"$OUT/mpi-cuda-$np.log" 2>&1
    echo "MPI rendering tests on CUDA, $np rank(s): exit $? ($(grep -E "PASSED|FAILED" "$OUT/mpi-cuda-$np.log" | head -2 | tr '\n' ' '))"
  done
} 2>&1 | tee "$OUT/tests.txt"
after=$BUILD
for round in $(seq "${ROUNDS:-2}"); do
  for tree in build-before "$after"; do
    echo "== round $round, $tree"
    OUT=$OUT/$tree-$round BUILD=$tree SKIP_BUILD=1 SKIP_TESTS=1 RANKS="${RANKS:-2 4}" \
      MODES="${MODES:-lit}" bash scripts/gpu-lit-stages.sh |
      grep -E "rank\(s\)|(cast|secondary|primary|answer|answer on the device|queries|asked|shade|composite) +median"
  done
done 2>&1 | tee "$OUT/stages-before-after.txt"
