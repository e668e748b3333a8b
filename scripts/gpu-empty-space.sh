#!/usr/bin/env bash
# On the GPU machine (carry .deps and .data with before.tar): the walk over empty space
# (GridView::clearance) against the tree before it (.data/before.tar). Builds both for sm_90, runs
# this tree's GPU tests and compute-sanitizer over the grid and render tests, then the scene
# suite at 1 M grains, 1080p, grid method, both trees: primary rays and lit (shadows + 8 AO);
# then the force network's frame in device memory (granray-bench --in-place --contacts 0.2,
# issue #67) unlit and lit, with and without the network (not with CONTACTS=0). Logs in $OUT.
# VARIANT="cmake args" times a third tree: this one built once more with those arguments
# (/tmp/variant).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
export OMP_WAIT_POLICY=passive
source scripts/gpu-build-at.sh
trees=(/tmp/before/build "$BUILD")
build_variant granray-bench
build_both granray-bench granray-scene  # its wait takes the variant's build too
cuda_tests
memcheck_tests 'GridTest.*:RenderTest.BedsWhose*:RenderTest.EveryScene*:ContactsTest.BruteForce*'
suite_scenes
row() {  # BUILD ARGS...
  local b=$1
  shift
  for s in "${scenes[@]}"; do
    "$b/bench/granray-bench" --backend cuda --input "/tmp/suite/$s.xyzr" -r 1920x1080 \
      --method grid "$@" 2>&1 | grep -E '^cuda' | awk -v s="$s" '{print s": "$0}'
  done
}
for b in "${trees[@]}"; do
  echo "== $b: primary"; row "$b" --repeat 10
  echo "== $b: lit"; row "$b" --repeat 10 --shadows --ao 8
done 2>&1 | tee "$OUT/suite-empty-space.txt"
[ "${CONTACTS:-1}" != 0 ] || exit 0  # CONTACTS=0: the suite alone
bench="$BUILD/bench/granray-bench"
for lit in "" "--shadows --ao 8"; do
  for network in "" "--contacts 0.2"; do
    echo "== in place, ${lit:-unlit} ${network:-without the network}"
    # shellcheck disable=SC2086
    "$bench" --backend cuda --in-place -n 1000000 -r 1920x1080 --method grid --repeat 10 \
      $lit $network 2>&1 | grep -v '^backend'
  done
done 2>&1 | tee "$OUT/contacts-in-place.txt"
