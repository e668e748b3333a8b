#!/usr/bin/env bash
# One run on the GPU machine for walls and clip planes (contract 2b, 2c): build for sm_90, the GPU
# tests, compute-sanitizer (memcheck, initcheck) over the wall tests, then 1 M dense grains at
# 1080p inside a 100,000-triangle cylinder against the same grains without it: primary rays/s,
# the tree's build once and per frame (moving walls), lit frames. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh

source scripts/gpu-build.sh

gpu_tests

for tool in memcheck initcheck; do
  compute-sanitizer --tool $tool --error-exitcode 3 "$BUILD/tests/granray_gpu_tests" \
    --gtest_filter='WallsTest.TrianglesReadInPlace*:WallsTest.WallsFrame*:WallsTest.Clipped*' \
    >"$OUT/$tool-walls.log" 2>&1
  echo "$tool: exit $?"; tail -2 "$OUT/$tool-walls.log"
done

bench="$BUILD/bench/granray-bench"
{
  echo "# 1 M dense grains, 1080p: no walls"
  "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20
  echo "# inside a 100,000-triangle cylinder (25,000 segments), static"
  "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20 \
    --cylinder-wall 25000 | grep -v '^backend'
  echo "# the same, moving (tree rebuilt every frame)"
  "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20 \
    --cylinder-wall 25000 --moving-walls | grep -v '^backend'
  echo "# lit: shadows + 8 AO, no walls / with the cylinder"
  "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows --ao 8 |
    grep -v '^backend'
  "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows --ao 8 \
    --cylinder-wall 25000 | grep -v '^backend'
  echo "# 10 M grains, the cylinder"
  "$bench" --backend cuda -n 10000000 -r 1920x1080 --method grid --repeat 10 \
    --cylinder-wall 25000 | grep -v '^backend'
} 2>&1 | tee "$OUT/bench-walls.txt"
