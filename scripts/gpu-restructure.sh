#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data): a restructured tree against the tree it came from
# (.data/before.tar, `git archive -o .data/before.tar COMMIT`). Builds both, runs this tree's GPU
# tests and compute-sanitizer over the region, band and grid tests, the MPI rendering tests on
# CUDA (2 and 4 ranks sharing the GPU), compares both builds' images byte for byte on the GPU
# (scripts/compare-build-images.sh), then times 1 M dense grains at 1080p unlit and lit, the
# LIGGGHTS packing, a poster in bands and the composite, both builds alternated twice (not with
# BENCH=0). Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
source scripts/gpu-build-at.sh
targets=(granray-render granray-dem granray-bench granray-synthetic-bed granray-composite-bench)
build_before "${targets[@]}"
build . "$BUILD" granray_gpu_tests granray_mpi_tests "${targets[@]}" || exit 1
wait
old=/tmp/before/build new=$BUILD
pour=.data/liggghts/pour-20k.step10000.liggghts

cuda_tests
memcheck_tests 'RegionTest.*:GridTest.*:RenderTest.*:CudaInput.Clumps*:ContactsTest.BruteForce*:ContactsTest.Broken*'
for np in 2 4; do
  log="$OUT/mpi-cuda-$np.log"
  GRANRAY_MPI_TEST_BACKEND=cuda OMP_NUM_THREADS=$(($(nproc) / np)) timeout 240 \
    mpirun --bind-to none --oversubscribe -np $np "$BUILD/tests/granray_mpi_tests" \
    --gtest_filter='MpiRender.*' >"$log" 2>&1
  echo "MPI rendering tests, cuda, $np ranks: exit $? ($(grep -E "PASSED|FAILED" "$log" | head -2 | tr '\n' ' '))"
done

scripts/compare-build-images.sh "$old" "$new" "$pour" cuda 2>&1 | tee "$OUT/images.txt"

[ "${BENCH:-1}" != 0 ] || exit 0  # BENCH=0: the checks only
"$new/examples/granray-synthetic-bed" 1000000 3 > /tmp/bed-1m.xyzr
poster() {  # BUILD: 16000 x 9000 of 1 M grains in bands of a 256 MiB budget
  local start end
  start=$(date +%s%N)
  "$1/tools/granray-render" /tmp/bed-1m.xyzr --out /tmp/poster.png --set width=16000 \
    --set height=9000 --set tile_memory=256 --set compression=0 > /tmp/poster.log
  end=$(date +%s%N)
  echo "poster 16000x9000, 1 M grains, bands of 256 MiB: $(((end - start) / 1000000)) ms ($(grep -o '[0-9]* bands' /tmp/poster.log))"
}
{
  for round in 1 2; do
    for b in "$old" "$new"; do
      bench="$b/bench/granray-bench"
      echo "== $b, round $round"
      "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 20 | grep -v '^backend'
      "$bench" --backend cuda -n 1000000 -r 1920x1080 --method grid --repeat 10 --shadows \
        --ao 8 --samples 4 | grep -v '^backend'
      "$bench" --backend cuda --input "$pour" -r 1920x1080 --repeat 20 | grep -v '^backend'
      mpirun -np 2 "$b/bench/granray-composite-bench" 1920x1080 2>&1 | tail -3
      poster "$b"
    done
  done
} >"$OUT/bench-restructure.txt" 2>&1
cat "$OUT/bench-restructure.txt"
