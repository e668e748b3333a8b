"""The Python module against granray-render on the same particles, and its handling of input.

Run by ctest (python.module) with PYTHONPATH at the build's python/ directory and
GRANRAY_RENDER naming granray-render. Every scene is drawn fresh; the seed is printed.
"""
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import zlib

import numpy as np

import granray

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clump_scenes import random_clumps  # noqa: E402 - beside this test

SEED = int(os.environ.get("GRANRAY_TEST_SEED", time.time_ns() % 2**32))
print(f"test_module: seed {SEED} (GRANRAY_TEST_SEED={SEED} repeats it)", flush=True)


def random_scene(rng, n=None):
    n = int(rng.integers(200, 3000)) if n is None else n
    centre = rng.uniform(-1.0, 1.0, 3)
    xyz = centre + rng.uniform(-0.5, 0.5, (n, 3)) * rng.uniform(0.5, 2.0, 3)
    radius = rng.uniform(0.01, 0.04, n)
    xyzr = np.ascontiguousarray(np.c_[xyz, radius].astype(np.float32))
    speed = rng.uniform(0.0, 2.0, n).astype(np.float32)
    return xyzr, speed


def random_settings(rng, png):
    settings = {"every": 1, "width": int(rng.integers(64, 200)), "height": int(rng.integers(48, 160)),
                "png": png, "backend": "cpu",
                "camera": {"theta": float(rng.uniform(0, 180)), "phi": float(rng.uniform(-80, 80))},
                "shading": {"shadows": bool(rng.integers(0, 2)), "samples": int(rng.choice([1, 4]))}}
    if rng.integers(0, 2):
        settings["color"] = {"field": "speed", "colormap": str(rng.choice(["viridis", "magma"])),
                             "range": [0.0, 2.0]}
    return settings


def write_xyzr(path, xyzr, scalar):
    # Seventeen digits: the text parses back to exactly these float32 values.
    np.savetxt(path, np.c_[xyzr.astype(np.float64), scalar.astype(np.float64)], fmt="%.17g")


def toml_text(settings):
    lines = ["[insitu]"]
    tables = []
    for key, value in settings.items():
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            lines.append(f"{key} = {toml_value(value)}")
    for name, table in tables:
        lines.append(f"[insitu.{name}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


class Workspace(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="granray-py-")
        self.addCleanup(self.dir.cleanup)
        self.rng = np.random.default_rng([SEED, zlib.crc32(self.id().encode())])

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def render_once(self, settings, xyzr, **kwargs):
        with granray.Renderer(settings, fields=["speed"]) as vis:
            record = vis.render(7, 0.5, xyzr, **kwargs)
        self.assertTrue(record.rendered, record.error)
        return granray.read_png(record.png_path)


class AgainstGranrayRender(Workspace):
    def test_numpy_input_renders_the_pixels_of_granray_render(self):
        for scene in range(4):
            xyzr, speed = random_scene(self.rng)
            settings = random_settings(self.rng, self.path(f"insitu{scene}_*.png"))
            config = self.path(f"scene{scene}.toml")
            with open(config, "w") as f:
                f.write(toml_text(settings))
            write_xyzr(self.path(f"scene{scene}.xyzr"), xyzr, speed)
            subprocess.run([os.environ["GRANRAY_RENDER"], "--config", config,
                            "--format", "xyzr", self.path(f"scene{scene}.xyzr"),
                            "--out", self.path(f"offline{scene}.png")],
                           check=True, capture_output=True)
            offline = granray.read_png(self.path(f"offline{scene}.png"))
            with granray.Renderer(config, fields=["speed"]) as vis:
                record = vis.render(0, 0.0, xyzr, fields={"speed": speed})
            self.assertTrue(record.rendered, record.error)
            self.assertEqual(record.particles, len(xyzr))
            insitu = granray.read_png(record.png_path)
            self.assertEqual(insitu.shape, offline.shape)
            differing = int(np.count_nonzero((insitu != offline).any(axis=2)))
            self.assertEqual(differing, 0, f"scene {scene}: {differing} pixels differ")
            self.assertGreater(len(np.unique(insitu.reshape(-1, 3), axis=0)), 10,
                               "the scene shows particles")

    def test_a_dict_configures_as_the_same_toml_file_does(self):
        xyzr, speed = random_scene(self.rng)
        settings = random_settings(self.rng, self.path("dict_*.png"))
        settings["color"] = {"field": "speed", "range": [0.0, 2.0]}
        from_dict = self.render_once(settings, xyzr, fields={"speed": speed})
        settings["png"] = self.path("file_*.png")
        with open(self.path("file.toml"), "w") as f:
            f.write(toml_text(settings))
        from_file = self.render_once(self.path("file.toml"), xyzr, fields={"speed": speed})
        np.testing.assert_array_equal(from_dict, from_file)


def packing_with_contacts(rng, side=7):
    """Grains on a jittered lattice, touching, and every overlapping pair with a force."""
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)
    xyz = grid + rng.uniform(-0.08, 0.08, grid.shape)
    radius = rng.uniform(0.48, 0.56, len(xyz))
    xyzr = np.ascontiguousarray(np.c_[xyz, radius].astype(np.float32))
    gap = np.linalg.norm(xyz[:, None, :] - xyz[None, :, :], axis=2)
    first, second = np.nonzero(np.triu(gap < radius[:, None] + radius[None, :], 1))
    force = rng.uniform(0.0, 5.0, len(first)).astype(np.float32)
    return xyzr, first, second, force


