#!/usr/bin/env bash
# Sourced first by the GPU-machine scripts, from the repository root: where logs go ($OUT, or
# ./out) and where the build lives ($BUILD, or build-gpu).
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}

# The GPU a run measured, into $OUT/gpu.txt and on the terminal.
record_gpu() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
}

# The GPU tests (ctest label gpu) of $BUILD, logged to $OUT/gpu-tests.log; prints the summary.
gpu_tests() {
  local status=0
  (cd "$BUILD" && ctest --output-on-failure -L gpu -j 2) >"$OUT/gpu-tests.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Failed|\*\*\*Failed" "$OUT/gpu-tests.log" | head -20
  return $status
}
