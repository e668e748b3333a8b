#!/usr/bin/env bash
# granray's CPU backend against OVITO's Tachyon ray tracer, both lighting the same LIGGGHTS
# packing at 1920x1080 with shadows, 8 ambient-occlusion rays and 4 samples per pixel, on this
# machine. Prints each render's time (the render alone, three times each) and the ratio.
# Needs the Python module ovito (pip install ovito) and a Vulkan loader with a driver (Debian
# libvulkan1 mesa-vulkan-drivers) for OVITO to start; PYTHON names the interpreter that has it.
#   bench/ovito_compare.sh [BUILD_DIR] [DUMP]     (default: build, the packing of the tests)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dump=${2:-../shared/data/liggghts/pour-20k.step10000.liggghts}
python=${PYTHON:-python3}
width=1920 height=1080 ao=8 samples=4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -c "import ovito" 2>/dev/null || { echo "needs OVITO: pip install ovito" >&2; exit 1; }
[ -f "$dump" ] || { echo "no particle file $dump" >&2; exit 1; }
granray=() tachyon=()
for run in 1 2 3; do
  ms=$("$build/tools/granray-render" "$dump" --set width=$width --set height=$height \
    --set shading.shadows=true --set shading.ao_samples=$ao --set shading.samples=$samples \
    --set 'backend="cpu"' --out "$work/granray.png" | grep -oE "frame [0-9.]+ ms" | awk '{print $2}')
  granray+=("$ms")
  s=$("$python" bench/ovito_tachyon.py "$dump" "$work/tachyon.png" $width $height $ao $samples |
    awk '{print $2}')
  tachyon+=("$(awk -v s="$s" 'BEGIN { print s * 1000 }')")
done
best() { printf "%s\n" "$@" | sort -g | head -1; }
g=$(best "${granray[@]}") t=$(best "${tachyon[@]}")
echo "granray ${granray[*]} ms; tachyon ${tachyon[*]} ms"
awk -v g="$g" -v t="$t" 'BEGIN { printf "best: granray %.0f ms, tachyon %.0f ms: granray %.1fx faster\n", g, t, t / g }'
