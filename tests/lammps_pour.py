"""LAMMPS's pour example (Debian `lammps-examples`) as the LAMMPS tests run it: the input and the
granray settings they draw it with. Shared by tests/lammps_plugin_test.py (fix granray) and
python/tests/test_lammps.py (fix python/invoke)."""

import os
import sys
import unittest

POUR = "/usr/share/doc/lammps-examples/examples/pour/in.pour"

# The tables after [insitu]'s own keys: a lit frame coloured by speed.
_TABLES = """[insitu.camera]
theta = 60.0
phi = 20.0
[insitu.color]
field = "speed"
range = [0.0, 3.0]
[insitu.shading]
shadows = true
outline = 0.1
"""


def settings(insitu_keys):
    """The [insitu] table with `insitu_keys` (lines of "key = value") first: a key's line in the
    file is its place in `insitu_keys` plus one."""
    return "[insitu]\n" + insitu_keys + _TABLES


def pour_head():
    """Debian's in.pour up to its first `run`."""
    with open(POUR) as f:
        text = f.read()
    return text[:text.index("run")]


def missing(modules, install):
    """What a LAMMPS test lacks: Debian's pour, or one of the Python `modules` (`install(name)`
    says how to get it); None when it has everything."""
    if not os.path.exists(POUR):
        return POUR + " (apt install lammps-examples)"
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            return f"the Python module {module} ({install(module)})"
    return None


def main(test, why_not):
    """Runs the calling test file's tests, or exits 77 (ctest: skipped) saying what it lacks."""
    if why_not:
        print(f"{test}: skipped, no {why_not}")
        sys.exit(77)
    unittest.main(module="__main__")
