#!/usr/bin/env bash
# One run on the GPU machine for the lighting of contract 2a: build for sm_90, the GPU tests (the
# lighting ones among them), compute-sanitizer over the lit passes, then the lit benchmarks
# (1 M and 10 M dense grains at 1080p, shadows + 8 AO rays of two diameters, with and without 4
# samples) beside the unlit ones, and a lit frame's cost to the example DEM. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh

source scripts/gpu-build.sh

status=0
gpu_tests || status=1

compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/granray_gpu_tests" \
  --gtest_filter='LightingTest.ALone*:LightingTest.Bad*:LightingTest.Antialiasing*' \
  >"$OUT/memcheck-lighting.log" 2>&1 || status=1
tail -2 "$OUT/memcheck-lighting.log"
compute-sanitizer --tool initcheck --error-exitcode 3 "$BUILD/tests/granray_gpu_tests" \
  --gtest_filter='LightingTest.ALone*:LightingTest.Antialiasing*' \
  >"$OUT/initcheck-lighting.log" 2>&1 || status=1
tail -2 "$OUT/initcheck-lighting.log"

bench="$BUILD/bench/granray-bench"
{
  echo "# unlit"
  "$bench" --backend cuda -n 1000000 10000000 -r 1920x1080 --method grid --repeat 20
  echo "# shadows + 8 AO (two diameters)"
  "$bench" --backend cuda -n 1000000 10000000 -r 1920x1080 --method grid --repeat 20 \
    --shadows --ao 8 | grep -v '^backend'
  echo "# shadows + 8 AO + 4 samples"
  "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 \
    --shadows --ao 8 --samples 4 | grep -v '^backend'
  echo "# shadows only, AO only"
  "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows | grep -v '^backend'
  "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --ao 8 | grep -v '^backend'
  echo "# LIGGGHTS packing"
  [ -f .data/liggghts/pour-20k.step10000.liggghts ] &&
    "$bench" --backend cuda --input .data/liggghts/pour-20k.step10000.liggghts --method grid \
      --shadows --ao 8 --samples 4 | grep -v '^backend'
} 2>&1 | tee "$OUT/bench-lighting.txt"

# A lit frame's cost to the example DEM's time loop (1 M grains, 1080p every 100 steps).
DEM_VARIANTS="no-output" bench/dem_frame_cost.sh "$BUILD" 2>&1 | sed 's/^/unlit /' | tee "$OUT/dem-lighting.txt"
DEM_VARIANTS="no-output" bench/dem_frame_cost.sh "$BUILD" --set insitu.shading.shadows=true \
  --set insitu.shading.ao_samples=8 2>&1 | sed 's/^/lit   /' | tee -a "$OUT/dem-lighting.txt"
exit $status
