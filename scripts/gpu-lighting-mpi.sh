#!/usr/bin/env bash
# What lighting costs across ranks (contract 2a): the example DEM on 1 and 2 GPUs (1 M grains per
# GPU, 1920x1080 every 100 steps, no files) unlit and lit (shadows + 8 AO rays), and
# granray-render of the LIGGGHTS packing on 1 and 4 CPU ranks, unlit and lit. Run after
# scripts/gpu-lighting.sh has built $BUILD, or with BUILD_FIRST=1. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
[ -n "${BUILD_FIRST:-}" ] && source scripts/gpu-build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
cores=$(nproc --all)
gpus=$(nvidia-smi -L | wc -l)
dem="$PWD/$BUILD/examples/dem/granray-dem"
lit=(--set insitu.shading.shadows=true --set insitu.shading.ao_samples=8)
work=$(mktemp -d)
{
  for np in 1 2; do
    [ "$np" -le "$gpus" ] || continue
    for mode in unlit lit; do
      extra=()
      [ $mode = lit ] && extra=("${lit[@]}")
      OMP_NUM_THREADS=$((cores / np)) timeout 200 mpirun --bind-to none -np $np "$dem" \
        bench/scaling-bed.toml --set simulation.particles=$((np * 1000000)) \
        --set "simulation.box=[$(awk -v n=$np 'BEGIN { print 0.3 * n }'),2.4,0.6]" \
        --set simulation.steps=1000 --set 'insitu.png=""' --set 'insitu.output=""' \
        "${extra[@]}" >"$work/dem-$np-$mode.txt" 2>&1
      printf "DEM %d GPU(s) %-5s: %s | %s\n" $np $mode \
        "$(grep -o "median of .*" "$work/dem-$np-$mode.txt" | head -1)" \
        "$(grep -oE "DEM [0-9.]+(-[0-9.]+)? ms/step" "$work/dem-$np-$mode.txt" | head -1)"
    done
  done
  # The lit pour (examples/dem/pour-gpu.toml lights its frames) on 1 and 2 GPUs: the DEM is
  # bit-identical on any rank count, so the frames must be the same files.
  if [ "$gpus" -ge 2 ]; then
    for np in 1 2; do
      mkdir -p "$work/pour-$np"
      OMP_NUM_THREADS=$((cores / np)) timeout 200 mpirun --bind-to none -np $np "$dem" \
        examples/dem/pour-gpu.toml --set simulation.steps=3000 --set insitu.every=1000 \
        --set "insitu.png=\"$work/pour-$np/step_*.png\"" --set 'insitu.output=""' \
        >"$work/pour-$np.txt" 2>&1
      echo "lit pour on $np GPU(s): $(grep -c '^frame step' "$work/pour-$np.txt") frames, $(tail -1 "$work/pour-$np.txt")"
    done
    same=0 differ=0
    for f in "$work"/pour-1/*.png; do
      if cmp -s "$f" "$work/pour-2/$(basename "$f")"; then same=$((same + 1)); else differ=$((differ + 1)); fi
    done
    echo "lit pour frames, 1 GPU against 2: $same the same, $differ different"
    cp "$work/pour-2/step_00003000.png" "$OUT/lit-pour-2gpu.png" 2>/dev/null
  fi
  dump=.data/liggghts/pour-20k.step10000.liggghts
  if [ -f "$dump" ]; then
    for np in 1 4; do
      for mode in unlit lit; do
        extra=()
        [ $mode = lit ] && extra=(--set shading.shadows=true --set shading.ao_samples=8)
        for run in 1 2 3; do
          OMP_NUM_THREADS=$((16 / np)) mpirun --bind-to none -np $np \
            "$BUILD/tools/granray-render" "$dump" --set width=1920 --set height=1080 \
            --set 'backend="cpu"' "${extra[@]}" --out "$work/render.png" 2>&1 | tail -1
        done | sed "s/^/render cpu $np rank(s) $mode: /"
      done
    done
  fi
} 2>&1 | tee "$OUT/lighting-mpi.txt"
cp "$work"/dem-2-lit.txt "$OUT/dem-2-lit.log" 2>/dev/null
rm -rf "$work"
