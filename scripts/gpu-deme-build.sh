#!/usr/bin/env bash
# On the GPU machine (carry .deme: DEM-Engine's source without its data, and jitify in
# thirdparty/jitify, as docs/dem-engine.md's issue note describes): configures and builds
# DEM-Engine's library against the machine's CUDA toolkit, within SECONDS (default 420), and
# logs where it stops to $OUT/deme-*.log.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
nvcc --version | tail -2
limit=${SECONDS_FOR_DEME:-420}
start=$(date +%s)
# CUDA 13 keeps CUB's CMake package under the toolkit's lib/cmake, not where DEME looks.
cub=$(find /usr/local/cuda*/ -name cub-config.cmake 2>/dev/null | head -1)
echo "CUB package: ${cub:-none}"
timeout "$limit" cmake -S .deme -B /tmp/deme-build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 ${cub:+-DCUB_DIR="$(dirname "$cub")"} \
  >"$OUT/deme-configure.log" 2>&1
echo "DEME configure: exit $? after $(($(date +%s) - start)) s"; tail -15 "$OUT/deme-configure.log"
left=$((limit - ($(date +%s) - start)))
[ -f /tmp/deme-build/build.ninja ] || exit 1
timeout "$left" cmake --build /tmp/deme-build -j "$(nproc)" --target simulator_multi_gpu \
  >"$OUT/deme-build.log" 2>&1
echo "DEME library build: exit $? after $(($(date +%s) - start)) s"
grep -E "error|Error" "$OUT/deme-build.log" | head -15; tail -5 "$OUT/deme-build.log"
