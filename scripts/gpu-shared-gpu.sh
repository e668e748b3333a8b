#!/usr/bin/env bash
# Ranks sharing one GPU (issue 36; run after a build, e.g. by scripts/gpu-scaling.sh): the example
# DEM with 2 M grains of bench/scaling-bed.toml, 1920x1080 unlit and lit (shadows + 8 occlusion
# rays), on 1, 2 and 4 ranks of GPU 0, first as separate CUDA contexts (the driver time-slices
# them), then through the CUDA Multi-Process Service (MPS), whose one context runs the ranks'
# kernels side by side. The MPS daemon is started for this user under /tmp and stopped at the end;
# no setting of the GPU changes. Prints one line per run: the frame medians and DEM ms/step.
# MPS_MODES="off" runs the plain contexts alone. COMPOSITE_WAYS="gpu host" also runs each
# several-rank frame with its images composited on the host (GRANRAY_COMPOSITE=host) beside the
# default, in GPU memory; STEPS sets the DEM's steps (600).
# Each line: MPS mode, ranks, lighting, compositing way, then the frame medians and DEM ms/step.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
export CUDA_VISIBLE_DEVICES=0
cores=$(nproc --all)
dem="$PWD/$BUILD/examples/dem/granray-dem"
work=$(mktemp -d)
export CUDA_MPS_PIPE_DIRECTORY=$work/mps-pipe CUDA_MPS_LOG_DIRECTORY=$work/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
{
  for mps in ${MPS_MODES:-off on}; do
    if [ $mps = on ]; then
      command -v nvidia-cuda-mps-control >/dev/null || { echo "no nvidia-cuda-mps-control"; break; }
      nvidia-cuda-mps-control -d || { echo "MPS did not start"; break; }
    fi
    for np in 1 2 4; do
      for mode in unlit lit; do
        ways=${COMPOSITE_WAYS:-gpu}
        [ $np = 1 ] && ways=gpu
        for way in $ways; do
          lighting=()
          [ $mode = lit ] && lighting=(--set insitu.shading.shadows=true --set insitu.shading.ao_samples=8)
          log="$work/dem-$mps-$np-$mode-$way.txt"
          composite=()
          [ $way = host ] && composite=(-x GRANRAY_COMPOSITE=host)
          OMP_NUM_THREADS=$((cores / np)) timeout 200 mpirun --bind-to none --oversubscribe \
            "${composite[@]}" -np $np "$dem" bench/scaling-bed.toml \
            --set simulation.particles=2000000 --set 'simulation.box=[0.6,2.4,0.6]' \
            --set simulation.steps=${STEPS:-600} --set 'insitu.png=""' --set 'insitu.output=""' \
            "${lighting[@]}" >"$log" 2>&1
          printf "MPS %-3s %d rank(s) on one GPU, %-5s, composite %-4s: %s | %s\n" $mps $np $mode \
            $way "$(grep -o "median of .*" "$log" | head -1)" \
            "$(grep -oE "DEM [0-9.]+(-[0-9.]+)? ms/step" "$log" | head -1)"
        done
      done
    done
    [ $mps = on ] && echo quit | nvidia-cuda-mps-control
  done
} 2>&1 | tee "$OUT/shared-gpu.txt"
rm -rf "$work"
