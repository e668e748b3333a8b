#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data with before.tar): the grids of bounce rays and of the
# path-traced still sized by the occupied volume (Executor::sizes_bounce_cells_by_occupancy)
# against the tree before (.data/before.tar, where they kept the box's cells). Builds both for
# sm_90, then on the pour, the hopper (with its wall) and the heap at 1 M grains, 1080p, in device
# memory, both trees alternated twice: the path still (64 paths, 4 bounces, metal and glass) and
# the metal and glass frame (4 bounces). Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
build_both granray-bench
for round in 1 2; do
  for b in /tmp/before/build "$BUILD"; do
    for s in pour hopper heap; do
      echo "== round $round, $b, $s"
      "$b/bench/granray-bench" --backend cuda --in-place --scene "$s" -n 1000000 -r 1920x1080 \
        --method grid --repeat 3 --materials --bounces 4 --path 64 2>&1 | grep -E "path-traced"
      "$b/bench/granray-bench" --backend cuda --in-place --scene "$s" -n 1000000 -r 1920x1080 \
        --method grid --repeat 5 --materials --bounces 4 2>&1 | grep -E "^cuda|materials:"
    done
  done
done 2>&1 | tee "$OUT/bounce-cells.txt"
