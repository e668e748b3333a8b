#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data with before.tar and the LIGGGHTS packing): this tree
# against the tree it came from (.data/before.tar) on the scene suite: both built for sm_90, this
# tree's GPU tests, then the suite at 1 M grains, 1080p, grid method, both alternated twice:
# primary, lit (shadows + 8 AO), metal and glass 4 bounces; the path still at 64 paths once.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
build_both granray-bench granray-scene
cuda_tests
mkdir -p /tmp/suite
for s in dense dilute heap drum pour hopper clusters; do
  "$BUILD/bench/granray-scene" "$s" "${GRAINS:-1000000}" 1 > "/tmp/suite/$s.xyzr"
done
row() {  # BUILD ARGS...
  local b=$1
  shift
  for s in dense dilute heap drum pour hopper clusters; do
    "$b/bench/granray-bench" --backend cuda --input "/tmp/suite/$s.xyzr" -r 1920x1080 \
      --method grid "$@" 2>&1 | grep -E '^cuda|rays/s over|paths/s' | tr '\n' ' ' |
      awk -v s="$s" '{print s": "$0}'
  done
}
for round in 1 2; do
  for b in /tmp/before/build "$BUILD"; do
    echo "== $b, round $round: primary"; row "$b" --repeat 10
    echo "== $b, round $round: lit"; row "$b" --repeat 10 --shadows --ao 8
    echo "== $b, round $round: materials"; row "$b" --repeat 10 --materials --bounces 4
  done
done 2>&1 | tee "$OUT/suite-vs.txt"
for b in /tmp/before/build "$BUILD"; do
  echo "== $b: path 64"; row "$b" --repeat 3 --materials --bounces 4 --path 64
done 2>&1 | tee "$OUT/suite-vs-path.txt"
