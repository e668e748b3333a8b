#!/usr/bin/env bash
# LAMMPS's own pour (Debian `lammps-examples`, pour/in.pour: 3,000 grains poured into a chute
# container, then the chute tilted) rendered in situ by granray on LAMMPS's ranks: the input as
# LAMMPS ships it plus `include granray.lmp` before its first run.
#   examples/lammps/pour/run.sh [BUILD_DIR] [WORK_DIR] [RANKS]
# Needs `lmp` (Debian `lammps`, with its PYTHON package), python3-lammps, python3-mpi4py and
# granray's Python module (built into BUILD_DIR/python when python3-dev and pybind11-dev are
# installed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
work=${2:-pour-run}
ranks=${3:-1}
input=/usr/share/doc/lammps-examples/examples/pour/in.pour
command -v lmp > /dev/null || { echo "run.sh: lmp not found (apt install lammps)" >&2; exit 1; }
[ -r "$input" ] || { echo "run.sh: $input not found (apt install lammps-examples)" >&2; exit 1; }
[ -d "$build/python/granray" ] || {
  echo "run.sh: no granray Python module in $build/python (apt install python3-dev pybind11-dev python3-numpy; rebuild)" >&2
  exit 1
}
mkdir -p "$work/frames"
cp "$here/granray.lmp" "$here/pour.toml" "$work/"
cd "$work"
sed -e '0,/^run/s//include granray.lmp\nrun/' "$input" > in.pour
launcher=()
if [ "$ranks" -gt 1 ]; then
  launcher=(mpirun -np "$ranks")
  [ "$(id -u)" -ne 0 ] || launcher+=(--allow-run-as-root)
fi
PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} \
  "${launcher[@]}" lmp -in in.pour -log log.lammps -screen none
echo "frames in $work/frames"
