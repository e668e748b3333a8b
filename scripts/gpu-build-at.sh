#!/usr/bin/env bash
# Sourced by the GPU-machine scripts that build more than one tree (a change against the tree it
# came from): `build SOURCE BUILD_DIR TARGETS...` configures SOURCE for sm_90 into BUILD_DIR and
# builds TARGETS, logs under $OUT; header-only dependencies from .deps/include when present.
extra=()
[ -d .deps/include ] && extra+=("-DGRANRAY_EXTRA_INCLUDE_DIR=$PWD/.deps/include")
# BUILD_ARGS: more cmake arguments for this one build.
build() {
  local src=$1 dir=$2
  shift 2
  # shellcheck disable=SC2086
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGRANRAY_BUILD_PYTHON=OFF "${extra[@]}" ${BUILD_ARGS:-} \
    >"$OUT/$(basename "$dir").configure.log" 2>&1 &&
    cmake --build "$dir" -j "$(nproc)" --target "$@" >"$OUT/$(basename "$dir").build.log" 2>&1 ||
    { grep -E "error|FAILED" "$OUT/$(basename "$dir").build.log" | head -30; return 1; }
}

# `build_before TARGETS...`: the tree a change came from (.data/before.tar, `git archive -o
# .data/before.tar COMMIT`), unpacked into /tmp/before and built there in the background; the
# caller `wait`s for it. REUSE=1 keeps /tmp/before as an earlier call on a warm machine left it.
build_before() {
  if [ "${REUSE:-0}" = 1 ] && [ -d /tmp/before/build ]; then
    build /tmp/before /tmp/before/build "$@" &
    return
  fi
  rm -rf /tmp/before && mkdir -p /tmp/before && tar -xf .data/before.tar -C /tmp/before
  [ -d .deps ] && cp -r .deps /tmp/before/
  build /tmp/before /tmp/before/build "$@" &
}

# `build_both TARGETS...`: the tree before (build_before) and this tree (into $BUILD, with its GPU
# tests unless TESTS=0), side by side; returns when both are built, exits when this tree fails to
# build.
build_both() {
  build_before "$@"
  local tests=(granray_gpu_tests)
  [ "${TESTS:-1}" = 0 ] && tests=()
  build . "$BUILD" "${tests[@]}" "$@" || exit 1
  wait
}

# `build_variant TARGETS...`: with VARIANT set (cmake arguments), this tree built with them into
# /tmp/variant in the background (build_both's wait takes it), added to the caller's `trees`.
build_variant() {
  [ -n "${VARIANT:-}" ] || return 0
  BUILD_ARGS="$VARIANT" build . /tmp/variant "$@" &
  trees+=(/tmp/variant)
}

# `suite_scenes`: the scene suite's beds at ${GRAINS:-1000000} grains (seed 1) as 'x y z r' files
# /tmp/suite/SCENE.xyzr, written by $BUILD's granray-scene side by side; `scenes` names them.
scenes=(dense dilute heap drum pour hopper clusters)
suite_scenes() {
  mkdir -p /tmp/suite
  for s in "${scenes[@]}"; do
    "$BUILD/bench/granray-scene" "$s" "${GRAINS:-1000000}" 1 >"/tmp/suite/$s.xyzr" &
  done
  wait
}
