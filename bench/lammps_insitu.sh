#!/usr/bin/env bash
# What in-situ frames cost a LAMMPS run: Debian's pour (pour/in.pour, 3,000 grains, its first
# 25,000 steps) with no images, with granray through fix python/invoke (plain, and lit: shadows,
# 8 AO rays, 4 samples), and with LAMMPS's own `dump image`, all every 1000 steps at 960x720 PNG.
#   bench/lammps_insitu.sh [BUILD_DIR] [RANKS]
# Prints LAMMPS's loop time and steps per second for each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
ranks=${2:-1}
input=/usr/share/doc/lammps-examples/examples/pour/in.pour
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
head="$(sed -e '/^unfix/,$d' "$input")"
cat > plain.toml <<'TOML'
[insitu]
every = 1000
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
granray_lines() {
  printf 'python granray_frame here """\nimport granray.lammps\ngranray_frame = granray.lammps.Frames("%s")\n"""\nfix granray all python/invoke 1000 end_of_step granray_frame\n' "$1"
}
declare -A extra
extra[none]=""
extra[granray-plain]="$(granray_lines plain.toml)"
extra[granray-lit]="$(granray_lines lit.toml)"
extra[dump-image]="dump img all image 1000 frames/d_*.png type type size 960 720 view 70 25"
launcher=()
[ "$ranks" -gt 1 ] && launcher=(mpirun -np "$ranks" --oversubscribe)
[ "$ranks" -gt 1 ] && [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
printf '%-14s %10s %12s %8s\n' variant "loop s" "steps/s" frames
for variant in none granray-plain granray-lit dump-image; do
  rm -rf frames && mkdir frames
  printf '%s\n' "${head//$'\n'run/$'\n'${extra[$variant]}$'\n'run}" > in.$variant
  PYTHONPATH="$build/python" OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} \
    "${launcher[@]}" lmp -in in.$variant -log log.$variant -screen none
  loop=$(awk '/^Loop time/ {print $4}' log.$variant)
  printf '%-14s %10.2f %12.1f %8d\n' "$variant" "$loop" "$(echo "25000 / $loop" | bc -l)" \
    "$(ls frames | wc -l)"
done