class Contacts(Workspace):
    """contract 2g: contacts=(first, second, value) draws the force network as granray-render
    --contacts draws the same pairs from a LAMMPS dump local."""

    def test_pairs_render_as_granray_render_draws_them(self):
        xyzr, first, second, force = packing_with_contacts(self.rng)
        self.assertGreater(len(first), 100)
        ids = self.rng.permutation(len(xyzr)) + 1
        step = 40
        with open(self.path("grains.dump"), "w") as f:
            f.write(f"ITEM: TIMESTEP\n{step}\nITEM: NUMBER OF ATOMS\n{len(xyzr)}\n"
                    "ITEM: BOX BOUNDS ff ff ff\n-1 9\n-1 9\n-1 9\nITEM: ATOMS id x y z radius\n")
            for i, (x, y, z, r) in zip(ids, xyzr.astype(np.float64)):
                f.write(f"{i} {x:.17g} {y:.17g} {z:.17g} {r:.17g}\n")
        with open(self.path("pairs.local"), "w") as f:
            f.write(f"ITEM: TIMESTEP\n{step}\nITEM: NUMBER OF ENTRIES\n{len(first)}\n"
                    "ITEM: BOX BOUNDS ff ff ff\n-1 9\n-1 9\n-1 9\nITEM: ENTRIES c_p[1] c_p[2] c_f\n")
            for a, b, v in zip(first, second, force.astype(np.float64)):
                f.write(f"{ids[a]} {ids[b]} {v:.17g}\n")
        settings = {"every": 1, "width": 120, "height": 90, "backend": "cpu",
                    "png": self.path("insitu_*.png"),
                    "shading": {"shadows": True},
                    "contacts": {"threshold": float(self.rng.choice([0.0, 1.0])),
                                 "grains": bool(self.rng.integers(0, 2)), "colormap": "magma"}}
        with open(self.path("network.toml"), "w") as f:
            f.write(toml_text(settings))
        subprocess.run([os.environ["GRANRAY_RENDER"], "--config", self.path("network.toml"),
                        "--contacts", self.path("pairs.local"),
                        "--contact-columns", "patom1 patom2 force",
                        self.path("grains.dump"), "--out", self.path("offline.png")],
                       check=True, capture_output=True)
        offline = granray.read_png(self.path("offline.png"))
        for pairs in [(first, second, force),  # int64 indices, float32 values
                      (first.astype(np.uint32), second.astype(np.int32), force.astype(np.float64))]:
            with granray.Renderer(self.path("network.toml")) as vis:
                record = vis.render(step, 0.0, xyzr, ids=ids, contacts=pairs)
            self.assertTrue(record.rendered, record.error)
            self.assertGreater(record.contacts, 0)
            self.assertEqual(record.contacts_skipped, 0)
            np.testing.assert_array_equal(granray.read_png(record.png_path), offline)

    def test_bad_pairs_raise_and_name_the_problem(self):
        xyzr, first, second, force = packing_with_contacts(self.rng, side=4)
        settings = {"every": 1, "width": 32, "height": 24, "backend": "cpu", "contacts": {}}
        with granray.Renderer(settings) as vis:
            for pairs, words in [((first, second), "(first, second, value)"),
                                 ((first, second[:-1], force), "one length"),
                                 ((first * 0.5, second, force), "integers"),
                                 # one index below 0 (first - 1 had none when grain 0
                                 # touched nothing)
                                 ((first - first.min() - 1, second, force),
                                  "not a particle index")]:
                with self.assertRaises(granray.InputError) as caught:
                    vis.render(1, 0.0, xyzr, contacts=pairs)
                self.assertIn(words, str(caught.exception))
            # An index past the particles is a pair left out, not an error: a broken grain
            # never stops a frame.
            record = vis.render(2, 0.0, xyzr, contacts=(first, second + len(xyzr), force))
            self.assertTrue(record.rendered, record.error)
            self.assertEqual(record.contacts_skipped, len(first))


