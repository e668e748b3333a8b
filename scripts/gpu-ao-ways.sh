#!/usr/bin/env bash
# The GPU's ambient-occlusion rays, one way against another, on the GPU machine (carry .deps):
# builds granray-bench once per variant ("NAME=DEFINES", compile definitions of the CUDA sources:
# GRANRAY_GPU_AO_WALK=1 a walk per ray, GRANRAY_AO_BATCH=K rays per read of the cells), in
# parallel with the GPU tests of today's tree (TESTS=0 skips them), then times the lit rows
# (1920 x 1080, grid, medians of 20 frames), variants alternated over ROUNDS rounds in one run.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
variants=${VARIANTS:-"walk=-DGRANRAY_GPU_AO_WALK=1 cells8=-DGRANRAY_AO_BATCH=8"}
names=()
for v in $variants; do
  name=${v%%=*} defines=${v#*=}
  names+=("$name")
  (
    extra+=("-DCMAKE_CUDA_FLAGS=${defines//,/ }")
    build . "build-ao-$name" granray-bench || echo "variant $name did not build"
  ) &
done
if [ "${TESTS:-1}" != 0 ]; then
  (build . "$BUILD" granray_gpu_tests && (cd "$BUILD" && ctest -L gpu -R '^cuda[.]' -j 4) \
    >"$OUT/gpu_tests.log" 2>&1; grep -E "tests passed|tests failed|Failed" "$OUT/gpu_tests.log") &
fi
wait
rows=("-n 1000000 --shadows --ao 8" "-n 1000000 --ao 8" "-n 1000000 --shadows"
  "-n 10000000 --shadows --ao 8" "-n 1000000 --shadows --ao 8 --samples 4"
  "-n 1000000 --shadows --ao 8 --cylinder-wall 25001")
[ -n "${ROWS:-}" ] && mapfile -t rows <<<"$ROWS"  # one row a line
for round in $(seq "${ROUNDS:-2}"); do
  for row in "${rows[@]}"; do
    for name in "${names[@]}"; do
      # shellcheck disable=SC2086
      line=$("build-ao-$name/bench/granray-bench" --backend cuda -r 1920x1080 --method grid \
        --repeat 20 $row 2>&1 | tail -1)
      echo "round $round, $name, $row: $line"
    done
  done
done | tee "$OUT/ao-ways.txt"
