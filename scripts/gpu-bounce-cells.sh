#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data): how the grids of bounce rays and of the path-traced
# still size their cells (GRANRAY_BOUNCE_CELLS, backend/lit_frame.inl). Each of WAYS
# (NAME=VAR=VALUE; default the frames' cells against the finer ones, the GPU's default) on each of
# SCENES (default "pour hopper heap dense") at 1 M grains, 1080p, in device memory, ROUNDS rounds
# (default 2) alternating the ways: the path still (64 paths, 4 bounces, metal and glass; no floor
# or sun: bench/mitsuba_compare.py's scene is scripts/gpu-path-levels.sh's) and the metal and
# glass frame (4 bounces). TESTS=1: this tree's CUDA tests first. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
build_and_test "granray-bench"
bench="$BUILD/bench/granray-bench"
for round in $(seq "${ROUNDS:-2}"); do
  for s in ${SCENES:-pour hopper heap dense}; do
    for way in ${WAYS:-frames=GRANRAY_BOUNCE_CELLS=frames fine=GRANRAY_BOUNCE_CELLS=fine}; do
      echo "== round $round, $s, ${way%%=*}"
      (
        export "${way#*=}"
        "$bench" --backend cuda --in-place --scene "$s" -n 1000000 -r 1920x1080 --method grid \
          --repeat 3 --materials --bounces 4 --path 64 2>&1 | grep -E "^cuda|path-traced"
        "$bench" --backend cuda --in-place --scene "$s" -n 1000000 -r 1920x1080 --method grid \
          --repeat 5 --materials --bounces 4 2>&1 | grep -E "^cuda|materials:"
      )
    done
  done
done 2>&1 | tee "$OUT/bounce-cells.txt"
