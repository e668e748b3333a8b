#!/usr/bin/env bash
# Issue 39's GPU rows on the GPU machine (carry .deps): builds, runs the GPU tests, then times with
# granray-bench (1920 x 1080, grid method, medians of 20 frames): primary rays over 1 M and 10 M
# dense grains, shadows + 8 occlusion rays over 1 M, primary rays inside a 100,000-triangle
# cylinder; then Nsight Compute's speed-of-light, occupancy and memory sections of the ray kernels
# of the 1 M frames, unlit and lit, where ncu is installed; the MPI rendering tests on CUDA, 2 ranks. Logs go to $OUT; a summary is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-tests-and-mpi.sh
bench="$BUILD/bench/granray-bench"
common=(--backend cuda -r 1920x1080 --method grid --repeat 20)
{
  echo "primary, dense 1 M and 10 M:"
  "$bench" "${common[@]}" -n 1000000 10000000 | tail -3
  echo "shadows + 8 occlusion rays, dense 1 M:"
  "$bench" "${common[@]}" -n 1000000 --shadows --ao 8 | tail -2
  echo "primary inside a 100,000-triangle cylinder, dense 1 M:"
  "$bench" "${common[@]}" -n 1000000 --cylinder-wall 25001 | tail -2
} 2>&1 | tee "$OUT/speed.txt"
ncu=$(find_ncu)
if [ -n "$ncu" ] && [ -z "${SKIP_NCU:-}" ]; then
  for lit in unlit lit; do
    extra=()
    [ $lit = lit ] && extra=(--shadows --ao 8)
    timeout 240 "$ncu" --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section MemoryWorkloadAnalysis --section WarpStateStats -k regex:for_each_pixel \
      --launch-skip 2 --launch-count 6 "$bench" --backend cuda -r 1920x1080 --method grid \
      --repeat 2 -n 1000000 "${extra[@]}" >"$OUT/ncu-$lit.txt" 2>&1
    echo "ncu $lit: exit $?"
  done
elif [ -n "${SKIP_NCU:-}" ]; then
  echo "ncu skipped (SKIP_NCU)"
else
  echo "no ncu on this machine"
fi
