#!/usr/bin/env bash
# The CPU and MPI tests under AddressSanitizer + UndefinedBehaviorSanitizer (the `asan` preset),
# as CI runs them after the ordinary tests. `scripts/sanitize.sh tsan` runs the writer-thread,
# in-situ and shared-memory tests under ThreadSanitizer instead (the `tsan` preset).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-asan}
# The asan preset builds with clang, which --fuzz installs with its OpenMP and sanitizer runtimes.
case "$preset" in asan) scripts/install-deps.sh --fuzz ;; *) scripts/install-deps.sh ;; esac
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset"
