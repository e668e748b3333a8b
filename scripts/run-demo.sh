#!/usr/bin/env bash
# The README's main command: install what is missing, build, and render a synthetic sediment bed
# (on the GPU when one is present, else on the CPU) into out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
cmake --preset default >/dev/null
cmake --build --preset default
mkdir -p out/demo
build/examples/granray-synthetic-bed 200000 >out/demo/bed.xyzr
build/tools/granray-render --set width=1920 --set height=1080 --set camera.theta=65 \
  --set camera.phi=-60 out/demo/bed.xyzr --out out/demo/bed.png
echo "granray demo: wrote $(pwd)/out/demo/bed.png"
