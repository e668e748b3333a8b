#!/usr/bin/env bash
# Renders the same frames with two builds and compares them byte for byte (cmp): a LIGGGHTS
# packing (unlit and lit, at a size where the CPU takes the tiles and one where it takes the grid,
# a see-through box, a clip plane, metal and glass, the path-traced still, two ranks) and
# the example DEM's pour. For changes that must not alter any image.
#   scripts/compare-build-images.sh OLD_BUILD NEW_BUILD [DUMP] [BACKEND]   (default backend cpu)
# DUMP defaults to bench/in.pour's packing when LIGGGHTS made it, else a generated bed.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1") new=$(realpath "$2") dump=${3:-} backend=${4:-cpu}
work=$(mktemp -d)
# Where a build keeps libgranray and libgranray_mpi (kernels/ in builds before the layers had
# libraries of their own, insitu/ and insitu/mpi/ since).
libs() { echo "$1/insitu:$1/insitu/mpi:$1/kernels"; }
trap 'rm -rf "$work"' EXIT
if [ -z "$dump" ]; then
  dump=$work/bed.xyzr
  LD_LIBRARY_PATH="$(libs "$new")" "$new/examples/granray-synthetic-bed" 20000 7 > "$dump"
fi
# The materials of cases 7 and 8: the small grains steel, the large glass (radii 0.6-1 mm in the
# generated bed; a packing's are close).
materials='{name="steel",type="metal",reflectance=0.8,roughness=0.3,field="radius",range=[0,0.0008]},'
materials+='{name="glass",type="glass",ior=1.5,field="radius",range=[0.0008,1]}'
# Each case: the --set overrides of one render (TOML values).
case_args() {
  case $1 in
    0) args=() ;;
    1) args=(--set width=160 --set height=90) ;;  # dense enough that the CPU takes the grid
    2) args=(--set shading.shadows=true --set shading.ao_samples=4 --set shading.samples=4) ;;
    3) args=(--set shading.shadows=true --set shading.ao_samples=2 --set width=160 --set height=90) ;;
    4) args=(--set 'walls=[{type="box",min=[-0.05,-0.05,0],max=[0.05,0.05,0.2],opacity=0.3}]') ;;
    5) args=(--set 'walls=[{type="box",min=[-0.05,-0.05,0],max=[0.05,0.05,0.2],opacity=0.3}]'
             --set shading.shadows=true --set shading.ao_samples=2) ;;
    6) args=(--set 'clip=[{point=[0,0,0.05],normal=[1,1,0]}]') ;;
    # Metal and glass grains by radius, traced three bounces deep; then the path-traced still.
    7) args=(--set shading.bounces=3 --set "materials=[$materials]") ;;
    8) args=(--set 'renderer="path"' --set path.samples=4 --set shading.bounces=3
             --set "materials=[$materials]") ;;
    *) return 1 ;;
  esac
}
render() {  # BUILD OUT
  LD_LIBRARY_PATH="$(libs "$1")" "$1/tools/granray-render" "$dump" --out "$2" --set width=640 \
    --set height=360 --set "backend=\"$backend\"" "${args[@]}" > /dev/null
}
status=0
k=0
while case_args $k; do
  render "$old" "$work/old-$k.png"
  render "$new" "$work/new-$k.png"
  if cmp -s "$work/old-$k.png" "$work/new-$k.png"; then
    echo "same    ${args[*]}"
  else
    echo "DIFFERS ${args[*]}"
    status=1
  fi
  k=$((k + 1))
done
# Two ranks, each a share of the particles, composited.
if command -v mpirun > /dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # containers run as root
  args=(--set shading.shadows=true --set shading.ao_samples=2)
  for side in old new; do
    build=$old
    [ "$side" = new ] && build=$new
    LD_LIBRARY_PATH="$(libs "$build")" mpirun -np 2 --oversubscribe "$build/tools/granray-render" \
      "$dump" --out "$work/$side-mpi.png" --set width=640 --set height=360 \
      --set "backend=\"$backend\"" "${args[@]}" > /dev/null
  done
  if cmp -s "$work/old-mpi.png" "$work/new-mpi.png"; then
    echo "same    mpirun -np 2 ${args[*]}"
  else
    echo "DIFFERS mpirun -np 2 ${args[*]}"
    status=1
  fi
fi
# The example DEM's pour, lit in its box, three frames.
for side in old new; do
  build=$old
  [ "$side" = new ] && build=$new
  mkdir -p "$work/dem-$side"
  (cd "$work/dem-$side" && LD_LIBRARY_PATH="$(libs "$build")" "$build/examples/dem/granray-dem" \
    --set simulation.particles=1000 --set simulation.steps=5000 --set insitu.every=2500 \
    --set "insitu.backend=\"$backend\"" --set 'insitu.png="f_*.png"' \
    --set 'insitu.output=""' > /dev/null 2>&1)
done
for f in "$work"/dem-old/f_*.png; do
  if cmp -s "$f" "$work/dem-new/$(basename "$f")"; then
    echo "same    granray-dem $(basename "$f")"
  else
    echo "DIFFERS granray-dem $(basename "$f")"
    status=1
  fi
done
exit $status
