#!/usr/bin/env bash
# On the GPU machine (carry .deps): build without Python and run the GPU-labelled tests, then the
# primary-ray benchmark, into $OUT.
set -uo pipefail
BUILD=build-gpu-tests
out=${OUT:-/tmp/gpu-tests-out}
mkdir -p "$out"
extra=()
[ -d .deps/include ] && extra+=("-DGRANRAY_EXTRA_INCLUDE_DIR=$PWD/.deps/include")
cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGRANRAY_BUILD_PYTHON=OFF "${extra[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build $BUILD -j "$(nproc)" --target granray_gpu_tests granray-bench >"$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$out/build.log" | head -30; exit 1; }
(cd $BUILD && ctest -L gpu -R '^cuda[.]' -j 4) >"$out/gpu_tests.log" 2>&1
grep -E "tests passed|tests failed|Failed" "$out/gpu_tests.log" | head -20
