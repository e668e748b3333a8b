#!/usr/bin/env bash
# LAMMPS's own two-species rotating drum (Debian `lammps-examples`, granular/in.pour.drum: 2,000
# cohesive and 2,000 non-cohesive grains poured into a cylinder that then turns), dumped every
# 250 steps and rendered by granray-render with one colour per atom type, outlines and the drum
# as a see-through wall (drum.toml).
#   examples/lammps/drum/run.sh [BUILD_DIR] [WORK_DIR]
# Needs `lmp` (Debian `lammps`) and the input file of `lammps-examples`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
work=${2:-drum-run}
input=/usr/share/doc/lammps-examples/examples/granular/in.pour.drum
for need in lmp "$build/tools/granray-render"; do
  command -v "$need" > /dev/null || { echo "run.sh: $need not found (apt install lammps lammps-examples; build granray)" >&2; exit 1; }
done
[ -r "$input" ] || { echo "run.sh: $input not found (apt install lammps-examples)" >&2; exit 1; }
mkdir -p "$work/dump" "$work/frames"
cd "$work"
# The input as LAMMPS ships it, with its commented dump line switched on: id, type, radius,
# position and velocity every 250 steps.
sed -e 's|^#dump .*|dump 1 all custom 250 dump/drum.*.dump id type radius x y z vx vy vz|' \
  "$input" > in.pour.drum
lmp -in in.pour.drum -log log.lammps -screen none
"$build/tools/granray-render" --config "$here/drum.toml" dump/drum.*.dump --out 'frames/drum_*.png'
echo "frames in $work/frames"
