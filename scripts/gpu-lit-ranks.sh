#!/usr/bin/env bash
# Lit frames across ranks by halo (issue #36) on the GPU machine (carry .deps and .data):
# builds, runs the GPU tests and the MPI rendering tests on CUDA (every rank on the one GPU, 1 to
# 4 ranks), compares the example DEM's lit pour on 1, 2 and 4 ranks byte for byte, then times
# lit frames across ranks (gathered, by halo, as the sizes decide) with granray-composite-bench
# and the example DEM on the bed of bench/scaling-bed.toml, and granray-render of the LIGGGHTS
# packing on CPU ranks. Logs go to $OUT; a summary is printed last.
# GRANRAY_PARTS="tests compare small bench dem cpu big" picks parts (all by default).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
parts=${GRANRAY_PARTS:-"tests compare small bench dem cpu big"}
has() { [[ " $parts " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
cores=$(nproc --all)
mpi=(mpirun --bind-to none --oversubscribe)
work=$(mktemp -d)
{
  if has tests; then
    (cd "$BUILD" && ctest -L gpu -R '^cuda[.]' -j 4) >"$OUT/gpu-tests.log" 2>&1
    echo "GPU tests: $(grep -E "tests passed" "$OUT/gpu-tests.log")"
    for np in 1 2 3 4; do
      GRANRAY_MPI_TEST_BACKEND=cuda OMP_NUM_THREADS=$((cores / np)) timeout 300 "${mpi[@]}" \
        -np $np "$BUILD/tests/granray_mpi_tests" --gtest_filter='MpiRender.*' \
        >"$OUT/mpi-cuda-$np.log" 2>&1
      echo "MPI rendering tests on CUDA, $np rank(s): exit $? ($(grep -E "PASSED|FAILED" "$OUT/mpi-cuda-$np.log" | head -2 | tr '\n' ' '))"
    done
  fi
  dem="$PWD/$BUILD/examples/dem/granray-dem"
  if has compare; then
    # The lit pour (examples/dem/pour-gpu.toml lights its frames): the same files on any rank count.
    for np in 1 2 4; do
      mkdir -p "$work/pour-$np"
      OMP_NUM_THREADS=$((cores / np)) timeout 200 "${mpi[@]}" -np $np "$dem" \
        examples/dem/pour-gpu.toml --set simulation.steps=3000 --set insitu.every=1000 \
        --set "insitu.png=\"$work/pour-$np/step_*.png\"" --set 'insitu.output=""' \
        >"$work/pour-$np.txt" 2>&1
      echo "lit pour on $np rank(s): $(ls "$work/pour-$np" | wc -l) frames; $(grep -o "per frame, median.*" "$work/pour-$np.txt")"
    done
    for np in 2 4; do
      same=0 differ=0
      for f in "$work"/pour-1/*.png; do
        if cmp -s "$f" "$work/pour-$np/$(basename "$f")"; then same=$((same + 1)); else differ=$((differ + 1)); fi
      done
      echo "lit pour frames, 1 rank against $np: $same the same, $differ different"
    done
  fi
  bench="$BUILD/bench/granray-composite-bench"
  if has small; then
    # Where gathering pays: small beds on 2 ranks, both ways; and an antialiased lit frame.
    for grains in 20000 200000 1000000; do
      for way in gather halo; do
        OMP_NUM_THREADS=$((cores / 2)) timeout 120 "${mpi[@]}" -np 2 "$bench" --no-synthetic \
          --grains $grains --backend cuda --lit --lit-way $way 1920x1080 2>&1 | tail -1
      done
    done
    OMP_NUM_THREADS=$((cores / 2)) timeout 200 "${mpi[@]}" -np 2 "$dem" bench/scaling-bed.toml \
      --set simulation.particles=2000000 --set 'simulation.box=[0.6,2.4,0.6]' \
      --set simulation.steps=600 --set 'insitu.png=""' --set 'insitu.output=""' \
      --set insitu.shading.shadows=true --set insitu.shading.ao_samples=8 \
      --set insitu.shading.samples=4 >"$work/dem-aa.txt" 2>&1
    echo "DEM 2 M grains, 2 ranks, lit with 4 samples: $(grep -o "median of .*" "$work/dem-aa.txt" | head -1)"
  fi
  if has bench; then
    for grains in 2000000 8000000; do
      for np in 1 2 4; do
        ways="halo"
        [ $np -gt 1 ] && ways="gather halo auto"
        OMP_NUM_THREADS=$((cores / np)) timeout 120 "${mpi[@]}" -np $np "$bench" --no-synthetic \
          --grains $grains --backend cuda 1920x1080 2>&1 | tail -1
        for way in $ways; do
          OMP_NUM_THREADS=$((cores / np)) timeout 120 "${mpi[@]}" -np $np "$bench" --no-synthetic \
            --grains $grains --backend cuda --lit --lit-way $way 1920x1080 2>&1 | tail -1
        done
      done
    done
  fi
  if has dem; then
    # The example DEM's time loop (2 M grains, x-slabs per rank), unlit and lit.
    MPS_MODES=off bash scripts/gpu-shared-gpu.sh
  fi
  dump=.data/liggghts/pour-20k.step10000.liggghts
  if has cpu && [ -f "$dump" ]; then
    for np in 1 2 4; do
      for run in 1 2; do
        OMP_NUM_THREADS=$((16 / np)) timeout 120 "${mpi[@]}" -np $np \
          "$BUILD/tools/granray-render" "$dump" --set width=1920 --set height=1080 \
          --set 'backend="cpu"' --set shading.shadows=true --set shading.ao_samples=8 \
          --out "$work/render.png" 2>&1 | tail -1
      done | sed "s/^/granray-render, packing, cpu, $np rank(s), lit: /"
    done
  fi
  if has big; then
    # Beyond the old gather limit: 64 M grains on 4 ranks of the one GPU, unlit and lit.
    for lit in "" "--lit --lit-way auto"; do
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=4 timeout 240 "${mpi[@]}" -np 4 "$bench" --no-synthetic --grains 64000000 \
        --backend cuda $lit 1920x1080 2>&1 | tail -1
    done
  fi
} 2>&1 | tee "$OUT/lit-ranks.txt"
rm -rf "$work"
