#!/usr/bin/env bash
# One run on the GPU machine for seeing inside a bed (contract 2d): build for sm_90, the GPU tests,
# compute-sanitizer memcheck over the contract 2d tests, then 1 M dense grains at 1080p with and
# without outlines, depth cue and categories, and with a see-through box (their cost against the
# same frame without them).
# Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh

source scripts/gpu-build.sh

gpu_tests

memcheck_tests 'InsideTest.*:SeeThroughTest.*:WallsTest.SeeThrough*'

bench="$BUILD/bench/granray-bench"
{
  for round in 1 2; do
    echo "# round $round: 1 M dense grains, 1080p, plain"
    "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20
    echo "# outline 0.15, depth cue 0.6, 10 categories"
    "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20 \
      --outline 0.15 --depth-cue 0.6 --categories 10 | grep -v '^backend'
    echo "# lit (shadows, 4 samples), plain then with all three"
    "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows \
      --samples 4 | grep -v '^backend'
    "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows \
      --samples 4 --outline 0.15 --depth-cue 0.6 --categories 10 | grep -v '^backend'
    echo "# see-through box (all faces, opacity 0.3): unlit, then lit"
    "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20 \
      --see-through-box 0.3 | grep -v '^backend'
    "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows \
      --samples 4 --see-through-box 0.3 | grep -v '^backend'
  done
} >"$OUT/bench-inside.txt" 2>&1
cat "$OUT/bench-inside.txt"
