#!/usr/bin/env bash
# Sourced by the GPU-machine scripts: configure for sm_90 and build into $BUILD. Header-only
# dependencies missing there are taken from .deps/include, ../shared/data from .data.
# GRANRAY_TARGETS="a b" builds those targets alone.
extra=()
[ -d .deps/include ] && extra+=("-DGRANRAY_EXTRA_INCLUDE_DIR=$PWD/.deps/include")
data=()
[ -d .data ] && data+=("-DGRANRAY_SHARED_DATA_DIR=$PWD/.data")
if ! cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    "${extra[@]}" "${data[@]}" ${GRANRAY_CMAKE_ARGS:-} >"$BUILD.configure.log" 2>&1; then
  tail -40 "$BUILD.configure.log"; exit 1
fi
targets=()
for t in ${GRANRAY_TARGETS:-}; do targets+=(--target "$t"); done
if ! cmake --build "$BUILD" -j "$(nproc)" "${targets[@]}" >"$BUILD.build.log" 2>&1; then
  grep -E "error|FAILED" "$BUILD.build.log" | head -40; exit 1
fi
