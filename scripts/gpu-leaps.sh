#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data with before.tar; nvidia-h200-x2 runs the MPI tests a
# GPU a rank): walks that leap over empty space by the clearance of blocks of cells
# (GridView::clearance) against the tree before it (.data/before.tar). Builds both for sm_90, and
# this tree once more with VARIANT's cmake arguments (/tmp/variant; default: cells sized by the
# occupied volume up to half the box); runs this tree's GPU tests and the MPI tests on GPUs (ctest
# mpi_render_gpu_np2); then the scene suite at 1 M grains, 1080p, grid method (scene, grid build
# ms, cast ms, rays/s, secondary ms): primary rays and lit (shadows + 8 AO) for each tree, metal
# and glass 4 bounces deep and the path-traced still (64 paths, the heap, pour, hopper and dense
# box) for the tree before and this one (BOUNCES=0 leaves those out); with MITSUBA="SCENES" (and
# .pyvendor's mitsuba-cuda-cp312.tar.xz carried, as scripts/gpu-mitsuba.sh says) this tree's
# path-traced still against Mitsuba 3 on those scenes; last compute-sanitizer over the grid and
# render tests. VARIANT=none builds no variant. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
export OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source scripts/gpu-build-at.sh
record_gpu
runs=(before after)
if [ "${VARIANT:-}" != none ]; then
  BUILD_ARGS="${VARIANT:--DCMAKE_CXX_FLAGS=-DGRANRAY_MOST_SHARE_SIZED_BY_OCCUPANCY=0.5}" \
    build . /tmp/variant granray-bench &
  runs+=(variant)
fi
build_both granray-bench granray-scene granray-render  # its wait takes the variant's build too
build . "$BUILD" granray_mpi_tests || exit 1
cuda_tests
(cd "$BUILD" && ctest -R mpi_render_gpu --output-on-failure) >"$OUT/mpi-gpu.log" 2>&1
echo "MPI tests on GPUs: exit $? ($(grep -E "tests passed|tests failed" "$OUT/mpi-gpu.log"))"
suite_scenes
row() {  # BUILD SCENES ARGS...
  local b=$1 list=$2
  shift 2
  for s in $list; do
    "$b/bench/granray-bench" --backend cuda --input "/tmp/suite/$s.xyzr" -r 1920x1080 \
      --method grid "$@" 2>&1 | grep -E '^cuda' | awk -v s="$s" '{print s, $7, $10, $12, $13}'
  done
}
tree() { case $1 in before) echo /tmp/before/build ;; after) echo "$BUILD" ;; *) echo /tmp/variant ;; esac; }
for run in "${runs[@]}"; do
  echo "== $run: primary"; row "$(tree $run)" "${scenes[*]}" --repeat 10
  echo "== $run: lit"; row "$(tree $run)" "${scenes[*]}" --repeat 10 --shadows --ao 8
done 2>&1 | tee "$OUT/suite-leaps.txt"
if [ "${BOUNCES:-1}" != 0 ]; then
  for run in before after; do
    echo "== $run: metal and glass"; row "$(tree $run)" "${scenes[*]}" --repeat 5 --materials --bounces 4
    echo "== $run: path still"; row "$(tree $run)" "dense heap pour hopper" --repeat 3 --materials \
      --bounces 4 --path 64
  done 2>&1 | tee -a "$OUT/suite-leaps.txt"
fi
if [ -n "${MITSUBA:-}" ] && [ -f .pyvendor/mitsuba-cuda-cp312.tar.xz ]; then
  vendor=$(mktemp -d)
  tar xJf .pyvendor/mitsuba-cuda-cp312.tar.xz -C "$vendor"
  python3 -c "import numpy" 2>/dev/null || python3 -m zipfile -e .pyvendor/numpy-*.whl "$vendor"
  for s in $MITSUBA; do
    echo "== $s: the path still against Mitsuba 3"
    PYTHONPATH="$vendor" python3 bench/mitsuba_compare.py --variant cuda_ad_rgb --backend cuda \
      --granray "$BUILD/tools/granray-render" --scene "$s" --grains 1000000 --size 1920x1080 \
      --samples 64 --bounces 4 --sun 3.0 2>&1 | grep -E "^(granray|mitsuba|ratio)"
  done 2>&1 | tee "$OUT/mitsuba-leaps.txt"
fi
memcheck_tests 'GridTest.*:RenderTest.BedsWhose*:RenderTest.EveryScene*:LightingTest.EveryScene*'
