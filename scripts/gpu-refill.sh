#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data with before.tar): primary rays walked lane by lane
# with refills (cast_primary_hits) against the tree before (.data/before.tar) and this tree built
# without them (-DGRANRAY_REFILLS_LANES=0: one ray a thread, through the same walk). STAGE=build
# builds the three for sm_90 and runs this tree's GPU tests; STAGE=bench (the builds kept) times
# the scene suite at 1 M grains, 1080p, grid method, in device memory (scene, grid ms, cast ms,
# rays/s, frame ms, secondary ms), unlit and lit (shadows + 8 AO), the trees alternated over
# ROUNDS rounds, then runs compute-sanitizer over the tests of beds walked so. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
OFF=$PWD/build-gpu-off
if [ "${STAGE:-build}" = build ]; then
  record_gpu
  [ -x "$OFF/bench/granray-bench" ] ||
    BUILD_ARGS="-DCMAKE_CUDA_FLAGS=-DGRANRAY_REFILLS_LANES=0" build . "$OFF" granray-bench &
  build_variant granray-bench
  build_both granray-bench
  cuda_tests
  exit 0
fi
scenes=(${SCENES:-heap pour hopper dense drum dilute clusters})
row() {  # BUILD ARGS...
  local b=$1
  shift
  for s in "${scenes[@]}"; do
    "$b/bench/granray-bench" --backend cuda --in-place --scene "$s" -n 1000000 -r 1920x1080 \
      --method grid "$@" 2>&1 | grep -E '^cuda' | awk -v s="$s" '{print s, $7, $10, $11, $12, $13}'
  done
}
for round in $(seq "${ROUNDS:-2}"); do
  trees=(/tmp/before/build "$OFF" "$BUILD")
  [ -x /tmp/variant/bench/granray-bench ] && trees+=(/tmp/variant)
  for b in "${trees[@]}"; do
    echo "== round $round, $b: primary"; row "$b" --repeat 10
    [ -n "${LIT:-1}" ] && { echo "== round $round, $b: lit"; row "$b" --repeat 10 --shadows --ao 8; }
  done
done 2>&1 | tee "$OUT/refill.txt"
memcheck_tests 'RenderTest.BedsWhose*:RenderTest.PrimaryRays*:RenderTest.GridAndTiles*:LightingTest.EveryScene*'