class Layouts(Workspace):
    def test_every_dtype_and_layout_gives_the_same_image(self):
        xyzr, speed = random_scene(self.rng, 1500)
        settings = random_settings(self.rng, self.path("layout_*.png"))
        settings["color"] = {"field": "speed", "range": [0.0, 2.0]}
        reference = self.render_once(settings, xyzr, fields={"speed": speed})
        wide = np.zeros((len(xyzr), 7))
        wide[:, 1:5] = xyzr
        layouts = {
            "float64 (N, 4)": (xyzr.astype(np.float64), {}),
            "Fortran order": (np.asfortranarray(xyzr.astype(np.float64)), {}),
            "strided columns": (wide[:, 1:5], {}),
            "(N, 3) + radius array": (xyzr[:, :3].copy(), {"radius": xyzr[:, 3].astype(np.float64)}),
            "list of rows": (xyzr.tolist(), {}),
        }
        for name, (positions, extra) in layouts.items():
            image = self.render_once(settings, positions,
                                     fields={"speed": speed.astype(np.float64)}, **extra)
            np.testing.assert_array_equal(image, reference, err_msg=name)
        same_radius = xyzr.copy()
        same_radius[:, 3] = 0.02
        np.testing.assert_array_equal(
            self.render_once(settings, same_radius[:, :3], radius=0.02, fields={"speed": speed}),
            self.render_once(settings, same_radius, fields={"speed": speed}))


