#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data with before.tar): primary rays that start at their
# pixel blocks' near bounds (kernels/near_bounds.h) against the tree before them
# (.data/before.tar). Builds both for sm_90, runs this tree's GPU tests, then the scene suite at
# 1 M grains, 1080p, grid method, in device memory (scene, grid build ms, cast ms, rays/s,
# secondary ms), unlit and lit (shadows + 8 AO), both trees alternated over ROUNDS rounds; last
# compute-sanitizer over the grid and render tests of beds with clearance; ncu times the bounds'
# pass on each bed with clearance. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
build_both granray-bench
cuda_tests
row() {  # BUILD ARGS...
  local b=$1
  shift
  for s in "${scenes[@]}"; do
    "$b/bench/granray-bench" --backend cuda --in-place --scene "$s" -n 1000000 -r 1920x1080 \
      --method grid "$@" 2>&1 | grep -E '^cuda' | awk -v s="$s" '{print s, $7, $10, $11, $12, $13}'
  done
}
for round in $(seq "${ROUNDS:-2}"); do
  for b in /tmp/before/build "$BUILD"; do
    echo "== round $round, $b: primary"; row "$b" --repeat 10
    echo "== round $round, $b: lit"; row "$b" --repeat 10 --shadows --ao 8
  done
done 2>&1 | tee "$OUT/near-bounds.txt"
# The bounds' own pass on the beds with clearance (ncu, one frame each).
for s in heap pour hopper; do
  ncu --kernel-name-base demangled --kernel-name regex:MarkNearBounds --metrics \
    gpu__time_duration.sum "$BUILD/bench/granray-bench" --backend cuda --in-place --scene "$s" \
    -n 1000000 -r 1920x1080 --method grid --repeat 1 2>&1 | grep -E "duration" | head -1 |
    awk -v s="$s" '{print s, "near bounds pass:", $NF, $(NF-1)}'
done | tee -a "$OUT/near-bounds.txt"
memcheck_tests 'RenderTest.PrimaryRays*:RenderTest.BedsWhose*:RenderTest.EveryScene*:LightingTest.EveryScene*'
