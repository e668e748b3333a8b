#!/usr/bin/env bash
# On the GPU machine (carry .deps, .data and .pyvendor): time to quality against Mitsuba 3
# (cuda_ad_rgb) on the scene suite. For each of SCENES (default every scene of
# bench/scene_suite.h), bench/mitsuba_compare.py --quality REFERENCE (default 1024 paths a pixel,
# rendered by Mitsuba) on its scene at 1 M grains, 1080p, 4 bounces, sun 3.0: both renderers'
# RMS error against the reference at 1, 2, 4, ... 64 paths, and granray's time to reach Mitsuba's
# 64-path error. TESTS=1: this tree's CUDA tests first. Logs in $OUT/quality-SCENE.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
build_and_test "granray-scene granray-render"
use_vendored_mitsuba
for scene in ${SCENES:-dense dilute heap drum pour hopper clusters}; do
  # shellcheck disable=SC2086
  mitsuba_compare "$BUILD/tools/granray-render" "$scene" 1000000 --quality "${REFERENCE:-1024}" \
    ${GLASS:---no-glass} >"$OUT/quality-$scene.txt" 2>&1
  echo "== $scene"
  grep -E "^(reference|time to)|^ +64 " "$OUT/quality-$scene.txt"
done
