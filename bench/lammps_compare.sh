#!/usr/bin/env bash
# granray's CPU backend against LAMMPS `dump image` (Debian package lammps, program lmp), both
# rendering the same LIGGGHTS packing at the same size on this machine. Prints both times and
# the ratio, for one snapshot and for ten (whole process against whole process). The packing is ../shared/data/liggghts/pour-20k.step10000.liggghts when present,
# else it is made here with the Debian liggghts package and bench/in.pour (about 4 minutes).
#   bench/lammps_compare.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
width=1920 height=1080 repeats=3 snapshots=10
command -v lmp >/dev/null || { echo "needs LAMMPS: apt-get install lammps" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dump="$root/../shared/data/liggghts/pour-20k.step10000.liggghts"
if [ ! -f "$dump" ]; then
  command -v liggghts >/dev/null || { echo "needs LIGGGHTS: apt-get install liggghts" >&2; exit 1; }
  (cd "$work" && mkdir -p post && liggghts -in "$root/bench/in.pour" >liggghts.log)
  dump=$(ls "$work"/post/dump*.liggghts | tail -1)
fi

# Ten snapshots (issue #21): the packing under ten timesteps, as dumps for granray-render and as
# LAMMPS data files (atom_style sphere: id type diameter density x y z) for `lmp`.
for i in $(seq 1 $snapshots); do
  awk -v step=$((i * 1000)) 'NR == 2 { print step; next } { print }' "$dump" >"$work/pour.$i.liggghts"
done
awk -v out="$work/pour.data" '
  /^ITEM: NUMBER OF ATOMS/ { getline; n = $1 }
  /^ITEM: BOX BOUNDS/ { for (a = 0; a < 3; ++a) { getline; lo[a] = $1; hi[a] = $2 } }
  /^ITEM: ATOMS/ {
    for (c = 3; c <= NF; ++c) col[$c] = c - 2
    printf "LAMMPS data from a LIGGGHTS dump\n\n%d atoms\n1 atom types\n\n", n > out
    printf "%g %g xlo xhi\n%g %g ylo yhi\n%g %g zlo zhi\n\nAtoms # sphere\n\n", lo[0], hi[0], lo[1], hi[1], lo[2], hi[2] > out
    for (k = 0; k < n; ++k) {
      getline
      printf "%d 1 %.9g 2500 %.9g %.9g %.9g\n", $col["id"], 2 * $col["radius"], $col["x"], $col["y"], $col["z"] > out
    }
  }' "$dump"
for i in $(seq 1 $snapshots); do cp "$work/pour.data" "$work/pour.$i.data"; done

setup="units si
atom_style sphere
boundary f f f"
image="type diameter size $width $height view 60 30 zoom 1.0"
# One snapshot: reading alone, then reading and one image.
printf '%s\nread_data %s\n' "$setup" "$work/pour.data" >"$work/read.in"
printf '%s\nread_data %s\nwrite_dump all image %s %s\n' "$setup" "$work/pour.data" "$work/lammps.ppm" "$image" >"$work/render.in"
# Ten snapshots, each read and drawn, as granray-render does.
cat >"$work/ten.in" <<IN
variable i loop $snapshots
label next_snapshot
clear
$setup
read_data $work/pour.\${i}.data
write_dump all image $work/lammps.\${i}.ppm $image
next i
jump SELF next_snapshot
IN
# One snapshot read once and drawn ten times: LAMMPS's rendering alone, without its reader.
{
  printf '%s\nread_data %s\n' "$setup" "$work/pour.data"
  for i in $(seq 1 $snapshots); do echo "write_dump all image $work/lammps.once.$i.ppm $image"; done
} >"$work/ten-once.in"

# Wall seconds of a command; the best of $repeats runs.
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }
best() { for _ in $(seq $repeats); do "$@"; done | sort -g | head -1; }

lmp_read=$(best seconds lmp -in "$work/read.in" -log none)
lmp_total=$(best seconds lmp -in "$work/render.in" -log none)
lmp_render=$(awk -v a="$lmp_total" -v b="$lmp_read" 'BEGIN { print a - b }')
lmp_ten=$(best seconds lmp -in "$work/ten.in" -log none)
lmp_ten_once=$(best seconds lmp -in "$work/ten-once.in" -log none)
ls "$work"/lammps.$snapshots.ppm "$work"/lammps.once.$snapshots.ppm >/dev/null

gr=("$root/$build/tools/granray-render" --set "width=$width" --set "height=$height" --set 'backend="cpu"')
gr_total=$(best seconds "${gr[@]}" "$work/pour.1.liggghts" --out "$work/granray.ppm")
gr_frame=$("${gr[@]}" "$work/pour.1.liggghts" --out "$work/granray.ppm" |
  sed -n 's/.*backend, [a-z ]* \([0-9.]*\) ms, render \([0-9.]*\) ms.*/\1 \2/p' | awk '{ print $1 + $2 }')
gr_ten=$(best seconds "${gr[@]}" "$work"/pour.*.liggghts --out "$work/granray.*.ppm")
ls "$work/granray.$((snapshots * 1000)).ppm" >/dev/null

printf 'LIGGGHTS packing %s, %dx%d, %s cores, PPM images\n' "$(basename "$dump")" "$width" "$height" "$(nproc)"
printf 'LAMMPS dump image: %.3f s (process %.3f s, of which reading the data %.3f s)\n' "$lmp_render" "$lmp_total" "$lmp_read"
awk -v f="$gr_frame" -v t="$gr_total" -v lr="$lmp_render" -v lt="$lmp_total" 'BEGIN {
  printf "granray (cpu):     %.3f s lists + ray casting (process %.3f s, reading included)\n", f / 1000, t
  printf "ratio (LAMMPS image / granray frame): %.1fx; whole processes: %.1fx\n", lr * 1000 / f, lt / t
}'
awk -v n="$snapshots" -v g="$gr_ten" -v l="$lmp_ten" -v o="$lmp_ten_once" 'BEGIN {
  printf "%d snapshots, whole processes: LAMMPS %.3f s reading and drawing each (%.3f s reading one, drawing it %d times), granray-render %.3f s\n", n, l, o, n, g
  printf "ratio over %d snapshots: %.1fx (against LAMMPS drawing one snapshot %d times: %.1fx)\n", n, l / g, n, o / g
}'
