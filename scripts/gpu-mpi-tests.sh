#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data): the GPU tests and the MPI rendering tests on CUDA
# on 2 ranks (gpu-tests-and-mpi.sh), then the MPI rendering tests on 1, 3 and 4 ranks sharing
# the GPU and on 1 to 4 ranks of the CPU backend; a line per run, logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-tests-and-mpi.sh
for backend in cuda cpu; do
  for np in 1 2 3 4; do
    [ "$backend" = cuda ] && [ "$np" = 2 ] && continue  # run above
    log="$OUT/mpi-$backend-$np.log"
    GRANRAY_MPI_TEST_BACKEND=$backend OMP_NUM_THREADS=$(($(nproc) / np)) timeout 300 \
      mpirun --bind-to none --oversubscribe -np $np "$BUILD/tests/granray_mpi_tests" \
      --gtest_filter='MpiRender.*:SharedCores.*' >"$log" 2>&1
    echo "MPI rendering tests, $backend, $np rank(s): exit $? ($(grep -E "PASSED|FAILED" "$log" | head -2 | tr '\n' ' '))"
  done
done
