#!/usr/bin/env bash
# One run on the GPU machine: configure for sm_90, build, run every test (GPU ones included),
# memcheck the GPU tests, benchmark, and print a short table last. Logs go to $OUT (or ./out).
# Header-only dependencies missing there are taken from .deps/include when present.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh

source scripts/gpu-build.sh

status=0
(cd "$BUILD" && ctest --output-on-failure -j 4) >"$OUT/tests.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/tests.log" | head -30

compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/granray_gpu_tests" \
  --gtest_filter='GridTest.*:RenderTest.EmptyFrame*:RenderTest.Broken*:CudaInput.*' \
  >"$OUT/memcheck.log" 2>&1 || status=1
tail -3 "$OUT/memcheck.log"
"$BUILD/tests/granray_gpu_tests" --gtest_filter='ZeroCopy.*' 2>&1 | grep -E "copies|OK|FAILED"

bench="$BUILD/bench/granray-bench"
sizes="1024x1024 1920x1080 3840x2160"
{
  "$bench" --backend cuda -n 10000 100000 1000000 10000000 -r $sizes --json "$BUILD/bench-dense.json"
  "$bench" --backend cuda --polydispersity 0.5 -n 1000000 10000000 -r 1920x1080 | grep -v '^backend'
  "$bench" --backend cuda --scene dilute -n 100000 1000000 10000000 -r 1920x1080 | grep -v '^backend'
  timeout 120 "$bench" --backend cuda -n 100000000 -r 1920x1080 --repeat 3 | grep -v '^backend'
  "$bench" --backend cuda -n 10000 100000 1000000 -r 1920x1080 --brute-force --repeat 3 | grep -v '^backend'
  [ -f .data/liggghts/pour-20k.step10000.liggghts ] &&
    "$bench" --backend cuda --input .data/liggghts/pour-20k.step10000.liggghts --brute-force | grep -v '^backend'
  "$bench" --backend cpu -n 100000 1000000 -r 1920x1080 --repeat 3 | grep -v '^backend'
} 2>&1 | tee "$OUT/bench.txt"
[ -n "${SKIP_DEM:-}" ] && exit $status

# The example DEM with the plugin: the same scene on the GPU and on this machine's CPUs.
dem="$PWD/$BUILD/examples/dem/granray-dem"
mkdir -p "$BUILD/dem-run" && cd "$BUILD/dem-run"
for backend in cuda cpu; do
  "$dem" --set simulation.steps=5000 --set "simulation.backend=\"$backend\"" \
    --set "insitu.backend=\"$backend\"" --set 'insitu.png=""' --set 'insitu.output=""' | tail -1
done 2>&1 | tee "$OUT/dem.txt"
# One frame's cost to the time loop with the writer thread (queue 4) and without (queue 0).
for queue in 4 0; do
  rm -rf frames frames.h5
  echo "queue = $queue:"
  "$dem" --set simulation.steps=20000 --set insitu.every=1000 --set insitu.queue=$queue | tail -1
done 2>&1 | tee -a "$OUT/dem.txt"
timeout 300 "$dem" "$OLDPWD/examples/dem/pour-gpu.toml" --set simulation.steps=${GPU_DEMO_STEPS:-75000} \
  --set 'insitu.png="gpu-frames/step_*.png"' --set 'insitu.output="gpu.h5"' 2>&1 | tail -3 | tee -a "$OUT/dem.txt"
ls gpu-frames | tail -1 | xargs -I{} cp gpu-frames/{} "$OUT/gpu-demo-last.png"
rm -rf gpu-frames
exit $status
