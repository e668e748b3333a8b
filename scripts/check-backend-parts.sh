#!/usr/bin/env bash
# Each part of the backend (kernels/src/backend/*.inl) compiles on its own, after only the CPU
# backend's memory and executor (kernels/src/cpu_executor.h): a part that uses something it does
# not include fails here, whatever order thrust_backend.inl includes the parts in. Syntax and
# templates only (-fsyntax-only), with the CPU backend's flags.
#   scripts/check-backend-parts.sh [PART.inl ...]      (default: every part)
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${CXX:-c++}
# Thrust as the build found it (THRUST_INCLUDE, set by the test), else where CUDA or Debian put it.
cccl=${THRUST_INCLUDE:-$(for d in /usr/local/cuda/include/cccl /usr/local/cuda/include /usr/include; do
  [ -f "$d/thrust/version.h" ] && echo "$d" && break; done)}
if [ -z "$cccl" ]; then
  echo "check-backend-parts.sh: Thrust not found (install libthrust-dev or the CUDA toolkit)" >&2
  exit 2
fi
parts=("$@")
[ ${#parts[@]} -gt 0 ] || mapfile -t parts < <(cd kernels/src/backend && ls ./*.inl | sed 's|^./||')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for part in "${parts[@]}"; do
  printf '#include "cpu_executor.h"\n#define GRANRAY_BACKEND_NAMESPACE cpu_backend\n#include "backend/%s"\n' \
    "$part" > "$work/part.cpp"
  if "$cxx" -std=c++17 -fopenmp -fsyntax-only -DFMT_HEADER_ONLY \
      -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP -Ikernels/include -Ikernels/src \
      -Ikernels/internal -isystem "$cccl" -isystem /usr/include/stb "$work/part.cpp" \
      2> "$work/errors.txt"; then
    echo "alone   $part"
  else
    echo "NEEDS   $part: $(grep -m1 -E 'error' "$work/errors.txt")"
    status=1
  fi
done
exit $status
