#!/usr/bin/env bash
# On the GPU machine (carry .deps, .data and .pyvendor): the path still level by level
# (kernels/path_levels.h) on bench/mitsuba_compare.py's scene (floor, sky, sun; a third each
# matte, mirror, glass), 1 M grains, 1080p, 64 paths, 4 bounces. For each of SCENES (default
# "pour heap dense hopper"): the script against Mitsuba 3 (cuda_ad_rgb) once, then this tree's
# still under each of WAYS (NAME=VAR=VALUE; "level" is the default way, "pixel" the one pass),
# each still rendered twice in one process and the second timed, ROUNDS rounds (default 2), with
# whether each image is the same bytes as the default way's. NCU=1: per-kernel times of one part
# of the pour's still. TESTS=1: this tree's CUDA tests first. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
build_and_test "granray-scene granray-render"
use_vendored_mitsuba
render="$BUILD/tools/granray-render"
mkdir -p /tmp/mc
for scene in ${SCENES:-pour heap dense hopper}; do
  dir=/tmp/mc/$scene
  mitsuba_scene "$render" "$scene" "$dir"
  {
    echo "== Mitsuba, $scene"
    grep -E '^(granray|mitsuba|ratio|images)' "$dir.txt"
    for round in $(seq "${ROUNDS:-2}"); do
      for way in level=GRANRAY_PATH_PASS=level ${WAYS:-pixel=GRANRAY_PATH_PASS=pixel}; do
        name=${way%%=*}
        echo "round $round, $scene, $name: $(export "${way#*=}"; second_still "$render" "$dir" "$name")"
        [ "$name" = level ] || { cmp -s /tmp/still-level-1.png "/tmp/still-$name-1.png" &&
          echo "  same image" || echo "  images differ"; }
      done
    done
  } 2>&1 | tee -a "$OUT/path-levels.txt"
done
if [ "${NCU:-0}" = 1 ] && [ -d /tmp/mc/pour ]; then
  timeout 240 ncu --kernel-name-base demangled --kernel-name regex:"StartPaths|ContinuePaths|AddPathRadiance" \
    --launch-skip 12 --launch-count 6 --metrics gpu__time_duration.sum,launch__registers_per_thread,smsp__thread_inst_executed_per_inst_executed.ratio,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    "$render" --config /tmp/mc/pour/scene.toml /tmp/mc/pour/bed.xyzr --out /tmp/ncu.png >"$OUT/ncu-levels.txt" 2>&1
  grep -E "StartPaths|ContinuePaths|AddPathRadiance|duration|registers|thread_inst|grid_size|warps_active" \
    "$OUT/ncu-levels.txt" | sed -E 's/(StartPaths|ContinuePaths|AddPathRadiance)<.*/\1/' | head -60
fi
exit 0
