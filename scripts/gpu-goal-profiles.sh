#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data): what limits each row of issue #65's goals, by Nsight
# Compute. For each of SCENES (default "dense heap pour dilute") at 1 M grains, 1080p, in device
# memory, one granray-bench run per ROWS entry (default: primary rays, lit with shadows + 8
# occlusion rays, metal and glass 4 bounces), every kernel of its first COUNT launches (default 150: the two frames of `--repeat 1`) profiled (time, lanes
# active a warp instruction, warps active, SM and DRAM throughput, L2 hit rate) and summed per
# kernel by scripts/ncu-kernels.py --by-kernel. TESTS=1: this tree's CUDA tests first. Logs in
# $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
build_and_test "granray-bench"
ncu=$(find_ncu)
[ -n "$ncu" ] || { echo "no ncu on this machine"; exit 0; }
metrics=gpu__time_duration.sum,smsp__thread_inst_executed_per_inst_executed.ratio
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
metrics=$metrics,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
IFS=';' read -r -a rows <<<"${ROWS:-primary=;lit=--shadows --ao 8;materials=--materials --bounces 4}"
for scene in ${SCENES:-dense heap pour dilute}; do
  for row in "${rows[@]}"; do
    name=${row%%=*}
    log="$OUT/ncu-$scene-$name.csv"
    # shellcheck disable=SC2086
    timeout 300 "$ncu" --csv --metrics "$metrics" --launch-skip "${SKIP:-0}" --launch-count "${COUNT:-150}" \
      "$BUILD/bench/granray-bench" --backend cuda --in-place --scene "$scene" -n 1000000 \
      -r 1920x1080 --method grid --repeat 1 ${row#*=} >"$log" 2>"$log.err"
    echo "== $scene, $name (${row#*=})"
    python3 scripts/ncu-kernels.py --by-kernel "$log" "${TOP:-6}"
  done
done 2>&1 | tee "$OUT/goal-profiles.txt"
