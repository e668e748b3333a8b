#!/usr/bin/env bash
# A change's GPU speed against the tree it came from, on the GPU machine (carry .deps and the
# earlier tree as .before: `git archive REV | tar -x -C .before`). Builds granray-bench from both
# trees and the GPU tests from this one, runs the GPU tests, then alternates the two benchmarks
# over ROUNDS rounds (default 2) on issue 39's rows: primary rays over 1 M and 10 M dense grains,
# shadows + 8 occlusion rays over 1 M, metal and glass 4 bounces deep, 1920 x 1080, grid method,
# medians of 20 frames (ALL_ROWS=1: more, below). Builds both trees at once. Logs go to $OUT; the
# rows are printed.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
before=${BEFORE:-.before}
rounds=${ROUNDS:-2}
build "$before" build-before granray-bench &
first=$!
build . build-after granray-bench granray_gpu_tests || exit 1
wait "$first" || exit 1
(cd build-after && ctest -L gpu -R '^cuda[.]' -j 4) >"$OUT/gpu_tests.log" 2>&1
grep -E "tests passed|tests failed|Failed" "$OUT/gpu_tests.log" | head -20
common=(--backend cuda -r 1920x1080 --method grid --repeat 20)
rows=("-n 1000000 10000000" "-n 1000000 --shadows --ao 8" "-n 1000000 --materials --bounces 4")
# ALL_ROWS=1 adds the lit 10 M bed, the 100,000-triangle cylinder, unlit and lit, and the
# path-traced still (16 paths, 4 bounces).
[ -n "${ALL_ROWS:-}" ] && rows+=("-n 10000000 --shadows --ao 8" "-n 1000000 --cylinder-wall 25001"
  "-n 1000000 --cylinder-wall 25001 --shadows --ao 8"
  "-n 1000000 --materials --bounces 4 --path 16")
# ROWS="row;row": these rows instead (each the arguments after the common ones).
[ -n "${ROWS:-}" ] && IFS=';' read -ra rows <<<"$ROWS"
for round in $(seq "$rounds"); do
  for tree in before after; do
    for row in "${rows[@]}"; do
      echo "round $round, $tree: $row"
      # shellcheck disable=SC2086  # a row is several arguments
      build-$tree/bench/granray-bench "${common[@]}" $row 2>&1 | tail -n +2 | grep -v '^backend'
    done
  done
done 2>&1 | tee "$OUT/speed-vs.txt"
