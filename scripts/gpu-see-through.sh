#!/usr/bin/env bash
# On the GPU machine (carry .deps): the see-through screen-tile lists (issue #25) before and
# after. Builds this tree and, when before.tar is there (`git archive -o before.tar COMMIT`),
# that tree too; runs the GPU tests and compute-sanitizer over the wall tests of this tree; then
# 1 M dense grains at 1080p with and without a see-through box, unlit and lit, both builds
# alternated twice. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
builds=()
if [ -f before.tar ]; then
  rm -rf /tmp/before && mkdir -p /tmp/before && tar -xf before.tar -C /tmp/before
  [ -d .deps ] && cp -r .deps /tmp/before/
  build /tmp/before /tmp/before/build granray-bench && builds+=(/tmp/before/build)
fi
build . "$BUILD" granray_gpu_tests granray-bench || exit 1
builds+=("$BUILD")

cuda_tests
memcheck_tests 'SeeThroughTest.*:WallsTest.SeeThrough*:RegionTest.*'

{
  for round in 1 2; do
    for b in "${builds[@]}"; do
      bench="$b/bench/granray-bench"
      echo "== $b, round $round: plain unlit, box unlit, plain lit, box lit"
      "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20 | grep -v '^backend'
      "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20 \
        --see-through-box 0.3 | grep -v '^backend'
      "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows \
        --samples 4 | grep -v '^backend'
      "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows \
        --samples 4 --see-through-box 0.3 | grep -v '^backend'
    done
  done
} >"$OUT/bench-see-through.txt" 2>&1
cat "$OUT/bench-see-through.txt"
