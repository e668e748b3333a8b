#!/usr/bin/env bash
# Sourced first by the GPU-machine scripts, from the repository root: where logs go ($OUT, or
# ./out) and where the build lives ($BUILD, or build-gpu).
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
