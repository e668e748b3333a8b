#!/usr/bin/env bash
# Does a long in-situ run stay flat? granray-dem with 200 grains, a 64x48 lit image, PNG + HDF5,
# a frame every step, for 1,000 and for 10,000 frames (the issue's case): peak RSS of each and
# their ratio, then how long the 10,000-frame HDF5 file takes to open and list (h5ls) and to
# read its last frame (h5dump of one hyperslab).
#   bench/long_run.sh [BUILD_DIR] [FRAMES_SHORT FRAMES_LONG]   (default build, 1000 10000)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
short=${2:-1000}
long=${3:-10000}
dem="$build/examples/dem/granray-dem"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

peak_kib() {  # runs granray-dem for $1 steps (a frame each), prints its peak RSS in KiB
  rm -rf "$work/f" "$work/f.h5"
  /usr/bin/time -f "%M" -o "$work/rss" "$dem" examples/dem/pour.toml \
    --set simulation.particles=200 --set "simulation.steps=$1" --set insitu.every=1 \
    --set insitu.width=64 --set insitu.height=48 --set "insitu.png=\"$work/f/s_*.png\"" \
    --set "insitu.output=\"$work/f.h5\"" >"$work/log" 2>&1 ||
    { echo "granray-dem failed:" >&2; tail -5 "$work/log" >&2; exit 1; }
  grep -E "written" "$work/log" | tail -1 >&2
  cat "$work/rss"
}

a=$(peak_kib "$short")
b=$(peak_kib "$long")
echo "peak RSS: $short frames $a KiB, $long frames $b KiB ($(awk -v a="$a" -v b="$b" \
  'BEGIN { printf "%+.1f%%", 100 * (b - a) / a }'))"
frames=$(h5ls "$work/f.h5/frames/rgb" | grep -oE "\{[0-9]+" | tr -d '{')
t0=$(date +%s.%N)
h5ls -r "$work/f.h5" >/dev/null
t1=$(date +%s.%N)
h5dump -d /frames/rgb -s "$((frames - 1)),0,0,0" -c "1,48,64,3" "$work/f.h5" >/dev/null
t2=$(date +%s.%N)
echo "HDF5 file of $frames frames, $(du -k "$work/f.h5" | cut -f1) KiB: h5ls -r $(awk -v a="$t0" \
  -v b="$t1" 'BEGIN { printf "%.0f", 1e3 * (b - a) }') ms, last frame read $(awk -v a="$t1" \
  -v b="$t2" 'BEGIN { printf "%.0f", 1e3 * (b - a) }') ms"
