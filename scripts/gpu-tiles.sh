#!/usr/bin/env bash
# Kernel shapes and register budgets on the GPU machine (carry .deps): builds granray-bench once
# per variant ("WIDTHxHEIGHTxMIN_BLOCKS[xINDEX_MIN_BLOCKS]", compile definitions of
# kernels/src/cuda_backend.cu: the block of every pixel kernel that walks no walls, primary or
# not, and the least blocks an SM their launch bounds ask for, then the same for the bounce
# levels' index kernels, 8 when left out; "default": the file's own choices), in parallel, then
# times each on issue 39's and 43's rows (1920 x 1080, grid, medians of 20 frames), variants
# alternated over ROUNDS rounds in one run. VARIANTS="default 8x16x10 8x16x1" and ROWS
# (granray-bench arguments, a row a line) as below by default.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
variants=${VARIANTS:-"default 8x16x10 8x16x1"}
for v in $variants; do
  IFS=x read -r w h b i <<<"$v"
  (
    if [ "$v" != default ]; then
      flags=""
      for kind in PIXEL PRIMARY; do
        flags+=" -DGRANRAY_${kind}_TILE_WIDTH=$w -DGRANRAY_${kind}_TILE_HEIGHT=$h"
        flags+=" -DGRANRAY_${kind}_TILE_MIN_BLOCKS=$b"
      done
      extra+=("-DCMAKE_CUDA_FLAGS=$flags -DGRANRAY_INDEX_MIN_BLOCKS=${i:-8}")
    fi
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
