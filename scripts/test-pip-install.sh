#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment, then the installed granray renders a frame of
# random NumPy particles, which must equal granray-render's of the same particles when
# GRANRAY_RENDER names one (the ctest test python.pip_install gives the build tree's). Exit 77 (a skip, saying why) when pip
# cannot fetch the build requirements (no network to PyPI) or there is no venv module.
#   scripts/test-pip-install.sh [PYTHON]   (default python3)
set -uo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$python" -m venv "$work/venv" > "$work/venv.log" 2>&1; then
  echo "test-pip-install: skipped: $python has no venv module"; exit 77
fi
if ! "$work/venv/bin/python" -m pip download -q --no-deps -d "$work/probe" scikit-build-core \
  > /dev/null 2>&1; then
  echo "test-pip-install: skipped: PyPI cannot be reached for the build requirements"; exit 77
fi
# The CPU backend only, unoptimized: the test checks the packaging, and nvcc or -O3 (the CPU
# backend's one translation unit: 30 s at -O0, nearly 5 minutes at -O3) would multiply the build
# time. The pixels are the same: without -ffast-math or FMA, g++ rounds alike at every -O level.
if ! "$work/venv/bin/python" -m pip install -q . -C cmake.define.GRANRAY_ENABLE_CUDA=OFF \
  -C cmake.build-type=Debug -C build-dir="$work/build" > "$work/pip.log" 2>&1; then
  tail -30 "$work/pip.log"; echo "test-pip-install: pip install . failed"; exit 1
fi
cd "$work"
"$work/venv/bin/python" - <<'PY'
import numpy as np, granray, os, sys
assert os.path.dirname(granray.__file__).startswith(sys.prefix), granray.__file__
rng = np.random.default_rng()
xyzr = np.ascontiguousarray(np.c_[rng.uniform(-1, 1, (300, 3)), rng.uniform(0.05, 0.1, 300)]
                            .astype(np.float32))
vis = granray.Renderer({"every": 1, "width": 64, "height": 48, "backend": "cpu",
                        "png": "installed_*.png"})
vis.render(0, 0.0, xyzr)
vis.finish()
installed = granray.read_png("installed_00000000.png")
render = os.environ.get("GRANRAY_RENDER")
if render:
    import subprocess
    np.savetxt("particles.xyzr", xyzr.astype(np.float64), fmt="%.17g")
    subprocess.run([render, "particles.xyzr", "--set", "width=64", "--set", "height=48",
                    "--set", 'backend="cpu"', "--out", "tool.ppm"], check=True,
                   capture_output=True)
    data = open("tool.ppm", "rb").read()
    fields = data.split(maxsplit=4)  # P6, width, height, max, pixels
    tool = np.frombuffer(fields[4], np.uint8).reshape(int(fields[2]), int(fields[1]), 3)
    assert np.array_equal(installed, tool), "the installed module's frame differs from granray-render's"
print("test-pip-install: granray", granray.__file__, "renders", installed.shape)
PY
