#!/usr/bin/env bash
# The README's main command: install what is missing, build, and run the example DEM, which
# renders its pour in situ into PNG frames: on the GPU with 100,000 grains when one is present,
# else on the CPU with 4,000 grains (about 1.5 minutes on 2 cores). Frames land in out/demo/frames/
# and out/demo/frames.h5.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
cmake --preset default >/dev/null
cmake --build --preset default
root=$(pwd)
input=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  input="$root/examples/dem/pour-gpu.toml"
fi
rm -rf out/demo/frames out/demo/frames.h5  # a fresh demo, not an append to the last one
mkdir -p out/demo
cd out/demo
"$root/build/examples/dem/granray-dem" $input "$@"
echo "granray demo: frames in $root/out/demo/frames/ and $root/out/demo/frames.h5"
