#!/usr/bin/env bash
# Runs on several GPUs of one host (issues 7 and 37; carry .deps): the example DEM under mpirun,
# one rank per GPU, rendering every 100 steps of bench/scaling-bed.toml, unlit and lit (shadows +
# 8 occlusion rays).
#   weak:   GRAINS_PER_RANK grains per rank ("1000000 4000000": box 0.3 m long per million
#           grains, 2.4 m deep) on 1, 2, 4, ... ranks
#   strong: 8 M grains in all (box 2.4 x 2.4 m) on 1, 2, 4, ... ranks; its lit frames on N ranks
#           are compared byte for byte (cmp) with one rank's
# SIZES picks the images ("1920x1080" by default, "1920x1080 3840x2160" for 4K as well), MODES the
# lighting ("unlit lit"), PARTS what runs ("tests runs composite": the MPI rendering tests on CUDA
# with one rank per GPU, the DEM runs, the compositing bench). With more ranks than GPUs
# (RANKS_PER_GPU=2 adds a run of 2x the GPUs) ranks share GPUs round robin. Each run's log goes to
# $OUT/scaling-logs.tgz, and a table line per run to $OUT/scaling.txt: the medians over the frames
# after the first (slowest rank's grid and ray casting, compositing, hand-over to the writer, the
# frame's whole cost to the time loop, grid + casting of the fastest and slowest rank, the most
# bytes a rank sent), the DEM's ms per step (fastest-slowest rank) and the frame's cost in steps.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
logs=$PWD/$BUILD-scaling-logs  # tarred into $OUT at the end: only a few files come back
rm -rf "$logs" && mkdir -p "$logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
nvidia-smi topo -m >"$OUT/topology.txt" 2>&1
gpus=${GPUS:-$(nvidia-smi -L | wc -l)}
parts=${PARTS:-"tests runs composite"}
has() { [[ " $parts " == *" $1 "* ]]; }
[ -n "${SKIP_BUILD:-}" ] || source scripts/gpu-build.sh

# Compositing runs OpenMP loops: each run shares the machine's cores among its ranks, and idle
# OpenMP threads sleep rather than spin (spinning threads of one rank starved the others' MPI
# progress: 25 ms instead of 10 ms per 1080p frame on 8 ranks). `nproc --all`: plain nproc
# obeys OMP_NUM_THREADS.
cores=$(nproc --all)
export OMP_WAIT_POLICY=passive
threads() { echo $((cores / $1 > 0 ? cores / $1 : 1)); }
mpi=(mpirun --bind-to none --oversubscribe)
most=$((gpus * ${RANKS_PER_GPU:-1}))
echo "$gpus GPUs, $cores cores, OMP_NUM_THREADS = cores / ranks, OMP_WAIT_POLICY=passive"
counts=()
for np in 8 4 2 1; do [ "$np" -le "$most" ] && counts+=("$np"); done
status=0

if has tests; then
  for np in "${counts[@]}"; do
    GRANRAY_MPI_TEST_BACKEND=cuda OMP_NUM_THREADS=$(threads "$np") timeout 300 "${mpi[@]}" \
      -np "$np" "$BUILD/tests/granray_mpi_tests" >"$logs/mpi-tests-cuda-$np.txt" 2>&1 || status=1
    echo "MPI tests on CUDA, $np rank(s) on $gpus GPU(s): $(grep -E "PASSED|FAILED" \
      "$logs/mpi-tests-cuda-$np.txt" | sort -u | tr '\n' ' ')"
  done | tee "$OUT/mpi-tests.txt"
fi

dem="$PWD/$BUILD/examples/dem/granray-dem"
steps=${SCALING_STEPS:-500}
runs="$PWD/$BUILD/scaling"
rm -rf "$runs" && mkdir -p "$runs"

