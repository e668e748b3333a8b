#!/usr/bin/env bash
# On the GPU machine (carry .deps, .data and .pyvendor): where the path still's time goes on
# bench/mitsuba_compare.py's scene (floor, sky, sun). For each of SCENES (default "pour heap
# dense") at 1 M grains, 1080p, 64 paths, 4 bounces: the script against Mitsuba 3 (cuda_ad_rgb),
# then granray-render on the scene it wrote with the sun off, without the floor, and with
# neither (each still rendered twice in one process, the second timed); then ncu over one batch of
# the pour's still (4 paths a pixel); then this tree's CUDA tests. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
GRANRAY_TARGETS="granray_gpu_tests granray-bench granray-scene granray-render" \
  source scripts/gpu-build.sh
use_vendored_mitsuba
render="$BUILD/tools/granray-render"
second() {  # DIR ARGS...: the second still's frame time
  local dir=$1
  shift
  "$render" "$@" "$dir/bed.xyzr" "$dir/bed.xyzr" --out "/tmp/parts-*.png" 2>&1 |
    sed -n 's/.*frame \([0-9.]*\) ms.*/\1 ms/p' | tail -1
}
mkdir -p /tmp/mc
for scene in ${SCENES:-pour heap dense}; do
  dir=/tmp/mc/$scene
  mitsuba_scene "$render" "$scene" "$dir"
  sed '/^\[\[insitu.walls\]\]/,$d' "$dir/scene.toml" >"$dir/no-floor.toml"
  {
    echo "== $scene"
    grep -E '^(granray|mitsuba|ratio|images)' "$dir.txt"
    echo "as Mitsuba's scene: $(second "$dir" --config "$dir/scene.toml")"
    echo "sun off: $(second "$dir" --config "$dir/scene.toml" --set path.sun_intensity=0)"
    echo "no floor: $(second "$dir" --config "$dir/no-floor.toml")"
    echo "neither: $(second "$dir" --config "$dir/no-floor.toml" --set path.sun_intensity=0)"
  } 2>&1 | tee -a "$OUT/still-parts.txt"
done
dir=/tmp/mc/pour
if [ -d "$dir" ]; then
  timeout 200 ncu --kernel-name-base demangled --kernel-name regex:TracePaths --launch-skip 2 \
    --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section LaunchStats --section InstructionStats --section SchedulerStats \
    "$render" --config "$dir/scene.toml" "$dir/bed.xyzr" --out /tmp/ncu.png >"$OUT/ncu-still.txt" 2>&1
  grep -E "Duration|Registers Per|Occupancy|Warp Cycles Per Issued|Active Threads|Compute \(SM\)|Executed Ipc|Local" \
    "$OUT/ncu-still.txt" | head -30
fi
[ "${TESTS:-1}" = 0 ] || cuda_tests
