#!/usr/bin/env python3
"""granray's path-traced still against Mitsuba 3's path tracer on the same scene, in one run.

The scene: a bed of grains (generated, or read from an 'x y z r' text file; either scaled to a mean
radius of 1, which Mitsuba's ellipsoids need), a third each matte,
mirror metal (reflectance k: Mitsuba's blendbsdf of its diffuse and a conductor with material
"none") and glass, on a matte floor, under a uniform sky (the background) and, optionally, a
point sun (sun_radius 0: Mitsuba's directional emitter with irradiance pi x sun_intensity). Both
render the same camera, samples and depth (bounces + 1 is Mitsuba's max_depth); the script
prints each one's time (Mitsuba's first render includes its JIT compilation, so it is timed
twice; granray renders the still twice in one process, whose first frame pays for its threads,
CUDA context and kernels' loading, and the second is timed), the ratio, and how far the two images are apart in 8-bit levels.

  bench/mitsuba_compare.py --granray build/tools/granray-render [--variant llvm_ad_rgb]
      [--grains 20000] [--scene heap | --input bed.xyzr] [--size 1920x1080] [--samples 64] [--bounces 4]
      [--sun 3.0] [--backend cpu|cuda] [--out DIR] [--quality 4096]

With --quality R: time to quality instead. Mitsuba renders a reference of R paths per pixel (a
seed of its own); then each renderer renders 1, 2, 4, ... --samples paths, and the script prints
each image's time and RMS error against the reference (8-bit levels), the error each reached
within 1, 2, 4, ... seconds of rendering, and granray's time to reach the error of Mitsuba's
--samples paths. Pass --no-glass for a scene both describe alike.

Needs `pip install mitsuba numpy`; the llvm variant needs libLLVM (Debian libllvm19;
DRJIT_LIBLLVM_PATH is set to it when unset).
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def dense_bed(n, seed=1):
    """Grains of radius 0.4-0.5 on a jittered lattice, touching like a settled bed."""
    rng = np.random.default_rng(seed)
    side = int(math.ceil((n / 0.5) ** (1.0 / 3.0)))
    cols = side
    layers = int(math.ceil(n / (cols * cols)))
    ijk = np.stack(np.meshgrid(np.arange(cols), np.arange(cols), np.arange(layers), indexing="ij"),
                   axis=-1).reshape(-1, 3)[:n]
    xyz = ijk * 1.0 + rng.uniform(-0.05, 0.05, size=(n, 3))
    r = rng.uniform(0.4, 0.5, size=n)
    return np.column_stack([xyz, r]).astype(np.float32)


def time_to_quality(args, granray, mitsuba_still, width, height):
    """Each renderer's RMS error against one reference after 1, 2, 4, ... paths per pixel."""
    mitsuba_still(1)  # compiles Mitsuba's kernels: the curves below time rendering alone
    reference, seconds = mitsuba_still(args.quality, seed=100003)
    print(f"reference: Mitsuba ({args.variant}), {args.quality} paths per pixel, {width}x{height}, "
          f"{seconds:.1f} s")
    counts = []
    n = 1
    while n <= args.samples:
        counts.append(n)
        n *= 2
    curves = {"granray": [], "mitsuba": []}
    print(f"{'paths':>6} {'granray s':>10} {'granray RMS':>12} {'mitsuba s':>10} {'mitsuba RMS':>12}")
    for n in counts:
        g_image, g_frame, _, _ = granray(n)
        m_image, m_seconds = mitsuba_still(n)
        g_rms = float(np.sqrt(((g_image - reference) ** 2).mean()))
        m_rms = float(np.sqrt(((m_image - reference) ** 2).mean()))
        curves["granray"].append((g_frame, g_rms))
        curves["mitsuba"].append((m_seconds, m_rms))
        print(f"{n:>6} {g_frame:>10.3f} {g_rms:>12.2f} {m_seconds:>10.3f} {m_rms:>12.2f}")
    longest = max(t for curve in curves.values() for t, _ in curve)
    budgets = [b for b in (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0) if b <= 2 * longest]
    print("error reached within a budget of rendering time (the most paths that fit):")
    for budget in budgets:
        row = []
        for name in ("granray", "mitsuba"):
            within = [rms for t, rms in curves[name] if t <= budget]
            row.append(f"{name} {min(within):.2f}" if within else f"{name} -")
        print(f"  {budget:>6.2f} s: " + ", ".join(row))
    target_seconds, target = curves["mitsuba"][-1]
    reached = time_to_error(curves["granray"], target)
    if reached is None:
        print(f"time to Mitsuba's {counts[-1]}-path error ({target:.2f}): granray not within "
              f"{counts[-1]} paths")
    else:
        print(f"time to Mitsuba's {counts[-1]}-path error ({target:.2f}): granray {reached:.3f} s, "
              f"Mitsuba {target_seconds:.3f} s, ratio {target_seconds / reached:.2f}")


