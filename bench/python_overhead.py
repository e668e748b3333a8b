"""Per-frame cost of the Python path against the C++ call it wraps, on the same particles.

    PYTHONPATH=build/python python3 bench/python_overhead.py [--backend cpu|cuda] [-n N]
        [-r WxH] [--frames F] [--device-array HELPER.so]

For each input layout, F frames are rendered through granray.Renderer.render. Every frame's
wall time (as Python sees the call) is set against the time spent inside the C++
InsituRenderer::render (the record's total_ms, the frame itself, plus output_ms, handing it to
the writer): the difference is what the Python path adds (argument checks, the NaN scan, a copy
when the layout needs one, the GIL). Medians are printed, one line per layout. With
--device-array (tests' libgranray_transfer_trace.so) the CUDA backend also renders a device
array through __cuda_array_interface__.
"""
import argparse
import ctypes
import statistics
import time

import numpy as np

import granray


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("-n", type=int, default=1_000_000)
    parser.add_argument("-r", default="1920x1080")
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--device-array", default="")
    args = parser.parse_args()
    width, height = (int(v) for v in args.r.split("x"))
    rng = np.random.default_rng(7)
    n = args.n
    # A dense bed: grains in a slab, touching their neighbours.
    side = (n / 0.3) ** (1 / 3)
    radius = 0.5 / side
    xyz = rng.uniform(-0.5, 0.5, (n, 3)) * [1.0, 1.0, 0.3]
    xyzr = np.ascontiguousarray(np.c_[xyz, np.full(n, radius)].astype(np.float32))
    speed = rng.uniform(0.0, 2.0, n).astype(np.float32)
    settings = {"every": 1, "width": width, "height": height, "backend": args.backend,
                "color": {"field": "speed", "range": [0.0, 2.0]}}
    layouts = {
        "float32 (N, 4), in place": (xyzr, {"fields": {"speed": speed}}),
        "float64 (N, 3) + radius=, packed": (xyz, {"radius": xyzr[:, 3].astype(np.float64),
                                                   "fields": {"speed": speed.astype(np.float64)}}),
    }
    if args.device_array:
        lib = ctypes.CDLL(args.device_array)
        lib.granray_test_device_copy.restype = ctypes.c_void_p
        lib.granray_test_device_copy.argtypes = [ctypes.c_void_p, ctypes.c_size_t]

        class Device:
            def __init__(self, host):
                ptr = lib.granray_test_device_copy(host.ctypes.data, host.nbytes)
                self.__cuda_array_interface__ = {"shape": host.shape, "typestr": host.dtype.str,
                                                 "data": (ptr, False), "version": 3}

        layouts["CUDA device array (CAI), in place"] = (
            Device(xyzr), {"fields": {"speed": Device(speed)}})
    print(f"# {granray.__version__} backend {args.backend}, {n} grains, {width}x{height}, "
          f"{args.frames} frames, medians")
    print(f"{'input':40s} {'python ms':>10s} {'c++ ms':>10s} {'added ms':>10s} {'added %':>8s}")
    with granray.Renderer(settings) as vis:
        for name, (positions, extra) in layouts.items():
            vis.render(0, 0.0, positions, **extra)  # warm-up: allocations, first grid
            walls, insides = [], []
            for frame in range(1, args.frames + 1):
                start = time.perf_counter()
                record = vis.render(frame, 0.0, positions, **extra)
                walls.append((time.perf_counter() - start) * 1e3)
                insides.append(record.total_ms + record.output_ms)
                assert record.rendered, record.error
            wall, inside = statistics.median(walls), statistics.median(insides)
            print(f"{name:40s} {wall:10.3f} {inside:10.3f} {wall - inside:10.3f} "
                  f"{100 * (wall - inside) / inside:7.1f}%")


if __name__ == "__main__":
    main()
