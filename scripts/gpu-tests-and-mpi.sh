#!/usr/bin/env bash
# Sourced by the GPU-machine speed scripts after gpu-env.sh: names the GPU, builds granray-bench
# and the GPU and MPI tests, runs the GPU tests and the MPI rendering tests on CUDA (2 ranks),
# logs in $OUT and a line each printed.
GRANRAY_TARGETS="granray-bench granray_gpu_tests granray_mpi_tests" source scripts/gpu-build.sh
(cd "$BUILD" && ctest -L gpu -R '^cuda[.]' -j 4 --output-on-failure) >"$OUT/gpu-tests.log" 2>&1
echo "GPU tests: $(grep -E "tests passed" "$OUT/gpu-tests.log")"
grep -E "\(Failed\)|Timeout" "$OUT/gpu-tests.log" | head
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
GRANRAY_MPI_TEST_BACKEND=cuda OMP_NUM_THREADS=8 timeout 240 mpirun --bind-to none --oversubscribe \
  -np 2 "$BUILD/tests/granray_mpi_tests" --gtest_filter='MpiRender.*' >"$OUT/mpi-cuda-2.log" 2>&1
echo "MPI rendering tests on CUDA, 2 ranks: exit $? ($(grep -E "PASSED|FAILED" "$OUT/mpi-cuda-2.log" | head -2 | tr '\n' ' '))"
