#!/usr/bin/env bash
# Pixel-kernel shapes on the GPU machine (carry .deps): builds granray-bench once per variant
# ("WIDTHxHEIGHTxMIN_BLOCKS", compile definitions of kernels/src/cuda_backend.cu), in parallel,
# then times each on issue 39's rows (1920 x 1080, grid, medians of 20 frames), variants
# alternated over ROUNDS rounds in one run. VARIANTS="8x16x1 16x8x1 4x32x1 8x16x2" by default.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
variants=${VARIANTS:-"8x16x1 16x8x1 4x32x1 8x16x2"}
for v in $variants; do
  IFS=x read -r w h b <<<"$v"
  (
    extra+=("-DCMAKE_CUDA_FLAGS=-DGRANRAY_PIXEL_TILE_WIDTH=$w -DGRANRAY_PIXEL_TILE_HEIGHT=$h -DGRANRAY_PIXEL_MIN_BLOCKS=$b")
    build . "build-tiles-$v" granray-bench || echo "variant $v did not build"
  ) &
done
wait
rows=("-n 1000000" "-n 10000000" "-n 1000000 --shadows --ao 8" "-n 1000000 --cylinder-wall 25001")
for round in $(seq "${ROUNDS:-2}"); do
  for row in "${rows[@]}"; do
    for v in $variants; do
      # shellcheck disable=SC2086
      line=$("build-tiles-$v/bench/granray-bench" --backend cuda -r 1920x1080 --method grid \
        --repeat 20 $row 2>&1 | tail -1)
      echo "round $round, $v, $row: $line"
    done
  done
done | tee "$OUT/tiles.txt"
