#!/usr/bin/env bash
# Compile-time variants of the CUDA backend against each other and the tree a change came from,
# on the GPU machine (carry .deps, and .before as for gpu-bench-vs.sh). VARIANTS: words
# "NAME=-DDEF=V,-DDEF=V" (definitions for kernels/src/cuda_backend.cu; "NAME=" for the file's own
# choices), each built into build-var-NAME in parallel with .before; then ROWS (granray-bench
# arguments after the common ones, ";" between rows) are timed on every build, alternated over
# ROUNDS rounds (default 2). Logs and the table in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
source scripts/gpu-build-at.sh
names=(before)
[ -d "${BEFORE:-.before}" ] && (build "${BEFORE:-.before}" build-var-before granray-bench) &
for v in ${VARIANTS:-default=}; do
  name=${v%%=*} defs=${v#*=}
  names+=("$name")
  (
    [ -n "$defs" ] && extra+=("-DCMAKE_CUDA_FLAGS=${defs//,/ }")
    build . "build-var-$name" granray-bench || echo "variant $name did not build"
  ) &
done
wait
IFS=';' read -ra rows <<<"${ROWS:--n 1000000 --materials --bounces 4}"
for round in $(seq "${ROUNDS:-2}"); do
  for row in "${rows[@]}"; do
    for name in "${names[@]}"; do
      [ -x "build-var-$name/bench/granray-bench" ] || continue
      # shellcheck disable=SC2086  # a row is several arguments
      line=$("build-var-$name/bench/granray-bench" --backend cuda -r 1920x1080 --method grid \
        --repeat 20 $row 2>&1 | tail -n +2 | grep -v '^backend' | tr '\n' ' ')
      echo "round $round | $name | $row | $line"
    done
  done
done | tee "$OUT/defines.txt"
