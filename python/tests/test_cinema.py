"""A Cinema database written in situ through the Python module, read back by pycinema.

Run by ctest (python.cinema) with PYTHONPATH at the build's python/ directory. The module writes
the database ([insitu.orbit] with cinema); pycinema's CinemaDatabaseReader (PyPI) then reads it
in any Python on PATH that has it, and every row must name an image that is there. Exit 77 (a
skip, saying why) when no Python here has pycinema.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import granray

SEED = int(os.environ.get("GRANRAY_TEST_SEED", time.time_ns() % 2**32))
print(f"test_cinema: seed {SEED}", flush=True)

READER = """
import sys
import pycinema.filters
reader = pycinema.filters.CinemaDatabaseReader()
reader.inputs.path.set(sys.argv[1], False)
reader.update()
table = reader.outputs.table.get()
print(repr(table[0]))
for row in table[1:]:
    print(repr(row))
"""


def python_with_pycinema():
    for python in dict.fromkeys([os.environ.get("GRANRAY_PYCINEMA_PYTHON", ""), sys.executable,
                                 shutil.which("python3") or "", "/usr/bin/python3"]):
        if python and subprocess.run([python, "-c", "import pycinema.filters"],
                                     capture_output=True).returncode == 0:
            return python
    return None


def main():
    python = python_with_pycinema()
    if python is None:
        print("test_cinema: skipped: no Python on PATH has pycinema (pip install pycinema)")
        return 77
    rng = np.random.default_rng(SEED)
    thetas = sorted({float(round(rng.uniform(10, 170), 1)) for _ in range(2)})
    phi_count = int(rng.integers(2, 5))
    steps = [0, int(rng.integers(1, 100)), int(rng.integers(100, 200))]
    with tempfile.TemporaryDirectory() as tmp:
        cdb = os.path.join(tmp, "run.cdb")
        vis = granray.Renderer({"every": 1, "width": 48, "height": 36, "backend": "cpu",
                                "orbit": {"theta": thetas, "phi_count": phi_count,
                                          "cinema": cdb}})
        n = 500
        xyzr = np.ascontiguousarray(
            np.c_[rng.uniform(-1, 1, (n, 3)), rng.uniform(0.02, 0.05, n)].astype(np.float32))
        for step in steps:
            vis.render(step, 0.25 * step, xyzr)
        vis.finish()
        out = subprocess.run([python, "-c", READER, cdb], capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr)
            return 1
        rows = [eval(line) for line in out.stdout.splitlines() if line.startswith("[")]
        header, rows = rows[0], rows[1:]
        failures = []
        for column in ("time", "step", "theta", "phi", "FILE"):
            if column not in header:
                failures.append(f"pycinema sees no column {column}: {header}")
        if len(rows) != len(steps) * len(thetas) * phi_count:
            failures.append(f"{len(rows)} rows for {len(steps)} frames of "
                            f"{len(thetas) * phi_count} angles")
        for row in rows:
            record = dict(zip(header, row))
            path = record["FILE"]
            if not os.path.isabs(path):
                path = os.path.join(cdb, path)
            if not os.path.isfile(path):
                failures.append(f"row {row} names a missing image")
            if int(record["step"]) not in steps:
                failures.append(f"row {row} has a step never rendered")
        for f in failures:
            print("FAIL:", f)
        print(f"test_cinema: {len(rows)} rows read by pycinema ({python})")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
