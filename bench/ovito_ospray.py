"""Renders a particle dump with OVITO's OSPRay renderer at its defaults (the path tracer granray's
path-traced still is compared with, issue 43), the camera as bench/ovito_tachyon.py places it.
Prints the render's seconds.

    python3 bench/ovito_ospray.py DUMP OUT.png WIDTH HEIGHT
"""
import sys
import time

from ovito.vis import OSPRayRenderer

from ovito_tachyon import scene_viewport


def main():
    dump, out, width, height = sys.argv[1:5]
    viewport = scene_viewport(dump, width, height)
    renderer = OSPRayRenderer()  # its defaults: 8 samples x 4 refinement passes, denoised
    start = time.perf_counter()
    viewport.render_image(size=(int(width), int(height)), filename=out, renderer=renderer)
    print(f"ospray {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
