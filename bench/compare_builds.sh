#!/usr/bin/env bash
# Before/after on one GPU: the same benchmark scenes rendered by two builds, alternated twice
# (OLD NEW OLD NEW), so that drift of the machine shows as a difference between rounds, not
# between builds. Prints the benchmark rows of each run under its label.
#   bench/compare_builds.sh OLD_BUILD NEW_BUILD [BACKEND]   (default backend cuda)
set -uo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 backend=${3:-cuda}
pour=.data/liggghts/pour-20k.step10000.liggghts
run() {
  local bench="$1/bench/granray-bench"
  "$bench" --backend "$backend" -n 100000 1000000 10000000 -r 1920x1080 3840x2160 --repeat 5
  "$bench" --backend "$backend" --polydispersity 0.5 -n 1000000 10000000 -r 1920x1080 --repeat 5
  "$bench" --backend "$backend" --scene dilute -n 100000 1000000 10000000 -r 1920x1080 --repeat 5
  [ -f "$pour" ] && "$bench" --backend "$backend" --input "$pour" -r 1920x1080 --repeat 5
}
for round in 1 2; do
  for build in "$old" "$new"; do
    echo "== $build, round $round"
    run "$build" 2>&1 | grep -v "^backend"
  done
done
