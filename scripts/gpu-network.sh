#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data with before.tar): the force network (issue #67) against
# the tree before it (.data/before.tar). Builds both for sm_90, runs this tree's GPU tests and
# compute-sanitizer over the contact tests, then times the network's frame in device memory
# (granray-bench --in-place --contacts 0.2: 1 M grains, their ~3 M near-contacts, 1080p) unlit and
# lit, both trees alternated twice, and each tree's lit frame without the network; then the example
# DEM's network pour on the GPU on 1 and 2 ranks (the GPU shared), whose frames must be the same
# bytes (DEM=0 skips it: two minutes). NCU=1 also times each kernel of one lit frame with the
# network (ncu, $OUT/ncu-network.csv). MEMCHECK sets the sanitizer's gtest filter (default: the
# contact tests); MPI=1 also runs the MPI tests on GPUs (ctest mpi_render_gpu_np2, a GPU a rank on
# nvidia-h200-x2). VARIANT (cmake arguments) also builds this tree with them into /tmp/variant and
# times it in each round beside the other two. TIMING=0 builds and tests this tree alone (no tree
# before, no timing, no ncu); MEMCHECK=none skips the sanitizer; STEPS sets the pour's length
# (default 20000, a frame every quarter); TESTS=0 builds and runs no tests (timing alone). WAYS
# ("NAME=VAR=VALUE[,VAR=VALUE...] ...") also times this tree under those environment settings in
# each round (EVERY_TREE=1: every tree under them, the tree before too); BEFORE=0 builds and
# times no tree before (with WAYS: one tree, several settings); LIT=1 times the lit frame alone.
# On the bench's lattice the walks' speed depends on where the capsules' grid's cells fall, so two
# trees are best compared over several GRANRAY_CAPSULE_GRID_SHIFT ways, every tree under each.
# Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
export OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source scripts/gpu-build-at.sh
# Each tree's frames, with and without the network, the trees alternated twice; NCU=1 also times
# each kernel of one lit frame with the network.
time_network() {
  frame() {  # BUILD ARGS...
    local b=$1
    shift
    # shellcheck disable=SC2068
    "$b/bench/granray-bench" --backend cuda --in-place -n 1000000 -r 1920x1080 --method grid \
      --repeat 10 $@ 2>&1 | grep -v '^backend'
  }
  # Each way timed: a build and its environment settings ("-": none).
  local ways=() way b settings
  for b in "${trees[@]}"; do ways+=("$b|-"); done
  for way in ${WAYS:-}; do
    if [ "${EVERY_TREE:-0}" = 1 ]; then
      for b in "${trees[@]}"; do ways+=("$b|${way#*=}"); done
    else
      ways+=("$BUILD|${way#*=}")
    fi
  done
  for b in "${trees[@]}"; do
    [ "$b" = /tmp/variant ] && continue
    echo "== $b: lit, without the network"
    frame "$b" --shadows --ao 8
  done 2>&1 | tee "$OUT/network.txt"
  for round in 1 2; do
    for way in "${ways[@]}"; do
      b=${way%%|*} settings=${way#*|}
      echo "== $b ($settings), round $round: unlit, then lit, with the network"
      (
        [ "$settings" = - ] || export ${settings//,/ }
        [ "${LIT:-0}" = 1 ] || frame "$b" --contacts 0.2
        frame "$b" --shadows --ao 8 --contacts 0.2
      )
    done
  done 2>&1 | tee -a "$OUT/network.txt"
  if [ "${NCU:-0}" = 1 ]; then
    ncu --metrics gpu__time_duration.sum --csv "$BUILD/bench/granray-bench" --backend cuda \
      --in-place -n 1000000 -r 1920x1080 --method grid --repeat 1 --shadows --ao 8 \
      --contacts 0.2 >"$OUT/ncu-network.csv" 2>"$OUT/ncu-network.err" || tail -3 "$OUT/ncu-network.err"
  fi
}
if [ "${TIMING:-1}" = 0 ]; then
  record_gpu
  build . "$BUILD" granray_gpu_tests granray-dem || exit 1
  cuda_tests
else
  trees=(/tmp/before/build "$BUILD")
  build_variant granray-bench
  if [ "${BEFORE:-1}" = 0 ]; then
    trees=("$BUILD" "${trees[@]:2}")
    tests=(granray_gpu_tests)
    [ "${TESTS:-1}" = 0 ] && tests=()
    build . "$BUILD" "${tests[@]}" granray-bench granray-dem || exit 1
    wait
  else
    build_both granray-bench granray-dem  # its wait takes the variant's build too
  fi
  [ "${TESTS:-1}" = 0 ] || cuda_tests
  time_network
fi
if [ "${MPI:-0}" = 1 ]; then
  build . "$BUILD" granray_mpi_tests &&
    (cd "$BUILD" && ctest -R mpi_render_gpu --output-on-failure) >"$OUT/mpi-gpu.log" 2>&1
  echo "MPI tests on GPUs: exit $? ($(grep -E "tests passed|tests failed" "$OUT/mpi-gpu.log"))"
fi
[ "${MEMCHECK:-}" = none ] || [ "${TESTS:-1}" = 0 ] || memcheck_tests "${MEMCHECK:-ContactsTest.*:CudaInput.DeviceResidentPairs*}"
[ "${DEM:-1}" != 0 ] || exit 0
# The example DEM's own network in situ, on the GPU, on 1 and 2 ranks.
dem="$PWD/$BUILD/examples/dem/granray-dem"
mkdir -p /tmp/dem-network && cd /tmp/dem-network && rm -rf one two
for np in 1 2; do
  dir=$([ $np = 1 ] && echo one || echo two)
  mkdir -p $dir
  mpirun --bind-to none --oversubscribe -np $np "$dem" "$OLDPWD/examples/dem/pour-network.toml" \
    --set simulation.steps="${STEPS:-20000}" --set insitu.every=$((${STEPS:-20000} / 4)) \
    --set 'simulation.backend="cuda"' \
    --set 'insitu.backend="cuda"' --set "insitu.png=\"$dir/net_*.png\"" 2>&1 |
    tee "$OUT/dem-network-np$np.txt" | grep -v "^frame" | tail -4
done
same=0
for f in one/net_*.png; do
  cmp -s "$f" "two/$(basename "$f")" && same=$((same + 1)) || echo "differs: $(basename "$f")"
done
echo "network frames identical on 1 and 2 ranks: $same of $(ls one/net_*.png | wc -l)" |
  tee -a "$OUT/dem-network-np2.txt"
cp "$(ls two/net_*.png | tail -1)" "$OUT/network-two-ranks.png" 2>/dev/null
