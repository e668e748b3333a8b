#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data with before.tar; nvidia-h200-x2 runs the MPI tests a
# GPU a rank): walks that leap over empty space by the cells' clearance (GridView::clearance)
# against the tree before it (.data/before.tar). Builds both for sm_90, and this tree once more
# with the device's other walks leaping too (GRANRAY_DEVICE_WALKS_LEAP=1, /tmp/variant); runs this
# tree's GPU tests and the MPI tests on GPUs (ctest mpi_render_gpu_np2); then the scene suite at
# 1 M grains, 1080p, grid method: primary rays and lit (shadows + 8 AO), the tree before and this
# one alternated twice, then the variant; metal and glass 4 bounces deep, the tree before and the
# variant (BOUNCES=0 leaves that row out); last compute-sanitizer over the grid and render tests.
# Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
export OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source scripts/gpu-build-at.sh
record_gpu
BUILD_ARGS="-DCMAKE_CUDA_FLAGS=-DGRANRAY_DEVICE_WALKS_LEAP=1" build . /tmp/variant granray-bench &
build_both granray-bench granray-scene  # its wait takes the variant's build too
build . "$BUILD" granray_mpi_tests || exit 1
cuda_tests
(cd "$BUILD" && ctest -R mpi_render_gpu --output-on-failure) >"$OUT/mpi-gpu.log" 2>&1
echo "MPI tests on GPUs: exit $? ($(grep -E "tests passed|tests failed" "$OUT/mpi-gpu.log"))"
mkdir -p /tmp/suite
scenes=(dense dilute heap drum pour hopper clusters)
for s in "${scenes[@]}"; do
  "$BUILD/bench/granray-scene" "$s" "${GRAINS:-1000000}" 1 >"/tmp/suite/$s.xyzr" &
done
wait
row() {  # BUILD ARGS...
  local b=$1
  shift
  for s in "${scenes[@]}"; do
    "$b/bench/granray-bench" --backend cuda --input "/tmp/suite/$s.xyzr" -r 1920x1080 \
      --method grid "$@" 2>&1 | grep -E '^cuda' | awk -v s="$s" '{print s": "$0}'
  done
}
for run in before after before after variant; do
  case $run in before) b=/tmp/before/build ;; after) b=$BUILD ;; variant) b=/tmp/variant ;; esac
  echo "== $run ($b): primary"; row "$b" --repeat 10
  echo "== $run ($b): lit"; row "$b" --repeat 10 --shadows --ao 8
done 2>&1 | tee "$OUT/suite-leaps.txt"
if [ "${BOUNCES:-1}" != 0 ]; then
  for run in before variant; do
    b=$([ $run = before ] && echo /tmp/before/build || echo /tmp/variant)
    echo "== $run ($b): metal and glass"; row "$b" --repeat 5 --materials --bounces 4
  done 2>&1 | tee -a "$OUT/suite-leaps.txt"
fi
memcheck_tests 'GridTest.*:RenderTest.BedsWhose*:RenderTest.EveryScene*:LightingTest.EveryScene*'
