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
vendor=$(mktemp -d)
tar xJf .pyvendor/mitsuba-cuda-cp312.tar.xz -C "$vendor"
python3 -c "import numpy" 2>/dev/null || python3 -m zipfile -e .pyvendor/numpy-*.whl "$vendor"
export PYTHONPATH="$vendor${PYTHONPATH:+:$PYTHONPATH}"
second() {  # BUILD DIR [NAME]: the second still's frame time; the stills in /tmp/still-NAME-*.png
  "$1/tools/granray-render" --config "$2/scene.toml" "$2/bed.xyzr" "$2/bed.xyzr" \
    --out "/tmp/still-${3:-$(basename "$1")}-*.png" 2>&1 |
    sed -n 's/.*frame \([0-9.]*\) ms.*/\1 ms/p' | tail -1
}
mkdir -p /tmp/mc
for scene in ${SCENES:-pour heap dense hopper}; do
  python3 bench/mitsuba_compare.py --variant cuda_ad_rgb --backend cuda \
    --granray "$BUILD/tools/granray-render" --scene "$scene" --grains 1000000 --size 1920x1080 \
    --samples 64 --bounces 4 --sun 3.0 --out "/tmp/mc/$scene" >"/tmp/mc/$scene.txt" 2>&1
  {
    echo "== Mitsuba, $scene"
    grep -E '^(granray|mitsuba|ratio|images)' "/tmp/mc/$scene.txt"
    for round in $(seq "${ROUNDS:-2}"); do
      for b in /tmp/before/build "$BUILD"; do
        echo "round $round, $scene, $b: $(second "$b" "/tmp/mc/$scene")"
      done
      cmp -s "/tmp/still-build-1.png" "/tmp/still-$(basename "$BUILD")-1.png" &&
        echo "  same image" || echo "  images differ"
      for way in ${WAYS:-}; do
        name=${way%%=*}
        echo "round $round, $scene, $name: $(export "${way#*=}"; second "$BUILD" "/tmp/mc/$scene" "$name")"
        cmp -s "/tmp/still-build-1.png" "/tmp/still-$name-1.png" &&
          echo "  same image" || echo "  images differ"
      done
    done
  } 2>&1 | tee -a "$OUT/scene-still-vs.txt"
done
