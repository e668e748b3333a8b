#!/usr/bin/env bash
# What a frame costs the example DEM's time loop on one GPU (issue #6): granray-dem on
# bench/scaling-bed.toml (1 M grains, 1920x1080 every 100 of 1000 steps, PNG + HDF5), once per
# variant below, each a label and environment settings or --set options. Prints per variant the
# frames' cost to the time loop in order, their median after the first, and the DEM's ms/step.
#   bench/dem_frame_cost.sh [BUILD_DIR [granray-dem options for every run]]   (default build-gpu)
# DEM_VARIANTS="default hdf5-only" runs only the variants named; DEM_STEPS=2000 runs longer.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
dem="$build/examples/dem/granray-dem"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
variants=(
  "default|"
  "passive-wait|OMP_WAIT_POLICY=passive"
  "4-threads|OMP_NUM_THREADS=4"
  "all-but-one|OMP_NUM_THREADS=$(($(nproc --all) - 1))"
  "no-output|--set insitu.png=\"\" --set insitu.output=\"\""
  "hdf5-only|--set insitu.png=\"\""
)
for v in "${variants[@]}"; do
  label=${v%%|*} spec=${v#*|}
  [ -n "${DEM_VARIANTS:-}" ] && [[ " $DEM_VARIANTS " != *" $label "* ]] && continue
  envs=() sets=()
  read -r -a words <<<"$spec"
  for w in "${words[@]}"; do
    case $w in --set) ;; *=*\"*) sets+=(--set "${w}") ;; *=*) envs+=("$w") ;; esac
  done
  log="$work/$label.txt"
  env "${envs[@]}" "$dem" bench/scaling-bed.toml --set simulation.steps=${DEM_STEPS:-1000} \
    --set "insitu.png=\"$work/$label-*.png\"" --set "insitu.output=\"$work/$label.h5\"" \
    "${sets[@]}" "${@:2}" >"$log" 2>&1 || { echo "$label: failed"; tail -5 "$log"; continue; }
  frames=$(grep "^frame step" "$log" | grep -oE "frame [0-9.]+ ms" | awk '{ print $2 }' | tr '\n' ' ')
  median=$(grep "^frame step" "$log" | grep -oE "frame [0-9.]+ ms" | awk 'NR > 1 { print $2 }' | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  step=$(grep -oE "DEM [0-9.]+ ms/step" "$log" | tail -1)
  printf "%-13s frames %s| median %s ms | %s\n" "$label" "$frames" "$median" "$step"
done
