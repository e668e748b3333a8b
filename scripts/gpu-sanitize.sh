#!/usr/bin/env bash
# On the GPU machine: build for sm_90, run every GPU test, then the CUDA tests under each of
# compute-sanitizer's memcheck and initcheck (all but the zero-copy test, whose transfer trace
# counts the tool's own copies) and racecheck (the grid, render, lighting and wall-tree suites:
# the kernels and Thrust/CUB sorts they use; all tests take racecheck over 10 minutes). One log
# per tool under $OUT; a summary line per tool on standard output.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build.sh
gpu_tests
for tool in memcheck racecheck initcheck; do
  filter='-ZeroCopy.*'
  [ $tool = racecheck ] && filter='GridTest.*:RenderTest.*:LightingTest.*:WallsTest.TreeMatches*'
  start=$(date +%s)
  timeout "${SANITIZER_SECONDS:-900}" compute-sanitizer --tool $tool --error-exitcode 3 "$BUILD/tests/granray_gpu_tests" \
    --gtest_filter="$filter" --gtest_brief=1 >"$OUT/$tool.log" 2>&1
  status=$?
  echo "$tool: exit $status in $(($(date +%s) - start)) s; $(grep -E "ERROR SUMMARY" "$OUT/$tool.log" |
    tail -1); $(grep -E "^\[  (PASSED|FAILED)" "$OUT/$tool.log" | tr '\n' ' ')"
done
