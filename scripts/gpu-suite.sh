#!/usr/bin/env bash
# On the GPU machine (carry .deps, .data with the LIGGGHTS packing, and .pyvendor for Mitsuba):
# every scene of the benchmark suite (bench/scene_suite.h) and the LIGGGHTS packing at 1 M grains
# (the packing at its own 20,000), 1920 x 1080, grid method: primary rays, shadows + 8 occlusion
# rays, metal and glass 4 bounces deep, the path-traced still at 64 paths; then, with .pyvendor,
# the path-traced still against Mitsuba 3 (cuda_ad_rgb) on each scene in the same run
# (MITSUBA=0 skips it). Logs in $OUT; a table per row printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
GRANRAY_TARGETS="granray-bench granray-render granray-scene" source scripts/gpu-build.sh
bench="$BUILD/bench/granray-bench"
n=${GRAINS:-1000000}
packing=.data/liggghts/pour-20k.step10000.liggghts
run() {  # NAME ARGS...: the suite and the packing with these options
  local name=$1
  shift
  {
    "$bench" --backend cuda --scene suite -n "$n" -r 1920x1080 --method grid --repeat 10 "$@"
    [ -f "$packing" ] &&
      "$bench" --backend cuda --input "$packing" -r 1920x1080 --method grid --repeat 10 "$@"
  } 2>&1 | grep -v '^walls:' >"$OUT/suite-$name.txt"
  echo "== $name ($*)"
  cat "$OUT/suite-$name.txt"
}
run primary
run lit --shadows --ao 8
run materials --materials --bounces 4
run path --materials --bounces 4 --path 64
[ "${MITSUBA:-1}" != 0 ] && mitsuba_per_scene "$n"
