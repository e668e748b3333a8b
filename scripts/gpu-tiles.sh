#!/usr/bin/env bash
# Kernel shapes and register budgets on the GPU machine (carry .deps): builds granray-bench once
# per variant ("WIDTHxHEIGHTxPIXEL_MIN_BLOCKS[xINDEX_MIN_BLOCKS]", compile definitions of
# kernels/src/cuda_backend.cu: the pixel kernels' block, the least blocks an SM that the launch
# bounds of those walking no walls ask for, and the same for the bounce levels' index kernels, 8
# when left out), in parallel, then times each on issue 39's and 43's rows (1920 x 1080, grid,
# medians of 20 frames), variants alternated over ROUNDS rounds in one run.
# VARIANTS="8x16x10 8x16x1 8x16x12" and ROWS (granray-bench arguments, a row a line) as below
# by default.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
variants=${VARIANTS:-"8x16x10 8x16x1 8x16x12"}
for v in $variants; do
  IFS=x read -r w h b i <<<"$v"
  (
    extra+=("-DCMAKE_CUDA_FLAGS=-DGRANRAY_PIXEL_TILE_WIDTH=$w -DGRANRAY_PIXEL_TILE_HEIGHT=$h -DGRANRAY_PIXEL_MIN_BLOCKS=$b -DGRANRAY_INDEX_MIN_BLOCKS=${i:-8}")
    build . "build-tiles-$v" granray-bench || echo "variant $v did not build"
  ) &
done
wait
default_rows="-n 1000000
-n 10000000
-n 1000000 --shadows --ao 8
-n 1000000 --cylinder-wall 25001"
mapfile -t rows <<<"${ROWS:-$default_rows}"
for round in $(seq "${ROUNDS:-2}"); do
  for row in "${rows[@]}"; do
    for v in $variants; do
      # shellcheck disable=SC2086  # a row is several arguments
      line=$("build-tiles-$v/bench/granray-bench" --backend cuda -r 1920x1080 --method grid \
        --repeat 20 $row 2>&1 | tail -2 | grep -v '^backend' | tr '\n' ' ')
      echo "round $round, $v, $row: $line"
    done
  done
done | tee "$OUT/tiles.txt"
