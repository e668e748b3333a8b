#!/usr/bin/env bash
# On the GPU machine (carry .deps): builds granray-render and the GPU tests, runs the region and
# poster tests on the CUDA backend, then renders a 1-gigapixel poster (40000 x 25000) of a
# 10 M-grain synthetic bed end to end, to PNG, to PPM (no compression) and to PNG + HDF5,
# reporting wall time and peak RSS of each process. Results under $OUT.
set -uo pipefail
BUILD=build-poster
out=${OUT:-/tmp/poster-out}
mkdir -p "$out"
extra=()
[ -d .deps/include ] && extra+=("-DGRANRAY_EXTRA_INCLUDE_DIR=$PWD/.deps/include")
cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGRANRAY_BUILD_PYTHON=OFF "${extra[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build $BUILD -j "$(nproc)" --target granray-render granray_gpu_tests granray-synthetic-bed \
  >"$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -30; exit 1; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
$BUILD/tests/granray_gpu_tests --gtest_filter='Region*' 2>&1 | tail -4 | tee "$out/gpu_tests.txt"
bed=/tmp/bed10m.xyzr
[ -f $bed ] || $BUILD/examples/granray-synthetic-bed 10000000 > $bed
ls -l $bed
# Wall seconds and peak RSS (MiB) of a command.
measure() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.time()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(p.stdout.strip()[-400:]); print(p.stderr.strip()[-400:])
print(f"exit {p.returncode}, wall {wall:.1f} s, peak RSS {rss:.0f} MiB")
PY
}
set_args=(--set width=40000 --set height=25000 --set 'backend="cuda"' --set camera.theta=50 --set camera.phi=30)
for run in png ppm h5; do
  rm -f /tmp/poster.* 
  case $run in
    png) echo "== PNG" ; measure $BUILD/tools/granray-render "${set_args[@]}" $bed --out /tmp/poster.png ;;
    ppm) echo "== PPM (no compression)"; measure $BUILD/tools/granray-render "${set_args[@]}" $bed --out /tmp/poster.ppm ;;
    h5)  echo "== PNG + HDF5"; measure $BUILD/tools/granray-render "${set_args[@]}" --set 'output="/tmp/poster.h5"' $bed --out /tmp/poster.png ;;
  esac
  ls -l /tmp/poster.* 2>/dev/null
done 2>&1 | tee "$out/poster.txt"
# The bed alone read and rendered small: the reading's share.
echo "== read + 64x64 frame" | tee -a "$out/poster.txt"
measure $BUILD/tools/granray-render --set width=64 --set height=64 --set 'backend="cuda"' $bed --out /tmp/small.png 2>&1 | tee -a "$out/poster.txt"
