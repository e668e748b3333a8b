#!/usr/bin/env python3
"""Whether a denoiser pays for granray's path-traced stills: Intel Open Image Denoise (OIDN,
through PyPI's pyoidn; Debian ships no OIDN) on stills of few paths, against a still of many.

For each count of paths, renders the still with granray-render, denoises it with OIDN's RT filter
(colour alone, and colour with an albedo image: the same scene unlit, ambient 1 and diffuse 0, so
each pixel shows its surface's base colour) and prints the RMS error in 8-bit levels against the
reference still of --reference paths, with the render and denoise times.

    python3 bench/denoise_eval.py --config scene.toml bed.xyzr [--size 960x540]
        [--paths 1 4 16] [--reference 512] [--granray build/tools/granray-render]

The configuration must select renderer = "path" (bench/mitsuba_compare.py --out DIR writes one,
DIR/scene.toml with DIR/bed.xyzr). Needs numpy, pyoidn (pip install pyoidn) and granray's Python
module (build/python on PYTHONPATH) for reading the PNG files.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def render(args, work, name, extra):
    """One granray-render still into work/name.png: (image as float levels, frame seconds)."""
    import granray
    png = os.path.join(work, name + ".png")
    width, height = args.size.split("x")
    run = subprocess.run([args.granray, "--config", args.config, args.input, "--out", png,
                          "--set", f"width={width}", "--set", f"height={height}", *extra],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("granray-render failed:\n" + run.stdout + run.stderr)
    frame = float(re.search(r"frame ([0-9.]+) ms", run.stdout).group(1)) / 1000.0
    return granray.read_png(png).astype(np.float32), frame


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True, help="a granray configuration with renderer = \"path\"")
    ap.add_argument("input", help="the particle file")
    ap.add_argument("--granray", default="build/tools/granray-render")
    ap.add_argument("--size", default="960x540")
    ap.add_argument("--paths", type=int, nargs="+", default=[1, 4, 16])
    ap.add_argument("--reference", type=int, default=512, help="paths of the reference still")
    args = ap.parse_args()
    try:
        import pyoidn
    except ImportError:
        sys.exit("denoise_eval: needs pyoidn (pip install pyoidn), Intel Open Image Denoise")

    with tempfile.TemporaryDirectory() as work:
        reference, seconds = render(args, work, "reference", ["--set", f"path.samples={args.reference}"])
        print(f"reference: {args.reference} paths, {seconds:.1f} s, {args.size}")
        albedo, _ = render(args, work, "albedo", [
            "--set", 'renderer="direct"', "--set", "shading.ambient=1.0", "--set",
            "shading.diffuse=0.0", "--set", "shading.bounces=0"])
        albedo /= 255.0

        def rms(image):
            return float(np.sqrt(((image - reference) ** 2).mean()))

        def denoised(image, **aux):
            start = time.perf_counter()
            out = pyoidn.denoise(image / 255.0, **aux)
            elapsed = time.perf_counter() - start
            return np.floor(np.clip(out, 0.0, 1.0) * 255.0 + 0.5), elapsed

        print(f"{'paths':>6} {'render s':>9} {'noisy RMS':>10} {'OIDN colour':>12} "
              f"{'OIDN +albedo':>13} {'denoise s':>10}")
        for paths in args.paths:
            image, frame = render(args, work, f"p{paths}", ["--set", f"path.samples={paths}"])
            alone, t_alone = denoised(image)
            with_albedo, t_albedo = denoised(image, albedo=albedo)
            print(f"{paths:>6} {frame:>9.3f} {rms(image):>10.2f} {rms(alone):>12.2f} "
                  f"{rms(with_albedo):>13.2f} {max(t_alone, t_albedo):>10.3f}")


if __name__ == "__main__":
    main()
