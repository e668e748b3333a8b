#!/usr/bin/env bash
# The scaling runs of issue 7 on one machine with several GPUs (kind nvidia-h200-x4 or -x8): the
# example DEM under mpirun, one rank per GPU, rendering 1920x1080 and 3840x2160 frames every 100
# steps of bench/scaling-bed.toml.
#   weak:   1 M grains per rank (box 0.3 m long per rank, 2.4 m deep) on 1, 2, 4, ... ranks
#   strong: 8 M grains in all (box 2.4 x 2.4 m) on 1, 2, 4, ... ranks
# With more ranks than GPUs (RANKS_PER_GPU=2 adds a run of 2x the GPUs) ranks share GPUs round
# robin. Each run's log goes to $OUT/scaling-logs.tgz, and a table line per run to $OUT/scaling.txt:
# the medians over the frames after the first (slowest rank's grid build and ray casting,
# compositing, hand-over to the writer, the frame's whole cost to the time loop, the fastest and
# slowest rank's grid + casting) and the DEM's ms per step (fastest-slowest rank).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
logs=$PWD/$BUILD-scaling-logs  # tarred into $OUT at the end: only a few files come back
rm -rf "$logs" && mkdir -p "$logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
nvidia-smi topo -m >"$OUT/topology.txt" 2>&1
gpus=${GPUS:-$(nvidia-smi -L | wc -l)}
[ -n "${SKIP_BUILD:-}" ] || source scripts/gpu-build.sh

# Compositing runs OpenMP loops: each run shares the machine's cores among its ranks, and idle
# OpenMP threads sleep rather than spin (spinning threads of one rank starved the others' MPI
# progress: 25 ms instead of 10 ms per 1080p frame on 8 ranks). `nproc --all`: plain nproc
# obeys OMP_NUM_THREADS.
cores=$(nproc --all)
export OMP_WAIT_POLICY=passive
threads() { echo $((cores / $1 > 0 ? cores / $1 : 1)); }
most=$((gpus * ${RANKS_PER_GPU:-1}))
echo "$gpus GPUs, $cores cores, OMP_NUM_THREADS = cores / ranks, OMP_WAIT_POLICY=passive"
dem="$PWD/$BUILD/examples/dem/granray-dem"
steps=${SCALING_STEPS:-500}
runs="$PWD/$BUILD/scaling"
rm -rf "$runs" && mkdir -p "$runs"

# run NAME RANKS GRAINS BOX_X WIDTH HEIGHT
run() {
  local name=$1 np=$2 grains=$3 box_x=$4 w=$5 h=$6
  mkdir -p "$runs/$name"
  OMP_NUM_THREADS=$(threads "$np") timeout ${RUN_TIMEOUT:-150} mpirun --bind-to none --oversubscribe -np "$np" "$dem" \
    bench/scaling-bed.toml --set simulation.particles="$grains" --set simulation.steps="$steps" \
    --set "simulation.box=[$box_x,2.4,0.6]" --set insitu.width="$w" --set insitu.height="$h" \
    --set "insitu.png=\"$runs/$name/step_*.png\"" --set "insitu.output=\"$runs/$name/frames.h5\"" \
    >"$logs/$name.txt" 2>&1
  local rc=$?
  local median dem_line
  median=$(grep -o "median of .*" "$logs/$name.txt" | sed 's/ (slowest rank [0-9]*)//')
  dem_line=$(grep -oE "DEM [0-9.]+(-[0-9.]+)? ms/step( over ranks| \(slowest rank\))" \
    "$logs/$name.txt" | head -1)
  printf "%-18s ranks %d, %9d grains, %dx%d, rc %d: %s; %s\n" "$name" "$np" "$grains" "$w" "$h" \
    "$rc" "$median" "$dem_line" | tee -a "$OUT/scaling.txt"
}

per_rank=${GRAINS_PER_RANK:-1000000}  # fewer (a thinner bed) for a dry run on a workstation
counts=()
for np in 8 4 2 1; do [ "$np" -le "$most" ] && counts+=("$np"); done
for np in "${counts[@]}"; do
  for size in 1920x1080 3840x2160; do
    w=${size%x*} h=${size#*x}
    run "weak-np$np-${h}p" "$np" $((np * per_rank)) "$(awk "BEGIN { print 0.3 * $np }")" "$w" "$h"
    [ "$np" = 8 ] && continue  # 8 M on 8 ranks is the weak run's scene
    run "strong-np$np-${h}p" "$np" $((8 * per_rank)) 2.4 "$w" "$h"
  done
done
# Compositing alone, both methods, on the rank counts of the runs (a dense 1 M bed in x-slabs).
for np in "${counts[@]}"; do
  [ "$np" -gt 1 ] || continue
  for method in shared swap; do
    OMP_NUM_THREADS=$(threads "$np") timeout 120 mpirun --bind-to none --oversubscribe -np "$np" \
      "$BUILD/bench/granray-composite-bench" --method $method --grains 1000000 1920x1080 3840x2160
  done
done 2>&1 | tee "$OUT/composite.txt"
cp "$runs/weak-np${counts[0]}-1080p/step_$(printf %08d "$steps").png" "$OUT/scaling-last.png" \
  2>/dev/null

tar czf "$OUT/scaling-logs.tgz" -C "$logs" .
status=0
if [ -z "${SKIP_TESTS:-}" ]; then
  (cd "$BUILD" && timeout ${TEST_TIMEOUT:-240} ctest --output-on-failure -j 8) >"$OUT/tests.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$OUT/tests.log" | head -20
fi
exit $status
