#!/usr/bin/env bash
# On the GPU machine (carry .deps): contract 2f's views. Builds, runs the GPU tests (views on the CUDA
# backend among them) and compute-sanitizer over the views' test, then what further views cost
# the example DEM's time loop: bench/scaling-bed.toml (1 M grains, 1920x1080), the main camera
# alone, with 1 further view, and with 7 (8 views in all), unlit and lit, each with no output and
# with an uncompressed HDF5 file (the writer's thread settles the pixels of every view, so the
# GPU's copies run beside the next steps). Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
extra=()
tests=(granray_gpu_tests)
[ -n "${GRANRAY_COST_ONLY:-}" ] && tests=()
[ -d .deps/include ] && extra+=("-DGRANRAY_EXTRA_INCLUDE_DIR=$PWD/.deps/include")
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGRANRAY_BUILD_PYTHON=OFF "${extra[@]}" >"$OUT/configure.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" --target granray-dem "${tests[@]}" \
    >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }
if [ -z "${GRANRAY_COST_ONLY:-}" ]; then  # GRANRAY_COST_ONLY=1: the costs alone
cuda_tests
memcheck_tests 'ViewsOnBackendTest.*:RegionTest.*'
fi

views() {  # N: further views on a ring round the bed
  local n=$1
  [ "$n" -eq 0 ] && return
  echo "--set insitu.orbit={theta=[75.0],phi_count=$n}"
}
{
  for lit in unlit lit; do
    shading=()
    [ $lit = lit ] && shading=(--set insitu.shading.shadows=true --set insitu.shading.ao_samples=8)
    for output in none hdf5; do
      out=(--set 'insitu.output=""')
      [ $output = hdf5 ] && out=(--set "insitu.output=\"$OUT/views.h5\"" --set insitu.compression=0
        --set insitu.queue=16)
      for round in 1 2; do
        for n in 0 1 7; do
          log="$OUT/dem-$lit-$output-$n-$round.txt"
          rm -f "$OUT/views.h5"
          # shellcheck disable=SC2046
          "$BUILD/examples/dem/granray-dem" bench/scaling-bed.toml --set simulation.steps=600 \
            --set 'insitu.png=""' "${out[@]}" "${shading[@]}" $(views "$n") >"$log" 2>&1
          frame=$(grep -oE "per frame, median.*" "$log")
          step=$(grep -oE "DEM [0-9.]+ ms/step" "$log" | tail -1)
          echo "$lit, output $output, $((n + 1)) views, round $round: $frame | $step"
        done
      done
    done
  done
} | tee "$OUT/views-cost.txt"
rm -f "$OUT/views.h5"
