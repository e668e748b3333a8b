#!/usr/bin/env bash
# On the GPU machine (carry .deps, .data with before.tar, and .pyvendor for Mitsuba): the path
# still's camera rays from their near bounds against the tree before (.data/before.tar). Builds
# both for sm_90, times the path-traced still (64 paths, 4 bounces, metal and glass) on every
# scene of the suite at 1 M grains, 1080p, the trees alternated twice; then this tree's CUDA tests,
# compute-sanitizer over the path still's tests, and (with .pyvendor) this tree against Mitsuba 3
# on the scenes whose grids have clearance (SCENES, default "pour hopper heap"). Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
build_both granray-bench granray-scene granray-render
suite_scenes
still() {  # BUILD
  for s in "${scenes[@]}"; do
    "$1/bench/granray-bench" --backend cuda --input "/tmp/suite/$s.xyzr" -r 1920x1080 \
      --method grid --repeat 3 --materials --bounces 4 --path 64 2>&1 | grep '^cuda' |
      awk -v s="$s" '{print s": grid "$7" ms, still "$11" ms"}'
  done
}
for round in 1 2; do
  for b in /tmp/before/build "$BUILD"; do
    echo "== $b, round $round: path still, 64 paths"
    still "$b"
  done
done 2>&1 | tee "$OUT/path-near.txt"
cuda_tests
memcheck_tests "PathTraceTest.*"
MITSUBA_SCENES=${SCENES:-pour hopper heap} mitsuba_per_scene 1000000
