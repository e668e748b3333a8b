#!/usr/bin/env bash
# Fills .deps/ (ignored by git) with the header-only libraries and the font that the GPU machine
# lacks and cannot install: toml++, CLI11, stb_truetype, fmt, pybind11 and DejaVu Sans from this
# machine's Debian packages (scripts/install-deps.sh installs them). The GPU scripts build with
# -DGRANRAY_EXTRA_INCLUDE_DIR=.deps/include when .deps is there; name .deps in the device's carry.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .deps && mkdir -p .deps/include/stb .deps/fonts
cp -r /usr/include/toml++ /usr/include/CLI /usr/include/fmt .deps/include/
cp /usr/include/stb/stb_truetype.h .deps/include/stb/
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf .deps/fonts/
# pybind11 (headers and its CMake package, found relative to .deps) for the Python module.
cp -r /usr/include/pybind11 .deps/include/
mkdir -p .deps/share/cmake && cp -r /usr/lib/cmake/pybind11 .deps/share/cmake/
du -sh .deps
