#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu-suite-vs.sh built both trees (carry .deps, .data and
# .pyvendor): the path-traced still (64 paths, 4 bounces, metal and glass) on every scene of the
# suite at 1 M grains, 1080p, before and after alternated twice, then this tree against Mitsuba 3
# (cuda_ad_rgb) on each scene.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
n=${GRAINS:-1000000}
mkdir -p /tmp/suite
for s in dense dilute heap drum pour hopper clusters; do
  [ -f "/tmp/suite/$s.xyzr" ] || "$BUILD/bench/granray-scene" "$s" "$n" 1 > "/tmp/suite/$s.xyzr"
done
for round in 1 2; do
  for b in /tmp/before/build "$BUILD"; do
    echo "== $b, round $round: path 64"
    for s in dense dilute heap drum pour hopper clusters; do
      "$b/bench/granray-bench" --backend cuda --input "/tmp/suite/$s.xyzr" -r 1920x1080 \
        --method grid --repeat 3 --materials --bounces 4 --path 64 2>&1 |
        grep -oE 'path-traced still: .* ms' | awk -v s="$s" '{print s": "$0}'
    done
  done
done 2>&1 | tee "$OUT/path-vs.txt"
mitsuba_per_scene "$n"
