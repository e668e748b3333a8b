"""Renders a particle dump with OVITO's OSPRay renderer at its defaults (the path tracer granray's
path-traced still is compared with, issue 43), the camera as bench/ovito_tachyon.py places it.
Prints the render's seconds.

    python3 bench/ovito_ospray.py DUMP OUT.png WIDTH HEIGHT
"""
import math
import sys
import time

from ovito.io import import_file
from ovito.vis import OSPRayRenderer, Viewport


def main():
    dump, out, width, height = sys.argv[1:5]
    pipeline = import_file(dump)
    pipeline.compute().cell.vis.enabled = False  # the grains alone, as granray draws them
    pipeline.add_to_scene()
    theta, phi = math.radians(60.0), math.radians(30.0)
    toward_eye = (math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta))
    viewport = Viewport(type=Viewport.Type.Perspective,
                        camera_dir=tuple(-c for c in toward_eye), fov=math.radians(15.0))
    viewport.zoom_all(size=(int(width), int(height)))
    renderer = OSPRayRenderer()  # its defaults: 8 samples x 4 refinement passes, denoised
    start = time.perf_counter()
    viewport.render_image(size=(int(width), int(height)), filename=out, renderer=renderer)
    print(f"ospray {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
