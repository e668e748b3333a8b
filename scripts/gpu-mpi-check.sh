#!/usr/bin/env bash
# One run on a GPU machine with 2 or more GPUs (kind nvidia-h200-x2): build as gpu-check.sh does,
# run every test, then under mpirun with one GPU per rank: compositing timings on 1 and 2 ranks,
# and the example DEM's GPU pour on 1 and 2 ranks (the frames must be the same bytes).
# Logs go to $OUT (or ./out).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
gpus=$(nvidia-smi -L | wc -l)

source scripts/gpu-build.sh
status=0
(cd "$BUILD" && ctest --output-on-failure -j 8) >"$OUT/tests.log" 2>&1 || status=1
grep -E "tests passed|tests failed|\(Failed\)" "$OUT/tests.log" | head -20

mpi="mpirun --bind-to none --oversubscribe"
# Compositing runs OpenMP loops on each rank's CPU cores: share them between the ranks.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(($(nproc) / 2 > 1 ? $(nproc) / 4 : 1))}
echo "OMP_NUM_THREADS=$OMP_NUM_THREADS per rank"
{
  echo "== compositing (synthetic images, then a dense bed rendered in x-slabs, one GPU per rank)"
  for np in 1 2; do
    [ "$np" -le "$gpus" ] || continue
    $mpi -np $np "$BUILD/bench/granray-composite-bench" --grains 1000000 1920x1080 3840x2160
    $mpi -np $np "$BUILD/bench/granray-composite-bench" --grains 10000000 1920x1080
  done
  echo "== compositing on the CPU backend, 1-4 ranks"
  for np in 1 2 3 4; do
    $mpi -np $np "$BUILD/bench/granray-composite-bench" --grains 1000000 \
      --backend cpu 1920x1080 3840x2160
  done
} 2>&1 | tee "$OUT/composite.txt"

# The GPU pour (100k grains, 1920x1080 frames) on one GPU and on 2 ranks with one GPU each.
dem="$PWD/$BUILD/examples/dem/granray-dem"
steps=${GPU_DEMO_STEPS:-20000}
mkdir -p "$BUILD/dem-mpi" && cd "$BUILD/dem-mpi" && rm -rf one two
for np in 1 2; do
  dir=$([ $np = 1 ] && echo one || echo two)
  mkdir -p $dir
  $mpi -np $np "$dem" "$OLDPWD/examples/dem/pour-gpu.toml" --set simulation.steps=$steps \
    --set insitu.every=5000 --set "insitu.png=\"$dir/step_*.png\"" \
    --set "insitu.output=\"$dir/frames.h5\"" 2>&1 | tee "$OUT/dem-np$np.txt" | grep -v "^frame"
  grep "^frame" "$OUT/dem-np$np.txt" | tail -2
done
same=0
for f in one/step_*.png; do
  cmp -s "$f" "two/$(basename "$f")" && same=$((same + 1)) || echo "differs: $(basename "$f")"
done
echo "frames identical on 1 and 2 GPUs: $same of $(ls one/step_*.png | wc -l)" | tee -a "$OUT/dem-np2.txt"
cp two/step_$(printf %08d $steps).png "$OUT/two-gpu-last.png" 2>/dev/null
h5dump -d /frames/rank_particles -d /frames/rank_render_ms two/frames.h5 >"$OUT/h5-ranks.txt" 2>&1
exit $status
