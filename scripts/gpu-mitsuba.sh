#!/usr/bin/env bash
# Issue 43's bar on the GPU machine: granray's path-traced still against Mitsuba 3's cuda_ad_rgb
# on the same scene in one run (bench/mitsuba_compare.py): 1 M grains, a third each matte, mirror
# and glass, a matte floor, 1920 x 1080, 4 bounces (Mitsuba's max_depth 5), a uniform sky and a
# sun; 64 paths per pixel, then 1; then time to quality (QUALITY=0 skips it): the no-glass scene
# (half matte, half mirror, the one both describe alike) against Mitsuba's 4096-path reference,
# each renderer at 1 to 256 paths. The machine reaches no package index: carry .pyvendor with
# mitsuba-cuda-cp312.tar.xz (Mitsuba 3.9.1 and Dr.Jit 1.5.0 cp312, cut down to the cuda_ad_rgb
# and scalar_rgb variants; scripts/make-pyvendor.sh builds it) and a numpy cp312 wheel. Logs in
# $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
GRANRAY_TARGETS="granray-render" source scripts/gpu-build.sh
vendor=$(mktemp -d)
tar xJf .pyvendor/mitsuba-cuda-cp312.tar.xz -C "$vendor"
python3 -c "import numpy" 2>/dev/null || python3 -m zipfile -e .pyvendor/numpy-*.whl "$vendor"
export PYTHONPATH="$vendor${PYTHONPATH:+:$PYTHONPATH}"
for n in 64 1; do
  python3 bench/mitsuba_compare.py --variant cuda_ad_rgb --backend cuda \
    --granray "$BUILD/tools/granray-render" --grains 1000000 --size 1920x1080 --samples $n \
    --bounces 4 --sun 3.0 --out "$OUT/mitsuba-$n" 2>&1 | tee "$OUT/mitsuba-$n.txt"
done
if [ "${QUALITY:-4096}" != 0 ]; then
  python3 bench/mitsuba_compare.py --variant cuda_ad_rgb --backend cuda \
    --granray "$BUILD/tools/granray-render" --grains 1000000 --size 1920x1080 --samples 256 \
    --bounces 4 --no-glass --quality "${QUALITY:-4096}" 2>&1 | tee "$OUT/mitsuba-quality.txt"
fi
rm -f "$OUT"/mitsuba-*/bed.xyzr
