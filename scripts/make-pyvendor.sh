#!/usr/bin/env bash
# Builds .pyvendor for scripts/gpu-mitsuba.sh on a machine that reaches PyPI (the GPU machine
# reaches none): Mitsuba 3.9.1 and Dr.Jit 1.5.0 cp312 wheels cut down to the cuda_ad_rgb and
# scalar_rgb variants (no headers, CMake files, stubs, tests or sun-sky tables) as
# .pyvendor/mitsuba-cuda-cp312.tar.xz (about 33 MB), and a numpy cp312 wheel beside it. Carry
# .pyvendor with .deps and .data (together under the device's 64 MiB).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 \
  mitsuba==3.9.1 drjit==1.5.0 numpy -d "$work/wheels"
mkdir -p "$work/tree" .pyvendor
for wheel in "$work"/wheels/mitsuba-*.whl "$work"/wheels/drjit-*.whl; do
  python3 -m zipfile -e "$wheel" "$work/tree"
done
for module in "$work"/tree/mitsuba/*_ad_*.cpython-312*.so "$work"/tree/mitsuba/scalar_*.cpython-312*.so; do
  case "$module" in
    *cuda_ad_rgb.* | *scalar_rgb.*) ;;
    *) rm -f "$module" ;;
  esac
done
rm -rf "$work"/tree/mitsuba/{include,cmake,pkgconfig,mitsuba_stubs,python/test,data/sunsky} \
  "$work"/tree/drjit/{include,cmake}
tar cJf .pyvendor/mitsuba-cuda-cp312.tar.xz -C "$work/tree" .
cp "$work"/wheels/numpy-*.whl .pyvendor/
ls -l .pyvendor
