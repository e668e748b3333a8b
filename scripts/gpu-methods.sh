#!/usr/bin/env bash
# On the GPU machine (carry .deps): the grid against the screen tiles on every scene of the
# benchmark suite (GRAINS grains, 1 M by default; 1920 x 1080, medians of 10 frames, in device
# memory), unlit and lit (shadows + 8 occlusion rays): which of them a frame of each scene should
# take (METHODS=0 skips it). NCU=1 also profiles the primary kernel of the heap and of the dense
# box (grid): ncu's speed-of-light, occupancy, warp-state and instruction sections into
# $OUT/ncu-primary-SCENE.txt, and the sampled stall reasons into $OUT/ncu-stalls-SCENE.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
GRANRAY_TARGETS="granray-bench" source scripts/gpu-build.sh
frame_args=(--backend cuda --in-place -n "${GRAINS:-1000000}" -r 1920x1080)
if [ "${METHODS:-1}" != 0 ]; then
  for lit in "" "--shadows --ao 8"; do
    # shellcheck disable=SC2086  # $lit is several arguments
    "$BUILD/bench/granray-bench" "${frame_args[@]}" --scene suite --method grid tiles \
      --repeat 10 $lit 2>&1 | grep -v '^walls:' | tee -a "$OUT/methods.txt"
  done
fi
[ "${NCU:-0}" = 1 ] || exit 0
stalls=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,l1tex__t_sector_hit_rate.pct
stalls+=,lts__t_sector_hit_rate.pct
for reason in long_scoreboard short_scoreboard wait math_pipe_throttle no_instructions \
  branch_resolving barrier not_selected selected lg_throttle mio_throttle; do
  stalls+=,smsp__pcsamp_warps_issue_stalled_$reason
done
for scene in heap dense; do
  profile=(ncu --kernel-name-base demangled --kernel-name regex:RenderPixel --launch-skip 1
    --launch-count 1)
  "${profile[@]}" --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats \
    "$BUILD/bench/granray-bench" "${frame_args[@]}" --scene "$scene" --method grid --repeat 1 \
    >"$OUT/ncu-primary-$scene.txt" 2>&1
  "${profile[@]}" --metrics "$stalls" "$BUILD/bench/granray-bench" "${frame_args[@]}" \
    --scene "$scene" --method grid --repeat 1 >"$OUT/ncu-stalls-$scene.txt" 2>&1
  echo "== $scene"
  grep -E "Duration|Registers Per|Occupancy|Warp Cycles Per Issued|Active Threads|Compute \(SM\)" \
    "$OUT/ncu-primary-$scene.txt"
done
