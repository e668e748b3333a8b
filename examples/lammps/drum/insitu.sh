#!/usr/bin/env bash
# LAMMPS's own two-species rotating drum (Debian `lammps-examples`, granular/in.pour.drum)
# rendered in situ on LAMMPS's ranks through fix python/invoke: the input as LAMMPS ships it
# plus `include granray.lmp` before its first run. Same picture as run.sh, which renders dumps.
#   examples/lammps/drum/insitu.sh [BUILD_DIR] [WORK_DIR] [RANKS]
# Needs `lmp` (Debian `lammps`), python3-lammps, python3-mpi4py and granray's Python module.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
work=${2:-drum-insitu}
ranks=${3:-1}
input=/usr/share/doc/lammps-examples/examples/granular/in.pour.drum
command -v lmp > /dev/null || { echo "insitu.sh: lmp not found (apt install lammps)" >&2; exit 1; }
[ -r "$input" ] || { echo "insitu.sh: $input not found (apt install lammps-examples)" >&2; exit 1; }
[ -d "$build/python/granray" ] || {
  echo "insitu.sh: no granray Python module in $build/python (see docs/python.md)" >&2; exit 1
}
mkdir -p "$work/frames"
cp "$here/granray.lmp" "$here/drum.toml" "$work/"
cd "$work"
sed -e '0,/^run/s//include granray.lmp\nrun/' "$input" > in.pour.drum
launcher=()
if [ "$ranks" -gt 1 ]; then
  launcher=(mpirun -np "$ranks")
  [ "$(id -u)" -ne 0 ] || launcher+=(--allow-run-as-root)
fi
PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} \
  "${launcher[@]}" lmp -in in.pour.drum -log log.lammps -screen none
echo "frames in $work/frames"
