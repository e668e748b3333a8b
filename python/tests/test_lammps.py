"""LAMMPS's own pour rendered in situ through fix python/invoke on 1 to 4 ranks.

Each run's frames equal granray-render's frames of the `dump custom` that run wrote at the same
steps; frames of runs whose atoms agree (sorted by id) are byte-identical whatever the number of
ranks. A field LAMMPS cannot give skips frames and the run goes on; a mistake in the settings
stops LAMMPS at the `python` command. Exits 77 (ctest: skipped) without lmp, the lammps Python
package or mpi4py.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import granray

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
import lammps_pour  # noqa: E402 - beside the C++ tests
from lammps_pour import POUR, settings  # noqa: E402

EVERY = 500
STEPS = 1500


def missing():
    if shutil.which("lmp") is None:
        return "lmp (apt install lammps)"
    return lammps_pour.missing(("lammps", "mpi4py"), lambda m: f"apt install python3-{m}")


SETTINGS = settings(f'every = {EVERY}\nwidth = 240\nheight = 180\npng = "frames/insitu_*.png"\n')


def pour_input(settings_file, dump=True):
    """Debian's in.pour, shortened to its first STEPS steps, plus the lines a user adds."""
    with open(POUR) as f:
        text = f.read()
    text = text[:text.index("unfix")]
    text = re.sub(r"^run\s+25000", f"run {STEPS}", text, flags=re.M)
    lines = f'''python granray_frame here """
import granray.lammps
granray_frame = granray.lammps.Frames("{settings_file}")
"""
fix granray all python/invoke {EVERY} end_of_step granray_frame
'''
    if dump:
        lines += (f"dump d all custom {EVERY} dump/pour.*.dump id type radius x y z vx vy vz\n"
                  "dump_modify d format float %.17g\n")
    return text.replace(f"run {STEPS}", lines + f"run {STEPS}", 1)


def run_lammps(work, ranks, settings=SETTINGS, dump=True):
    os.makedirs(os.path.join(work, "dump"), exist_ok=True)
    os.makedirs(os.path.join(work, "frames"), exist_ok=True)
    with open(os.path.join(work, "insitu.toml"), "w") as f:
        f.write(settings)
    with open(os.path.join(work, "in.pour"), "w") as f:
        f.write(pour_input("insitu.toml", dump))
    launcher = [] if ranks == 1 else [os.environ.get("GRANRAY_MPIEXEC", "mpirun"), "-np",
                                      str(ranks), "--oversubscribe"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(launcher + ["lmp", "-in", "in.pour", "-log", "log.lammps",
                                      "-screen", "none"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=600)


def frames(pattern, regex):
    found = {}
    for path in glob.glob(pattern):
        found[int(re.search(regex, path).group(1))] = granray.read_png(path)
    return found


def atoms_at(work, step):
    data = np.loadtxt(os.path.join(work, f"dump/pour.{step}.dump"), skiprows=9)
    return data[np.argsort(data[:, 0])]


class LammpsPour(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="granray-lammps-")
        cls.runs = {}
        for ranks in (1, 2, 3, 4):
            work = os.path.join(cls.dir.name, f"np{ranks}")
            result = run_lammps(work, ranks)
            if result.returncode != 0:
                raise AssertionError(f"lmp on {ranks} ranks failed:\n{result.stderr[-3000:]}")
            cls.runs[ranks] = work

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_in_situ_frames_equal_granray_render_of_the_dump(self):
        steps = list(range(EVERY, STEPS + 1, EVERY))
        for ranks, work in self.runs.items():
            insitu = frames(os.path.join(work, "frames/insitu_*.png"), r"insitu_(\d+)\.png")
            self.assertEqual(sorted(insitu), steps, f"{ranks} ranks")
            os.makedirs(os.path.join(work, "offline"), exist_ok=True)
            offline_run = subprocess.run(
                [os.environ["GRANRAY_RENDER"], "--config", "insitu.toml",
                 *[f"dump/pour.{s}.dump" for s in steps], "--out", "offline/pour_*.png"],
                cwd=work, capture_output=True, text=True)
            self.assertEqual(offline_run.returncode, 0, offline_run.stderr)
            offline = frames(os.path.join(work, "offline/pour_*.png"), r"pour_(\d+)\.png")
            for step in steps:
                differing = int(np.count_nonzero((insitu[step] != offline[step]).any(axis=2)))
                self.assertEqual(differing, 0, f"{ranks} ranks, step {step}")

    def test_frames_of_the_same_atoms_are_identical_on_any_number_of_ranks(self):
        one = self.runs[1]
        reference = frames(os.path.join(one, "frames/insitu_*.png"), r"insitu_(\d+)\.png")
        for ranks in (2, 3, 4):
            work = self.runs[ranks]
            insitu = frames(os.path.join(work, "frames/insitu_*.png"), r"insitu_(\d+)\.png")
            compared = 0
            for step in sorted(reference):
                # LAMMPS itself sums forces in another order on other decompositions: once the
                # grains touch, trajectories part in the last bits. Compare where they agree.
                if not np.array_equal(atoms_at(one, step), atoms_at(work, step)):
                    continue
                np.testing.assert_array_equal(insitu[step], reference[step],
                                              err_msg=f"{ranks} ranks, step {step}")
                compared += 1
            # The first frame is of grains still falling freely: the same atoms everywhere.
            self.assertGreater(compared, 0, f"{ranks} ranks: no step with the same atoms")


class LammpsMistakes(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="granray-lammps-bad-")
        self.addCleanup(self.dir.cleanup)

    def test_a_field_lammps_cannot_give_skips_frames_and_the_run_goes_on(self):
        settings = SETTINGS.replace('field = "speed"', 'field = "v_no_such_variable"')
        for ranks in (1, 2):
            work = os.path.join(self.dir.name, f"np{ranks}")
            result = run_lammps(work, ranks, settings, dump=False)
            self.assertEqual(result.returncode, 0, result.stderr[-3000:])
            with open(os.path.join(work, "log.lammps")) as f:
                self.assertIn(f"Loop time of", f.read())
            skipped = re.findall(r"granray: frame at step (\d+) skipped: (.*)", result.stderr)
            self.assertEqual(sorted({int(s) for s, _ in skipped}),
                             list(range(EVERY, STEPS + 1, EVERY)), result.stderr[-3000:])
            self.assertTrue(any("no_such_variable" in why for _, why in skipped), skipped)
            self.assertEqual(os.listdir(os.path.join(work, "frames")), [])

    def test_a_mistake_in_the_settings_stops_lammps_before_the_run(self):
        settings = SETTINGS.replace("width = 240", "widht = 240")
        work = os.path.join(self.dir.name, "np1")
        result = run_lammps(work, 1, settings, dump=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("unknown key 'insitu.widht'", result.stderr + result.stdout)
        with open(os.path.join(work, "log.lammps")) as f:
            self.assertNotIn("Loop time", f.read())


if __name__ == "__main__":
    lammps_pour.main("test_lammps", missing())
