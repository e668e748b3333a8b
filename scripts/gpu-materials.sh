#!/usr/bin/env bash
# Issue 43's GPU checks and rows on the GPU machine (carry .deps and .data): builds, runs the GPU
# tests (the materials tests among them) and the MPI rendering tests on CUDA (2 ranks), then times
# with granray-bench (1920 x 1080, grid method, medians of 20 frames) over 1 M dense grains:
# primary rays, shadows + 8 occlusion rays, and a third each matte, mirror metal (k = 0.8) and
# glass with bounces = 1, 2, 4 unlit and 4 with shadows, the bounce pass level by level and depth
# first (GRANRAY_BOUNCE_PASS=depth) alternated; the path-traced still of the same scene, 1 and
# 64 paths per pixel; Nsight Compute over the level kernels unless SKIP_NCU. Logs go to $OUT; a
# summary is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-tests-and-mpi.sh
bench="$BUILD/bench/granray-bench"
common=(--backend cuda -r 1920x1080 --method grid --repeat 20 -n 1000000)
{
  echo "primary, dense 1 M:"
  "$bench" "${common[@]}" | tail -1
  echo "shadows + 8 occlusion rays, dense 1 M:"
  "$bench" "${common[@]}" --shadows --ao 8 | tail -1
  # The bounce pass both ways (GRANRAY_BOUNCE_PASS), alternated over two rounds.
  for round in 1 2; do
    for b in 1 2 4 "4 --shadows"; do
      for way in level depth; do
        echo "round $round, bounce pass by $way, a third each matte, mirror, glass, bounces $b, dense 1 M:"
        # shellcheck disable=SC2086
        GRANRAY_BOUNCE_PASS=$way "$bench" "${common[@]}" --materials --bounces $b | tail -2
      done
    done
  done
  for n in 1 64; do
    echo "path-traced still, a third each matte, mirror, glass, $n paths per pixel, 4 bounces, dense 1 M:"
    "$bench" --backend cuda -r 1920x1080 --method grid --repeat 5 -n 1000000 --materials --bounces 4 --path $n | tail -2
  done
} 2>&1 | tee "$OUT/materials-speed.txt"
# Nsight Compute over the bounce pass's level kernels (bounces 4), unless SKIP_NCU is set.
ncu=$(find_ncu)
if [ -n "$ncu" ] && [ -z "${SKIP_NCU:-}" ]; then
  timeout 240 "$ncu" --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:for_each_index_kernel \
    --launch-count 12 "$bench" --backend cuda -r 1920x1080 --method grid --repeat 1 -n 1000000 \
    --materials --bounces 4 \
    >"$OUT/ncu-bounce-levels.txt" 2>&1
  echo "ncu bounce levels: exit $?"
  grep -E "for_each_index_kernel|Duration|Registers Per Thread|Achieved Occupancy|Active Threads Per Warp|Warp Cycles Per Issued|Compute \(SM\) Throughput" \
    "$OUT/ncu-bounce-levels.txt" | cut -c1-140 | head -100
fi