# run NAME RANKS GRAINS BOX_X WIDTH HEIGHT MODE
run() {
  local name=$1 np=$2 grains=$3 box_x=$4 w=$5 h=$6 mode=$7
  local lighting=()
  [ "$mode" = lit ] && lighting=(--set insitu.shading.shadows=true --set insitu.shading.ao_samples=8)
  mkdir -p "$runs/$name"
  OMP_NUM_THREADS=$(threads "$np") timeout "${RUN_TIMEOUT:-150}" "${mpi[@]}" -np "$np" "$dem" \
    bench/scaling-bed.toml --set simulation.particles="$grains" --set simulation.steps="$steps" \
    --set "simulation.box=[$box_x,2.4,0.6]" --set insitu.width="$w" --set insitu.height="$h" \
    "${lighting[@]}" --set "insitu.png=\"$runs/$name/step_*.png\"" \
    --set "insitu.output=\"$runs/$name/frames.h5\"" >"$logs/$name.txt" 2>&1
  local rc=$?
  local median dem_line frame step cost
  median=$(grep -o "median of .*" "$logs/$name.txt" | sed 's/ (slowest rank [0-9]*)//')
  dem_line=$(grep -oE "DEM [0-9.]+(-[0-9.]+)? ms/step( over ranks| \(slowest rank\))" \
    "$logs/$name.txt" | head -1)
  frame=$(grep -oE "frame [0-9.]+ ms" <<<"$median" | grep -oE "[0-9.]+")
  step=$(grep -oE "[0-9.]+ ms/step" <<<"$dem_line" | grep -oE "^[0-9.]+")  # the slowest rank's
  cost=$(awk -v f="${frame:-0}" -v s="${step:-0}" 'BEGIN { if (s > 0) printf "%.1f", f / s; else print "-" }')
  printf "%-24s ranks %d, %9d grains, %dx%d, rc %d: %s; %s; frame = %s DEM steps\n" "$name" \
    "$np" "$grains" "$w" "$h" "$rc" "$median" "$dem_line" "$cost" | tee -a "$OUT/scaling.txt"
}

if has runs; then
  sizes=${SIZES:-1920x1080}
  for mode in ${MODES:-unlit lit}; do
    for size in $sizes; do
      w=${size%x*} h=${size#*x}
      for np in "${counts[@]}"; do
        run "strong-np$np-${h}p-$mode" "$np" 8000000 2.4 "$w" "$h" "$mode"
        for per_rank in ${GRAINS_PER_RANK:-1000000 4000000}; do
          [ $((np * per_rank)) = 8000000 ] && continue  # the strong run's scene
          run "weak$((per_rank / 1000000))M-np$np-${h}p-$mode" "$np" $((np * per_rank)) \
            "$(awk "BEGIN { print 0.3 * $np * $per_rank / 1e6 }")" "$w" "$h" "$mode"
        done
      done
    done
  done
  # The strong runs draw the same grains on every rank count: the same files, byte for byte.
  for dir in "$runs"/strong-np1-*; do
    for np in "${counts[@]}"; do
      [ "$np" = 1 ] && continue
      other=${dir/strong-np1-/strong-np$np-}
      same=0 differ=0
      for f in "$dir"/*.png; do
        if cmp -s "$f" "$other/$(basename "$f")"; then same=$((same + 1)); else differ=$((differ + 1)); fi
      done
      [ "$differ" = 0 ] || status=1
      echo "$(basename "$other") against one rank: $same frames the same, $differ different"
    done
  done | tee -a "$OUT/scaling.txt"
  last=$(ls "$runs/strong-np${counts[0]}-1080p-lit"/*.png 2>/dev/null | tail -1)
  [ -n "$last" ] && cp "$last" "$OUT/scaling-last-lit.png"
fi

# Compositing alone, both methods, on the rank counts of the runs (a dense 1 M bed in x-slabs).
if has composite; then
  for np in "${counts[@]}"; do
    [ "$np" -gt 1 ] || continue
    for method in shared swap; do
      OMP_NUM_THREADS=$(threads "$np") timeout 120 "${mpi[@]}" -np "$np" \
        "$BUILD/bench/granray-composite-bench" --method $method --grains 1000000 1920x1080
    done
  done 2>&1 | tee "$OUT/composite.txt"
fi

tar czf "$OUT/scaling-logs.tgz" -C "$logs" .
exit $status
