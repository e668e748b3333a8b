#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data): builds the GPU and MPI tests, runs the GPU-labelled
# tests, then the MPI rendering tests on 1 to 4 ranks sharing the GPU (CUDA renderers) and on
# the CPU backend; a line per run, logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
GRANRAY_TARGETS="granray_gpu_tests granray_mpi_tests" source scripts/gpu-build.sh
(cd "$BUILD" && ctest -L gpu -R '^cuda[.]' -j 4 --output-on-failure) >"$OUT/gpu-tests.log" 2>&1
echo "GPU tests: $(grep -E "tests passed" "$OUT/gpu-tests.log")"
grep -E "\(Failed\)|Timeout" "$OUT/gpu-tests.log" | head
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
for backend in cuda cpu; do
  for np in 1 2 3 4; do
    log="$OUT/mpi-$backend-$np.log"
    GRANRAY_MPI_TEST_BACKEND=$backend OMP_NUM_THREADS=$(($(nproc) / np)) timeout 300 \
      mpirun --bind-to none --oversubscribe -np $np "$BUILD/tests/granray_mpi_tests" \
      --gtest_filter='MpiRender.*' >"$log" 2>&1
    echo "MPI rendering tests, $backend, $np rank(s): exit $? ($(grep -E "PASSED|FAILED" "$log" | head -2 | tr '\n' ' '))"
  done
done
