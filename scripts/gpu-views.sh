#!/usr/bin/env bash
# On the GPU machine (carry .deps): SPEC 2f's views. Builds, runs the GPU tests (views on the CUDA
# backend among them) and compute-sanitizer over the views' test, then what further views cost
# the example DEM's time loop: bench/scaling-bed.toml (1 M grains, 1920x1080, no output), the main
# camera alone, with 1 further view, and with 7 (8 views in all), unlit and lit. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
extra=()
[ -d .deps/include ] && extra+=("-DGRANRAY_EXTRA_INCLUDE_DIR=$PWD/.deps/include")
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGRANRAY_BUILD_PYTHON=OFF "${extra[@]}" >"$OUT/configure.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" --target granray_gpu_tests granray-dem \
    >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }
(cd "$BUILD" && ctest -L gpu -R '^cuda[.]' -j 4 --output-on-failure) >"$OUT/gpu-tests.log" 2>&1
grep -E "tests passed|tests failed|Failed" "$OUT/gpu-tests.log" | head -20
compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/granray_gpu_tests" \
  --gtest_filter='ViewsOnBackendTest.*:RegionTest.*' >"$OUT/memcheck.log" 2>&1
echo "memcheck: exit $?"; tail -1 "$OUT/memcheck.log"

views() {  # N: further views on a ring round the bed
  local n=$1
  [ "$n" -eq 0 ] && return
  echo "--set insitu.orbit={theta=[75.0],phi_count=$n}"
}
{
  for lit in unlit lit; do
    shading=()
    [ $lit = lit ] && shading=(--set insitu.shading.shadows=true --set insitu.shading.ao_samples=8)
    for round in 1 2; do
      for n in 0 1 7; do
        log="$OUT/dem-$lit-$n-$round.txt"
        # shellcheck disable=SC2046
        "$BUILD/examples/dem/granray-dem" bench/scaling-bed.toml --set simulation.steps=600 \
          --set 'insitu.png=""' --set 'insitu.output=""' "${shading[@]}" $(views "$n") >"$log" 2>&1
        frame=$(grep -oE "per frame, median.*" "$log")
        step=$(grep -oE "DEM [0-9.]+ ms/step" "$log" | tail -1)
        echo "$lit, $((n + 1)) views, round $round: $frame | $step"
      done
    done
  done
} | tee "$OUT/views-cost.txt"
