#!/usr/bin/env bash
# On the GPU machine (carry .deps, .data with before.tar, and .pyvendor): the path still on
# bench/mitsuba_compare.py's scene (floor, sky, point sun; a third each matte, mirror, glass) for
# this tree against the tree before (.data/before.tar), 1 M grains, 1080p, 64 paths, 4 bounces.
# This tree's CUDA tests first (TESTS=0 skips them); then for each of SCENES (default "pour heap
# dense hopper") the script once against Mitsuba 3 (cuda_ad_rgb) with this tree, and each tree's
# still of the scene it wrote, rendered twice in one process (the second timed), the trees
# alternated ROUNDS times (default 2), with whether their images are the same bytes. WAYS (default
# none) adds this tree run under other settings, each NAME=VAR=VALUE (e.g.
# "pixel=GRANRAY_PATH_PASS=pixel"), in the same rounds. REUSE=1 keeps the tree before as an
# earlier call on a warm machine built it. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
build_both granray-scene granray-render
rm -f "$OUT"/*.configure.log "$OUT"/*.build.log  # built: a few files come back from the machine
[ "${TESTS:-1}" = 0 ] || cuda_tests
use_vendored_mitsuba
mkdir -p /tmp/mc
for scene in ${SCENES:-pour heap dense hopper}; do
  mitsuba_scene "$BUILD/tools/granray-render" "$scene" "/tmp/mc/$scene"
  {
    echo "== Mitsuba, $scene"
    grep -E '^(granray|mitsuba|ratio|images)' "/tmp/mc/$scene.txt"
    for round in $(seq "${ROUNDS:-2}"); do
      for b in /tmp/before/build "$BUILD"; do
        echo "round $round, $scene, $b: $(second_still "$b/tools/granray-render" "/tmp/mc/$scene" "$(basename "$b")")"
      done
      cmp -s "/tmp/still-build-1.png" "/tmp/still-$(basename "$BUILD")-1.png" &&
        echo "  same image" || echo "  images differ"
      for way in ${WAYS:-}; do
        name=${way%%=*}
        echo "round $round, $scene, $name: $(export "${way#*=}"; second_still "$BUILD/tools/granray-render" "/tmp/mc/$scene" "$name")"
        cmp -s "/tmp/still-build-1.png" "/tmp/still-$name-1.png" &&
          echo "  same image" || echo "  images differ"
      done
    done
  } 2>&1 | tee -a "$OUT/scene-still-vs.txt"
done
