#!/usr/bin/env bash
# Sourced first by the GPU-machine scripts, from the repository root: where logs go ($OUT, or
# ./out) and where the build lives ($BUILD, or build-gpu).
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}

# The GPU a run measured, into $OUT/gpu.txt and on the terminal.
record_gpu() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
}

# The CUDA tests of $BUILD (ctest names cuda.*), logged to $OUT/gpu-tests.log; prints the summary.
cuda_tests() {
  (cd "$BUILD" && ctest -L gpu -R '^cuda[.]' -j 4 --output-on-failure) >"$OUT/gpu-tests.log" 2>&1
  local status=$?
  grep -E "tests passed|tests failed|Failed" "$OUT/gpu-tests.log" | head -20
  return $status
}

# compute-sanitizer memcheck over the GPU tests that the gtest filter $1 selects, logged to
# $OUT/memcheck.log; prints its exit status and summary.
memcheck_tests() {
  compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/granray_gpu_tests" \
    --gtest_filter="$1" >"$OUT/memcheck.log" 2>&1
  local status=$?
  echo "memcheck: exit $status"; tail -2 "$OUT/memcheck.log"
  return $status
}

# The GPU tests (ctest label gpu) of $BUILD, logged to $OUT/gpu-tests.log; prints the summary.
gpu_tests() {
  local status=0
  (cd "$BUILD" && ctest --output-on-failure -L gpu -j 2) >"$OUT/gpu-tests.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Failed|\*\*\*Failed" "$OUT/gpu-tests.log" | head -20
  return $status
}

# granray's path still against Mitsuba 3 (cuda_ad_rgb, from .pyvendor) on each scene of the
# suite at $1 grains, 1080p, 64 paths, 4 bounces, logged to $OUT/mitsuba-SCENE.txt; skipped
# without the vendored Mitsuba; MITSUBA_SCENES names fewer scenes.
mitsuba_per_scene() {
  [ -f .pyvendor/mitsuba-cuda-cp312.tar.xz ] || return 0
  local scene
  use_vendored_mitsuba
  for scene in ${MITSUBA_SCENES:-dense dilute heap drum pour hopper clusters}; do
    mitsuba_compare "$BUILD/tools/granray-render" "$scene" "$1" >"$OUT/mitsuba-$scene.txt" 2>&1
    echo "== Mitsuba, $scene"; grep -E '^(granray|mitsuba|ratio)' "$OUT/mitsuba-$scene.txt"
  done
}

# Every run says which GPU it measured.
record_gpu

# Mitsuba 3 on the GPU machine, which reaches no package index: the vendored cuda_ad_rgb build
# (.pyvendor's mitsuba-cuda-cp312.tar.xz, scripts/make-pyvendor.sh) and numpy, put on PYTHONPATH.
use_vendored_mitsuba() {
  local vendor
  vendor=$(mktemp -d)
  tar xJf .pyvendor/mitsuba-cuda-cp312.tar.xz -C "$vendor"
  python3 -c "import numpy" 2>/dev/null || python3 -m zipfile -e .pyvendor/numpy-*.whl "$vendor"
  export PYTHONPATH="$vendor${PYTHONPATH:+:$PYTHONPATH}"
}

# `mitsuba_compare RENDER SCENE GRAINS [ARGS...]`: bench/mitsuba_compare.py's scene SCENE of
# the suite (a third each matte, mirror, glass; floor, sky and point sun) at GRAINS grains, 1080p,
# 64 paths, 4 bounces, RENDER's still against Mitsuba 3's (cuda_ad_rgb), with the script's ARGS.
mitsuba_compare() {
  python3 bench/mitsuba_compare.py --variant cuda_ad_rgb --backend cuda --granray "$1" \
    --scene "$2" --grains "$3" --size 1920x1080 --samples 64 --bounces 4 --sun 3.0 "${@:4}"
}

# `mitsuba_scene RENDER SCENE DIR`: mitsuba_compare's scene at 1 M grains written to DIR, the
# comparison logged to DIR.txt.
mitsuba_scene() {
  mitsuba_compare "$1" "$2" 1000000 --out "$3" >"$3.txt" 2>&1
}

# Nsight Compute's ncu on this machine (on PATH, or where CUDA installs it), or nothing.
find_ncu() {
  command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1
}

# `build_and_test TARGETS`: builds TARGETS into $BUILD (scripts/gpu-build.sh), and with TESTS=1
# the GPU tests too, then runs them (cuda_tests).
build_and_test() {
  local targets=$1
  [ "${TESTS:-0}" = 1 ] && targets="$targets granray_gpu_tests"
  GRANRAY_TARGETS="$targets" source scripts/gpu-build.sh
  [ "${TESTS:-0}" = 1 ] && cuda_tests
  return 0
}

# `second_still RENDER DIR NAME`: RENDER's still of the scene mitsuba_scene wrote to DIR, rendered
# twice in one process; prints the second one's frame time, the stills in /tmp/still-NAME-*.png.
second_still() {
  "$1" --config "$2/scene.toml" "$2/bed.xyzr" "$2/bed.xyzr" --out "/tmp/still-$3-*.png" 2>&1 |
    sed -n 's/.*frame \([0-9.]*\) ms.*/\1 ms/p' | tail -1
}
