"""Renders a particle dump with OVITO's Tachyon ray tracer (shadows, ambient occlusion,
antialiasing), as bench/ovito_compare.sh compares it with granray. Prints the render's seconds.

    python3 bench/ovito_tachyon.py DUMP OUT.png WIDTH HEIGHT AO_SAMPLES AA_SAMPLES
"""
import math
import sys
import time

from ovito.io import import_file
from ovito.vis import TachyonRenderer, Viewport


def scene_viewport(dump, width, height):
    """The dump's grains alone in OVITO's scene, and a viewport with granray's auto camera
    direction (theta 60 deg from +z, phi 30 deg from +x, fov 30 deg) framing them."""
    pipeline = import_file(dump)
    pipeline.compute().cell.vis.enabled = False  # the grains alone, as granray draws them
    pipeline.add_to_scene()
    theta, phi = math.radians(60.0), math.radians(30.0)
    toward_eye = (math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta))
    viewport = Viewport(type=Viewport.Type.Perspective,
                        camera_dir=tuple(-c for c in toward_eye), fov=math.radians(15.0))
    viewport.zoom_all(size=(int(width), int(height)))
    return viewport


def main():
    dump, out, width, height, ao, aa = sys.argv[1:7]
    viewport = scene_viewport(dump, width, height)
    renderer = TachyonRenderer(shadows=True, ambient_occlusion=True,
                               ambient_occlusion_samples=int(ao), antialiasing=int(aa) > 1,
                               antialiasing_samples=int(aa))
    start = time.perf_counter()
    viewport.render_image(size=(int(width), int(height)), filename=out, renderer=renderer)
    print(f"tachyon {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
