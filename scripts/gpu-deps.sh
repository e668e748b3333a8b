#!/usr/bin/env bash
# Fills .deps/ (ignored by git) with the header-only libraries and the font that the GPU machine
# lacks and cannot install: toml++, CLI11, stb_truetype, fmt, DLPack and DejaVu Sans from this
# machine's Debian packages (scripts/install-deps.sh installs them), pybind11 from PyPI. The GPU
# scripts build with -DGRANRAY_EXTRA_INCLUDE_DIR=.deps/include when .deps is there; name .deps in the
# device's carry.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .deps && mkdir -p .deps/include/stb .deps/fonts
cp -r /usr/include/toml++ /usr/include/CLI /usr/include/fmt /usr/include/dlpack .deps/include/
cp /usr/include/stb/stb_truetype.h .deps/include/stb/
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf .deps/fonts/
# pybind11's headers for the Python module, from PyPI: the GPU machine's Python (3.12, NumPy 2)
# needs pybind11 2.11 or later, newer than Debian 12's.
tmp=$(mktemp -d)
python3 -m pip download --no-deps --only-binary=:all: pybind11==2.13.6 -d "$tmp" -q
python3 -m zipfile -e "$tmp"/pybind11-*.whl "$tmp/wheel"
cp -r "$tmp/wheel/pybind11/include/pybind11" .deps/include/
rm -rf "$tmp"
du -sh .deps