def time_to_error(curve, target):
    """When a renderer's (seconds, RMS) curve, in order of paths, first reaches `target`: between
    the two counts that bracket it, where the line through them in log-log reaches it (an RMS
    error falls as a power of the time); None when no count reaches it."""
    for k, (seconds, rms) in enumerate(curve):
        if rms > target:
            continue
        if k == 0 or rms == target:
            return seconds
        t0, e0 = curve[k - 1]
        slope = (math.log(rms) - math.log(e0)) / (math.log(seconds) - math.log(t0))
        return math.exp(math.log(t0) + (math.log(target) - math.log(e0)) / slope)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--granray", default="build/tools/granray-render")
    ap.add_argument("--variant", default="llvm_ad_rgb")
    ap.add_argument("--grains", type=int, default=20000)
    ap.add_argument("--input", help="'x y z r' text file instead of a generated bed")
    ap.add_argument("--scene", help="a scene of the benchmark suite (bench/scene_suite.h: dense, "
                                    "dilute, heap, drum, pour, hopper, clusters) of --grains "
                                    "grains, written by granray-scene beside --granray's build; "
                                    "its grains only, without the drum's or hopper's walls")
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--bounces", type=int, default=4)
    ap.add_argument("--sun", type=float, default=0.0, help="sun_intensity of a point sun (0: none)")
    ap.add_argument("--reflectance", type=float, default=1.0)
    ap.add_argument("--no-glass", action="store_true",
                    help="half matte, half mirror: the scene the agreement check describes (a "
                         "Mitsuba glass pass counts two bounces, granray's one)")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--out", default=None, help="keep both images here")
    ap.add_argument("--quality", type=int, default=0,
                    help="paths per pixel of a reference image: time to quality (see above)")
    args = ap.parse_args()
    width, height = (int(v) for v in args.size.split("x"))

    if args.variant.startswith("llvm") and "DRJIT_LIBLLVM_PATH" not in os.environ:
        for candidate in ("/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1",
                          "/usr/lib/x86_64-linux-gnu/libLLVM-19.so"):
            if os.path.exists(candidate):
                os.environ["DRJIT_LIBLLVM_PATH"] = candidate
                break
    import mitsuba as mi
    mi.set_variant(args.variant)

    source = args.input
    if args.scene:
        tool = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.granray))),
                            "bench", "granray-scene")
        source = os.path.join(tempfile.mkdtemp(), args.scene + ".xyzr")
        with open(source, "w") as f:
            subprocess.run([tool, args.scene, str(args.grains), "1"], stdout=f, check=True)
    grains = np.loadtxt(source, usecols=(0, 1, 2, 3), dtype=np.float32, ndmin=2) \
        if source else dense_bed(args.grains)
    # Scaled to a mean radius of 1 for both: Mitsuba 3.9's ellipsoids draw grains of millimetre
    # radii (the LIGGGHTS packing in metres) as blocks, while granray's image does not depend on
    # the scale.
    grains = grains * np.float32(1.0 / float(grains[:, 3].mean()))
    n = len(grains)
    kind = np.arange(n) % (2 if args.no_glass else 3)  # 0 matte, 1 mirror metal, 2 glass
    lo = (grains[:, :3] - grains[:, 3:]).min(axis=0)
    hi = (grains[:, :3] + grains[:, 3:]).max(axis=0)
    centre = (lo + hi) / 2
    radius = float(np.linalg.norm(hi - lo) / 2)
    target = centre
    eye = centre + np.array([0.55, -0.75, 0.45]) / np.linalg.norm([0.55, -0.75, 0.45]) * radius * 2.6
    fov = 30.0
    floor_z = float(lo[2]) - 0.01 * radius
    pad = radius * 3
    base = (0.8, 0.8, 0.8)
    floor_color = (0.6, 0.65, 0.75)
    sky = 1.0
    scratch = None if args.out else tempfile.TemporaryDirectory()  # removed at exit
    work = args.out or scratch.name
    os.makedirs(work, exist_ok=True)

    # granray: the grains with their kind as the scalar, and the floor as a wall.
    bed = os.path.join(work, "bed.xyzr")
    np.savetxt(bed, np.column_stack([grains, kind]), fmt="%.7g")
    floor_stl = os.path.join(work, "floor.stl")
    a, b, c, d = ((centre[0] - pad, centre[1] - pad), (centre[0] + pad, centre[1] - pad),
                  (centre[0] + pad, centre[1] + pad), (centre[0] - pad, centre[1] + pad))
    with open(floor_stl, "w") as f:
        f.write("solid floor\n")
        for tri in ((a, b, c), (a, c, d)):
            f.write("facet normal 0 0 1\nouter loop\n")
            for x, y in tri:
                f.write(f"vertex {x:.7g} {y:.7g} {floor_z:.7g}\n")
            f.write("endloop\nendfacet\n")
        f.write("endsolid floor\n")
    toml = os.path.join(work, "scene.toml")
    # The light in camera space that points along the world's direction `sun_dir`.
    sun_dir = np.array([0.3, -0.4, 1.0]) / np.linalg.norm([0.3, -0.4, 1.0])
    w = (eye - target) / np.linalg.norm(eye - target)
    u = np.cross([0, 0, 1], w)
    u /= np.linalg.norm(u)
    v = np.cross(w, u)
    light_cam = (float(sun_dir @ u), float(sun_dir @ v), float(sun_dir @ w))
    with open(toml, "w") as f:
        f.write(f"""[insitu]
width = {width}
height = {height}
renderer = "path"
backend = "{args.backend}"
[insitu.camera]
position = [{eye[0]:.7g}, {eye[1]:.7g}, {eye[2]:.7g}]
target = [{target[0]:.7g}, {target[1]:.7g}, {target[2]:.7g}]
fov = {fov}
[insitu.shading]
background = [{sky}, {sky}, {sky}]
particle_color = [{base[0]}, {base[1]}, {base[2]}]
light = [{light_cam[0]:.7g}, {light_cam[1]:.7g}, {light_cam[2]:.7g}]
bounces = {args.bounces}
[insitu.path]
samples = {args.samples}
sun_radius = 0.0
sun_intensity = {args.sun}
[insitu.color]
field = "kind"
colormap = "categorical"
palette = [[{base[0]}, {base[1]}, {base[2]}]]
[[insitu.materials]]
name = "mirror"
type = "metal"
reflectance = {args.reflectance}
range = [1, 1]
[[insitu.materials]]
name = "glass"
type = "glass"
ior = 1.5
range = [2, 2]
[[insitu.walls]]
type = "stl"
file = "floor.stl"
color = [{floor_color[0]}, {floor_color[1]}, {floor_color[2]}]
""")
    def granray(samples):
        """granray's still of `samples` paths, rendered twice in one process as Mitsuba is timed
        twice (the first frame pays for the process's set-up: threads, the CUDA context, the
        kernels' loading): (8-bit image, the second frame's time, the first still's whole time:
        the process less its second frame)."""
        png = os.path.join(work, f"granray-{samples}-*.png")
        start = time.perf_counter()
        run = subprocess.run([args.granray, "--config", toml, bed, bed, "--out", png,
                              "--set", f"path.samples={samples}"], capture_output=True, text=True)
        process = time.perf_counter() - start
        if run.returncode != 0:
            sys.exit("granray-render failed:\n" + run.stdout + run.stderr)
        frames = [float(ms) / 1000 for ms in re.findall(r"frame ([0-9.]+) ms", run.stdout)]
        if len(frames) != 2:
            sys.exit("granray-render printed no frame times:\n" + run.stdout + run.stderr)
        first = os.path.join(work, f"granray-{samples}-0.png")
        second = os.path.join(work, f"granray-{samples}-1.png")
        image = np.array(mi.Bitmap(second)).astype(np.float64)[:, :, :3]
        if not np.array_equal(image, np.array(mi.Bitmap(first)).astype(np.float64)[:, :, :3]):
            sys.exit("granray-render drew the same still two ways")
        return image, frames[1], process - frames[1], frames[0]

    # Mitsuba: one ellipsoids shape (equal scales) per material.
    def spheres(mask, bsdf):
        data = np.zeros((int(mask.sum()), 10), dtype=np.float32)
        data[:, 0:3] = grains[mask, :3]
        data[:, 3:6] = grains[mask, 3:4]  # scales: the radius on every axis
        data[:, 6] = 1.0                  # the rotation's quaternion: identity
        return {"type": "ellipsoids", "data": mi.TensorXf(data.reshape(-1)), "extent": 1.0,
                "bsdf": bsdf}

    diffuse = {"type": "diffuse", "reflectance": {"type": "rgb", "value": base}}
    scene = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": args.bounces + 1},
        "sensor": {
            "type": "perspective", "fov": fov, "fov_axis": "y",
            "to_world": mi.ScalarTransform4f().look_at(origin=eye.tolist(), target=target.tolist(),
                                                       up=[0, 0, 1]),
            "sampler": {"type": "independent", "sample_count": args.samples},
            "film": {"type": "hdrfilm", "width": width, "height": height,
                     "rfilter": {"type": "box"}, "pixel_format": "rgb"},
        },
        "sky": {"type": "constant", "radiance": {"type": "rgb", "value": [sky] * 3}},
        "matte": spheres(kind == 0, diffuse),
        "mirror": spheres(kind == 1, {
            "type": "blendbsdf", "weight": args.reflectance,
            "bsdf_0": diffuse, "bsdf_1": {"type": "conductor", "material": "none"}}),
        "floor": {"type": "rectangle",
                  "to_world": mi.ScalarTransform4f().translate([float(centre[0]), float(centre[1]), floor_z])
                  @ mi.ScalarTransform4f().scale([pad, pad, 1.0]),
                  "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": floor_color}}},
    }
    if not args.no_glass:
        scene["glass"] = spheres(kind == 2, {"type": "dielectric", "int_ior": 1.5, "ext_ior": 1.0})
    if args.sun > 0:
        scene["sun"] = {"type": "directional", "direction": (-sun_dir).tolist(),
                        "irradiance": {"type": "rgb", "value": [math.pi * args.sun] * 3}}
    start = time.perf_counter()
    loaded = mi.load_dict(scene)
    m_load = time.perf_counter() - start

    def mitsuba_still(samples, seed=0):
        """Mitsuba's still of `samples` paths: (8-bit image as granray writes one, time). Many
        paths go in passes of at most 64 with seeds of their own (one pass of 4096 paths per
        pixel would hold every path's state at once)."""
        start = time.perf_counter()
        passes = max(1, samples // 64)
        radiance = 0.0
        for k in range(passes):
            image = mi.render(loaded, spp=samples // passes, seed=seed + k)
            radiance = radiance + np.array(image)[:, :, :3]  # waits for the render
        seconds = time.perf_counter() - start
        radiance = radiance / passes
        return np.clip(np.floor(255.0 * np.clip(radiance, 0, 1) + 0.5), 0, 255), seconds

    if args.quality > 0:
        time_to_quality(args, granray, mitsuba_still, width, height)
        return

    g_image, g_frame, g_process, g_first = granray(args.samples)
    times = []
    for _ in range(2):
        mitsuba, seconds = mitsuba_still(args.samples)
        times.append(seconds)
    mi.util.write_bitmap(os.path.join(work, "mitsuba.png"), mitsuba.astype(np.uint8),
                         write_async=False)

    ours = g_image
    diff = np.abs(ours - mitsuba).max(axis=2)
    samples_total = width * height * args.samples
    print(f"scene: {n} grains ({'half each matte, mirror' if args.no_glass else 'a third each matte, mirror'} k={args.reflectance}{'' if args.no_glass else ', glass'}), "
          f"{width}x{height}, {args.samples} samples, {args.bounces} bounces, sun {args.sun}")
    print(f"granray ({args.backend}): frame {g_frame:.3f} s (second still; first {g_first:.3f} s), "
          f"first still's whole process {g_process:.3f} s, "
          f"{samples_total / g_frame / 1e6:.1f} M samples/s")
    print(f"mitsuba ({args.variant}): load {m_load:.3f} s, first render {times[0]:.3f} s "
          f"(JIT included), second {times[1]:.3f} s, {samples_total / times[1] / 1e6:.1f} M samples/s")
    print(f"ratio mitsuba / granray: {times[1] / g_frame:.2f} (second render), "
          f"{(m_load + times[0]) / g_process:.2f} (first still, set-up included)")
    print(f"images: mean |difference| {np.abs(ours - mitsuba).mean():.2f} levels, "
          f"{(diff <= 8).mean() * 100:.1f} % of pixels within 8 levels; mean level granray "
          f"{ours.mean():.2f}, mitsuba {mitsuba.mean():.2f}" + (f"; in {work}" if args.out else ""))


if __name__ == "__main__":
    main()
