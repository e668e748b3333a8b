#!/usr/bin/env bash
# One run on the GPU machine for the Python module: build for sm_90 (the module when the machine's
# python3 has its headers and NumPy), the zero-copy tests (C++ and Python: a CUDA device array
# through __cuda_array_interface__, memcpys recorded with CUPTI), then the Python path's
# per-frame overhead at 1 M grains 1080p. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
{
  command -v python3; python3 --version
  python3 -c "import sysconfig, os; h = sysconfig.get_paths()['include']; print(h, os.path.exists(h + '/Python.h'))"
  python3 -c "import numpy; print('numpy', numpy.__version__)"
  for m in cupy numba torch warp; do python3 -c "import $m; print('$m', $m.__version__)" 2>&1 | tail -1; done
} > "$OUT/python-probe.txt" 2>&1
cat "$OUT/python-probe.txt"

# The module for the python3 on PATH there (the machine's Python environment).
GRANRAY_CMAKE_ARGS="-DPython3_EXECUTABLE=$(command -v python3)"
source scripts/gpu-build.sh
grep -i "python\|pybind" "$BUILD.configure.log" | tee "$OUT/python-configure.txt"

(cd "$BUILD" && ctest --output-on-failure -R "python|ZeroCopy") >"$OUT/gpu-tests.log" 2>&1
grep -E "tests passed|tests failed|Failed|Skipped|Passed|copies" "$OUT/gpu-tests.log" | head -20

if [ -d "$BUILD/python/granray" ]; then
  PYTHONPATH="$BUILD/python" python3 bench/python_overhead.py --backend cuda -n 1000000 \
    -r 1920x1080 --frames 30 \
    --device-array "$BUILD/tests/libgranray_transfer_trace.so" 2>&1 | tee "$OUT/python-overhead.txt"
fi
