#!/usr/bin/env bash
# A pile of 3,000 grains poured by LAMMPS (Debian `lammps`, GRANULAR; in.pile, written here after
# LAMMPS's pour example) dumped with its contacts every 5,000 steps, and the strong force network
# through the sliced-open pile rendered by granray-render --contacts (network.toml).
#   examples/lammps/network/run.sh [BUILD_DIR] [WORK_DIR] [STEPS]   (STEPS: 60000, the settled pile)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
work=${2:-pile-run}
steps=${3:-60000}
for need in lmp "$build/tools/granray-render"; do
  command -v "$need" > /dev/null || { echo "run.sh: $need not found (apt install lammps; build granray)" >&2; exit 1; }
done
mkdir -p "$work/dump" "$work/frames"
cd "$work"
lmp -in "$here/in.pile" -var steps "$steps" -log log.lammps -screen none
"$build/tools/granray-render" --config "$here/network.toml" --contacts 'dump/pile.*.local' \
  --contact-columns "patom1 patom2 force" dump/pile.*.dump --out 'frames/pile_*.png'
echo "frames in $work/frames"