class BadInput(Workspace):
    def test_bad_input_raises_names_the_problem_and_the_next_frame_renders(self):
        xyzr, speed = random_scene(self.rng, 500)
        nan_row = int(self.rng.integers(0, 500))
        with_nan = xyzr.copy()
        with_nan[nan_row, 2] = np.nan
        with_inf = xyzr.copy()
        with_inf[nan_row, 3] = np.inf
        cases = [
            ((xyzr[:, :2],), {"fields": {"speed": speed}}, "expected shape (N, 4)"),
            ((xyzr,), {"radius": 0.1, "fields": {"speed": speed}}, "expected shape (N, 4)"),
            ((with_nan,), {"fields": {"speed": speed}}, f"xyzr row {nan_row}: z is nan"),
            ((with_inf,), {"fields": {"speed": speed}}, f"xyzr row {nan_row}: radius is inf"),
            ((xyzr,), {}, 'field "speed" was not passed with this frame'),
            ((xyzr,), {"fields": {"speed": speed[:-1]}}, 'field "speed": expected shape (500,)'),
            ((xyzr.astype(np.complex64),), {"fields": {"speed": speed}}, "expected real numbers"),
            ((xyzr,), {"fields": {"speed": speed}, "ids": np.arange(3)}, "ids: expected 500"),
            (("not an array",), {"fields": {"speed": speed}}, "xyzr"),
        ]
        settings = random_settings(self.rng, self.path("bad_*.png"))
        settings["color"] = {"field": "speed", "range": [0.0, 2.0]}
        with granray.Renderer(settings) as vis:
            self.assertEqual(vis.fields_needed, ["speed"])
            for step, (args, kwargs, message) in enumerate(cases):
                with self.assertRaises(granray.InputError) as caught:
                    vis.render(step, 0.0, *args, **kwargs)
                self.assertIn(message, str(caught.exception))
                self.assertIsInstance(caught.exception, ValueError)
            self.assertEqual(vis.counters.failed, len(cases))
            record = vis.render(len(cases), 0.0, xyzr, fields={"speed": speed})
            self.assertTrue(record.rendered, record.error)
            vis.finish()
            self.assertEqual(vis.counters.written, 1)
            self.assertEqual(sorted(os.listdir(self.dir.name)), [os.path.basename(record.png_path)])

    def test_colour_selection_and_materials_each_read_a_field_of_their_own(self):
        n = 400
        xyzr = np.column_stack([self.rng.uniform(0, 6, (n, 3)),
                                self.rng.uniform(0.2, 0.4, n)]).astype(np.float32)
        fields = {"speed": self.rng.uniform(0, 2, n).astype(np.float32),
                  "id": np.arange(n, dtype=np.float32),
                  "type": self.rng.integers(0, 3, n).astype(np.float32),
                  "phase": self.rng.integers(0, 3, n).astype(np.float32)}
        settings = random_settings(self.rng, self.path("fields_*.png"))
        settings["color"] = {"field": "speed", "range": [0.0, 2.0]}
        settings["select"] = {"field": "id", "range": [0, n // 2]}
        settings["shading"]["bounces"] = 2
        settings["materials"] = [
            {"name": "steel", "type": "metal", "reflectance": 0.9, "field": "type",
             "range": [1, 1]},
            {"name": "glass", "type": "glass", "field": "phase", "range": [2, 2]}]
        with granray.Renderer(settings) as vis:
            self.assertEqual(vis.fields_needed, ["speed", "id", "type", "phase"])
            record = vis.render(0, 0.0, xyzr, fields=fields)
            self.assertTrue(record.rendered, record.error)
            self.assertEqual(record.hidden, n - (n // 2 + 1))
            without = dict(fields)
            del without["type"]
            with self.assertRaises(granray.InputError) as caught:
                vis.render(1, 0.0, xyzr, fields=without)
            self.assertIn('field "type"', str(caught.exception))

    def test_clumps_gather_into_the_spheres_the_renderer_draws(self):
        # Random clump templates and orientations, as DEM-Engine holds its owners; every
        # component sphere against the rotation matrix of the quaternion in double precision.
        n = 300
        templates, template_of, positions, quat, speed = random_clumps(self.rng, n, 20.0)
        gather = granray.ClumpGather(templates, template_of)
        xyzr, values = gather.gather(positions, quat, speed)
        expected, expected_values = [], []
        for i in range(n):
            x, y, z, w = quat[i].astype(np.float64)
            rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
            offsets, radii = templates[template_of[i]]
            for o, r in zip(offsets.astype(np.float32).astype(np.float64), radii):
                expected.append([*(positions[i] + rot @ o), np.float32(r)])
                expected_values.append(speed[i])
        expected = np.array(expected)
        self.assertEqual(xyzr.shape, expected.shape)
        self.assertEqual(gather.spheres, len(expected))
        np.testing.assert_allclose(xyzr[:, :3], expected[:, :3], rtol=0, atol=2e-5 * 25)
        np.testing.assert_array_equal(xyzr[:, 3], expected[:, 3].astype(np.float32))
        np.testing.assert_array_equal(values, np.array(expected_values, dtype=np.float32))
        settings = random_settings(self.rng, self.path("clumps_*.png"))
        settings["color"] = {"field": "speed", "range": [0.0, 2.0]}
        with granray.Renderer(settings) as vis:
            record = vis.render(0, 0.0, xyzr, fields={"speed": values})
            self.assertTrue(record.rendered, record.error)
            self.assertEqual(record.particles, len(expected))
        with self.assertRaises(granray.ConfigError):
            granray.ClumpGather(templates, [len(templates)])
        with self.assertRaises(granray.InputError) as caught:
            gather.gather(positions[:-1], quat)
        self.assertIn("positions: expected shape (300, 3)", str(caught.exception))

    def test_a_device_array_needs_the_cuda_backend(self):
        class DeviceLike:
            __cuda_array_interface__ = {"shape": (10, 4), "typestr": "<f4", "data": (256, False),
                                        "version": 3, "strides": None}
        with granray.Renderer({"every": 1, "width": 32, "height": 24, "backend": "cpu"}) as vis:
            with self.assertRaisesRegex(granray.InputError, "CUDA device array.*cpu backend"):
                vis.render(0, 0.0, DeviceLike())

    def test_configuration_mistakes_name_the_key(self):
        cases = [({"every": 1, "widht": 5}, "insitu.widht"),
                 ({"every": 1, "width": "wide"}, "insitu.width"),
                 ({"every": 1, "color": {"field": "speed", "colormap": "rainbow"}},
                  "insitu.color.colormap"),
                 ({"every": 1, "width": None}, "insitu.width"),
                 ({"every": 1, "select": {"field": "type", "range": [2, 1]}}, "insitu.select.range")]
        for settings, key in cases:
            with self.assertRaises(granray.ConfigError) as caught:
                granray.Renderer(settings)
            self.assertIn(key, str(caught.exception))
        with self.assertRaisesRegex(granray.ConfigError, "no-such-file.toml"):
            granray.Renderer(self.path("no-such-file.toml"))
        with self.assertRaisesRegex(granray.ConfigError, "offers no field"):
            granray.Renderer({"every": 1, "color": {"field": "speed"}}, fields=["type"])
        with self.assertRaises(TypeError):
            granray.Renderer(42)


class Threads(Workspace):
    def test_the_gil_is_released_while_a_frame_renders(self):
        xyzr, _ = random_scene(self.rng, 200000)
        xyzr[:, 3] *= 0.2
        counter = [0]
        stop = threading.Event()

        def spin():
            while not stop.is_set():
                counter[0] += 1

        settings = {"every": 1, "width": 1280, "height": 960, "backend": "cpu",
                    "shading": {"ao_samples": 16, "samples": 4}}
        with granray.Renderer(settings) as vis:
            thread = threading.Thread(target=spin)
            thread.start()
            try:
                start = time.perf_counter()
                before = counter[0]
                record = vis.render(0, 0.0, xyzr)
                during_render = counter[0] - before
                seconds = time.perf_counter() - start
                before = counter[0]
                time.sleep(seconds)
                during_sleep = counter[0] - before
            finally:
                stop.set()
                thread.join()
        self.assertTrue(record.rendered, record.error)
        self.assertGreater(seconds, 0.05, "the frame must take long enough to measure")
        # Holding the GIL, the spinning thread would not run at all while the frame renders.
        self.assertGreater(during_render, 0.05 * during_sleep,
                           f"{during_render} increments in {seconds:.3f} s of rendering, "
                           f"{during_sleep} in as long asleep")


if __name__ == "__main__":
    unittest.main()
