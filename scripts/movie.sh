#!/usr/bin/env bash
# Makes a movie of granray's frames with ffmpeg (Debian package ffmpeg):
#   scripts/movie.sh out/demo/frames movie.mp4        from the step_*.png files, in step order
#   scripts/movie.sh frames.h5 movie.mp4              from /frames/rgb (needs python3-h5py)
# FPS (default 25) sets the frame rate.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 FRAMES_DIR|FILE.h5 OUT.mp4" >&2
  exit 2
fi
src=$1 out=$2 fps=${FPS:-25}
command -v ffmpeg >/dev/null || { echo "$0: needs ffmpeg (apt-get install ffmpeg)" >&2; exit 1; }
# Even sizes for yuv420p, which every player reads.
scale="scale=trunc(iw/2)*2:trunc(ih/2)*2"
if [ -d "$src" ]; then
  ffmpeg -loglevel error -y -framerate "$fps" -pattern_type glob -i "$src/*.png" \
    -vf "$scale" -c:v libx264 -pix_fmt yuv420p "$out"
else
  python3 -c 'import h5py' 2>/dev/null ||
    { echo "$0: reading HDF5 needs h5py (apt-get install python3-h5py)" >&2; exit 1; }
  size=$(python3 -c 'import h5py,sys; s=h5py.File(sys.argv[1],"r")["frames/rgb"].shape; print(f"{s[2]}x{s[1]}")' "$src")
  python3 -c '
import h5py, sys
with h5py.File(sys.argv[1], "r") as f:
    for frame in f["frames/rgb"]:
        sys.stdout.buffer.write(frame.tobytes())
' "$src" | ffmpeg -loglevel error -y -f rawvideo -pix_fmt rgb24 -s "$size" -framerate "$fps" \
    -i - -vf "$scale" -c:v libx264 -pix_fmt yuv420p "$out"
fi
echo "wrote $out"
