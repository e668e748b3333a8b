"""granray: in-situ ray casting of DEM particles, from NumPy or CUDA device arrays.

    import granray, numpy as np
    vis = granray.Renderer({"every": 100, "width": 640, "height": 360, "png": "frames/f_*.png"})
    for step in range(1000):
        ...  # advance the simulation
        if vis.due(step, t):
            vis.render(step, t, xyzr)          # (N, 4) x, y, z, radius
    vis.close()

See docs/python.md in the granray repository; granray.lammps couples LAMMPS through
fix python/invoke.
"""
from ._granray import (ClumpGather, Counters, ConfigError, DeviceError, Error, FrameRecord,
                       InputError, OutOfMemoryError, OutputError, Renderer, __version__,
                       cuda_devices, read_png)

__all__ = ["Renderer", "ClumpGather", "FrameRecord", "Counters", "Error", "ConfigError", "InputError",
           "OutputError", "DeviceError", "OutOfMemoryError", "read_png", "cuda_devices",
           "__version__"]
