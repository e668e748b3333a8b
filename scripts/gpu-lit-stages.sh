#!/usr/bin/env bash
# Where a lit frame across ranks spends its time (issue #36), on the GPU machine (carry .deps):
# builds (unless SKIP_BUILD=1), runs the GPU tests and the MPI rendering tests on CUDA (2 ranks)
# unless SKIP_TESTS=1, then runs the example DEM with 2 M grains of bench/scaling-bed.toml at
# 1920x1080, unlit and lit (shadows + 8 occlusion rays), on 1 and 2 ranks of GPU 0 through MPS
# (RANKS="1 2 4" for more), with GRANRAY_STAGE_TIMES=1: each rank prints its lit frame's stages,
# and the script prints their medians over the frames after the first. MODES="unlit lit lit-host
# lit" alternates the ways (lit-host: GRANRAY_HALO=host, the halos in messages). Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
[ "${SKIP_BUILD:-0}" = 1 ] || source scripts/gpu-build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
cores=$(nproc --all)
mpi=(mpirun --bind-to none --oversubscribe ${EXTRA_MPI:-})
dem="$PWD/$BUILD/examples/dem/granray-dem"
work=$(mktemp -d)
export CUDA_MPS_PIPE_DIRECTORY=$work/mps-pipe CUDA_MPS_LOG_DIRECTORY=$work/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
{
  nvidia-smi --query-gpu=name --format=csv,noheader | head -1
  if [ "${SKIP_TESTS:-0}" != 1 ]; then
    (cd "$BUILD" && ctest -L gpu -R '^cuda[.]' -j 4) >"$OUT/gpu-tests.log" 2>&1
    echo "GPU tests: $(grep -E "tests passed" "$OUT/gpu-tests.log")"
    grep -E "^\s+[0-9]+ - .*Failed" "$OUT/gpu-tests.log" | head
    GRANRAY_MPI_TEST_BACKEND=cuda OMP_NUM_THREADS=$((cores / 2)) timeout 300 "${mpi[@]}" -np 2 \
      "$BUILD/tests/granray_mpi_tests" --gtest_filter='MpiRender.*' >"$OUT/mpi-cuda-2.log" 2>&1
    echo "MPI rendering tests on CUDA, 2 ranks: exit $? ($(grep -E "PASSED|FAILED" "$OUT/mpi-cuda-2.log" | head -2 | tr '\n' ' '))"
  fi
  nvidia-cuda-mps-control -d || echo "MPS did not start"
  for np in ${RANKS:-1 2}; do
    for run in ${MODES:-unlit lit}; do
      mode=${run%%-*}
      halo=()
      [[ $run == *-host ]] && halo=(-x GRANRAY_HALO=host)
      lighting=()
      [ $mode = lit ] && lighting=(--set insitu.shading.shadows=true --set insitu.shading.ao_samples=8)
      k=$((${k:-0} + 1))
      log="$OUT/stages-$np-$run-$k.txt"
      GRANRAY_STAGE_TIMES=1 OMP_NUM_THREADS=$((cores / np)) timeout 200 "${mpi[@]}" \
        -x GRANRAY_STAGE_TIMES "${halo[@]}" -np $np "$dem" bench/scaling-bed.toml \
        --set simulation.particles=2000000 --set 'simulation.box=[0.6,2.4,0.6]' \
        --set simulation.steps=${STEPS:-600} --set 'insitu.png=""' --set 'insitu.output=""' \
        ${EXTRA_SETS:-} "${lighting[@]}" >"$log" 2>&1
      echo "$np rank(s), $run: $(grep -o "median of .*" "$log" | head -1) | $(grep -oE "DEM [0-9.]+(-[0-9.]+)? ms/step" "$log" | head -1)"
      python3 - "$log" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"granray: lit stages, rank (\d+) \(ms\): (.*)", line)
    if not m: continue
    for name, ms in re.findall(r"\[?([a-z ]+?) ([0-9.]+)\]?", m.group(2)):
        rows.setdefault((int(m.group(1)), name.strip()), []).append(float(ms))
for (rank, name), values in sorted(rows.items(), key=lambda kv: kv[0][0]):
    later = values[1:] or values
    print(f"  rank {rank} {name:28s} median {statistics.median(later):7.3f} ms over {len(later)}")
PY
    done
  done
  echo quit | nvidia-cuda-mps-control
} 2>&1 | tee "$OUT/lit-stages.txt"
rm -rf "$work"
