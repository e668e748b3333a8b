"""Random clumps as DEM-Engine holds its owners, for the ClumpGather tests: templates of 1 to 6
component spheres, each owner a template at a position with a unit quaternion (x, y, z, w), and a
value per owner."""
import numpy as np


def random_clumps(rng, n, size):
    """`n` owners in a box of half-width `size`; templates' offsets within size / 20 and radii
    size / 200 to size / 40 (the clumps overlap as a bed's do)."""
    templates = []
    for _ in range(int(rng.integers(1, 5))):
        k = int(rng.integers(1, 7))
        templates.append((rng.uniform(-size / 20, size / 20, (k, 3)),
                          rng.uniform(size / 200, size / 40, k)))
    template_of = rng.integers(0, len(templates), n)
    positions = rng.uniform(-size, size, (n, 3)).astype(np.float32)
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    half = rng.uniform(0, np.pi, n)
    quat = np.column_stack([axis * np.sin(half)[:, None], np.cos(half)]).astype(np.float32)
    speed = rng.uniform(0, 2, n).astype(np.float32)
    return templates, template_of, positions, quat, speed
