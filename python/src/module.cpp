// granray._granray: the in-situ plugin for Python (the package granray re-exports it).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clump_gather_binding.h"
#include "config_dict.h"
#include "granray/errors.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/image_file.h"
#include "particle_arrays.h"
#ifdef GRANRAY_PYTHON_MPI
#include <mpi.h>

#include "granray/insitu/mpi_frame.h"
#endif

namespace py = pybind11;

namespace granray::python {
namespace {

InsituConfig config_from(const py::object& config, const std::vector<std::string>& overrides) {
  if (py::isinstance<py::dict>(config)) {
    return insitu_config_from_table(insitu_table_from_dict(config.cast<py::dict>()),
                                    "granray.Renderer(config=dict)", overrides);
  }
  if (py::isinstance<py::str>(config) || py::hasattr(config, "__fspath__")) {
    const std::string path = py::module_::import("os").attr("fspath")(config).cast<std::string>();
    return load_insitu_config(path, overrides);
  }
  throw py::type_error("config: expected a TOML file path or a dict shaped like [insitu], got " +
                       py::repr(config).cast<std::string>());
}

// The fields a configuration reads: what the simulation must pass with each frame.
std::vector<std::string> fields_needed(const InsituConfig& config) {
  std::vector<std::string> names;
  for (const FieldKey& named : field_keys(config)) {
    if (std::find(names.begin(), names.end(), named.field) == names.end()) {
      names.push_back(named.field);
    }
  }
  return names;
}

std::shared_ptr<RankGroup> ranks_from(const py::object& comm) {
  if (comm.is_none()) return nullptr;
#ifdef GRANRAY_PYTHON_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    throw Error("comm: MPI is not initialised (import mpi4py, or run inside LAMMPS)");
  }
  // mpi4py's Comm (or anything with py2f) or a Fortran handle: neither needs mpi4py's C API.
  const py::object handle = py::hasattr(comm, "py2f") ? comm.attr("py2f")() : comm;
  return mpi::rank_group(MPI_Comm_f2c(handle.cast<MPI_Fint>()));
#else
  throw Error("comm: this granray module was built without MPI");
#endif
}

class PyRenderer {
 public:
  PyRenderer(const py::object& config, const std::optional<std::vector<std::string>>& fields,
             const std::vector<std::string>& overrides, const py::object& comm)
      : comm_(comm) {
    InsituConfig parsed = config_from(config, overrides);
    needed_ = fields_needed(parsed);
    const std::vector<std::string> offered = fields ? *fields : needed_;
    std::shared_ptr<RankGroup> ranks = ranks_from(comm);
    py::gil_scoped_release release;  // collective under MPI: others may wait here
    plugin_ = std::make_unique<InsituRenderer>(std::move(parsed), offered, std::move(ranks));
  }

  bool due(std::int64_t step, double time) const { return live().due(step, time); }

  FrameRecord render(std::int64_t step, double time, const py::handle& xyzr,
                     const py::handle& radius, const py::handle& fields, const py::handle& ids,
                     const py::handle& contacts) {
    InsituRenderer& plugin = live();
    if (!plugin.due(step, time)) return plugin.render(step, time, SimulationParticles{});
    ParticleArrays arrays;
    try {
      read_particle_arrays({xyzr, radius, fields, ids, contacts}, needed_, plugin.backend(),
                           arrays);
    } catch (const InputError& e) {
      // Still take part, so that under MPI every rank skips the frame together.
      arrays = ParticleArrays{};
      arrays.particles.unusable = e.what();
    }
    FrameRecord record;
    {
      py::gil_scoped_release release;
      record = plugin.render(step, time, arrays.particles);
    }
    if (!arrays.particles.unusable.empty()) throw InputError(arrays.particles.unusable);
    return record;
  }

  // A frame this rank cannot take part in: under MPI the others skip it too, and wait for no one.
  FrameRecord skip(std::int64_t step, double time, const std::string& reason) {
    InsituRenderer& plugin = live();
    SimulationParticles nothing;
    nothing.unusable = reason.empty() ? "skipped by the simulation" : reason;
    if (!plugin.due(step, time)) nothing.unusable.clear();
    py::gil_scoped_release release;
    return plugin.render(step, time, nothing);
  }

  InsituCounters counters() const { return live().counters(); }

  void finish() {
    InsituRenderer& plugin = live();
    py::gil_scoped_release release;
    plugin.finish();
  }

  // Writes what is queued and lets go of the files (and, under MPI, of the communicator).
  void close() {
    if (!plugin_) return;
    py::gil_scoped_release release;
    plugin_.reset();
  }

  const InsituConfig& config() const { return live().config(); }
  const std::vector<std::string>& needed() const { return needed_; }
  std::string backend() const { return backend_name(live().backend()); }

 private:
  InsituRenderer& live() const {
    if (!plugin_) throw Error("this granray.Renderer is closed");
    return *plugin_;
  }

  py::object comm_;  // keeps an mpi4py communicator alive as long as its handle is used
  std::vector<std::string> needed_;
  std::unique_ptr<InsituRenderer> plugin_;
};

// Through NumPy's Python API, not pybind11's numpy.h (see particle_arrays.cpp).
py::object png_pixels(const std::string& path) {
  Image image = io::read_png(path);
  const py::bytes bytes(reinterpret_cast<const char*>(image.rgb.data()), image.rgb.size());
  return py::module_::import("numpy")
      .attr("frombuffer")(bytes, py::arg("dtype") = "uint8")
      .attr("reshape")(image.height, image.width, 3)
      .attr("copy")();
}

}  // namespace
}  // namespace granray::python

PYBIND11_MODULE(_granray, m) {
  using namespace granray;
  using granray::python::PyRenderer;
  m.doc() = "granray: ray-cast DEM particles in situ, from NumPy or CUDA device arrays";
  m.attr("__version__") = GRANRAY_VERSION;

  // Base first: pybind11 tries the translators registered last first.
  const auto& error = py::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  py::register_exception<ConfigError>(m, "ConfigError", PyExc_ValueError);
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<OutputError>(m, "OutputError", PyExc_OSError);
  py::register_exception<DeviceError>(m, "DeviceError", error.ptr());
  py::register_exception<OutOfMemoryError>(m, "OutOfMemoryError", PyExc_MemoryError);

  py::class_<FrameRecord>(m, "FrameRecord", "What became of one call to Renderer.render")
      .def_readonly("step", &FrameRecord::step)
      .def_readonly("time", &FrameRecord::time)
      .def_readonly("rendered", &FrameRecord::rendered)
      .def_readonly("error", &FrameRecord::error, "why the frame was skipped ('' if it was not)")
      .def_readonly("dropped", &FrameRecord::dropped)
      .def_readonly("png_path", &FrameRecord::png_path)
      .def_readonly("output_ms", &FrameRecord::output_ms)
      .def_property_readonly("particles", [](const FrameRecord& r) { return r.stats.particles; })
      .def_property_readonly("skipped", [](const FrameRecord& r) { return r.stats.skipped; })
      .def_property_readonly("hidden", [](const FrameRecord& r) { return r.stats.hidden; })
      .def_property_readonly(
          "contacts", [](const FrameRecord& r) { return r.stats.contacts; },
          "contact pairs drawn as capsules ([insitu.contacts])")
      .def_property_readonly(
          "contacts_skipped", [](const FrameRecord& r) { return r.stats.contacts_skipped; },
          "pairs left out: a broken grain, no such particle, a bad value")
      .def_property_readonly("grid_ms", [](const FrameRecord& r) { return r.stats.grid_ms; })
      .def_property_readonly("render_ms", [](const FrameRecord& r) { return r.stats.render_ms; })
      .def_property_readonly("composite_ms",
                             [](const FrameRecord& r) { return r.stats.composite_ms; })
      .def_property_readonly("total_ms", [](const FrameRecord& r) { return r.stats.total_ms; })
      .def_property_readonly("color_range",
                             [](const FrameRecord& r) -> py::object {
                               if (!r.stats.colored) return py::none();
                               return py::make_tuple(r.stats.color_lo, r.stats.color_hi);
                             })
      .def("__bool__", [](const FrameRecord& r) { return r.rendered; })
      .def("__repr__", [](const FrameRecord& r) {
        return "<granray.FrameRecord step=" + std::to_string(r.step) +
               (r.rendered ? " rendered, " + std::to_string(r.stats.particles) + " particles in " +
                                 std::to_string(r.stats.total_ms) + " ms"
                           : (r.error.empty() ? " not due" : " skipped: " + r.error)) +
               ">";
      });

  py::class_<InsituCounters>(m, "Counters", "Frames so far, as InsituRenderer counts them")
      .def_readonly("rendered", &InsituCounters::rendered)
      .def_readonly("failed", &InsituCounters::failed)
      .def_readonly("written", &InsituCounters::written)
      .def_readonly("dropped", &InsituCounters::dropped)
      .def_readonly("lost", &InsituCounters::lost)
      .def_readonly("render_ms", &InsituCounters::render_ms)
      .def_readonly("output_ms", &InsituCounters::output_ms);

  py::class_<PyRenderer>(m, "Renderer", R"doc(
The in-situ plugin: renders particles at the steps the [insitu] settings ask for.

config: a TOML file path (its [insitu] table is read) or a dict shaped like that table.
fields: the scalars the simulation offers (default: those the configuration names).
overrides: "key=value" strings, as granray-render --set.
comm: an mpi4py communicator (or its Fortran handle): every rank renders its own particles
      and the frame is composited over the ranks; MPI must already be initialised.
)doc")
      .def(py::init<const py::object&, const std::optional<std::vector<std::string>>&,
                    const std::vector<std::string>&, const py::object&>(),
           py::arg("config"), py::kw_only(), py::arg("fields") = py::none(),
           py::arg("overrides") = std::vector<std::string>{}, py::arg("comm") = py::none())
      .def("due", &PyRenderer::due, py::arg("step"), py::arg("time") = 0.0,
           "Whether a frame is due at this step (cheap: call it every step)")
      .def("render", &PyRenderer::render, py::arg("step"), py::arg("time"), py::arg("xyzr"),
           py::kw_only(), py::arg("radius") = py::none(), py::arg("fields") = py::none(),
           py::arg("ids") = py::none(), py::arg("contacts") = py::none(), R"doc(
Renders and writes the frame if it is due; returns its FrameRecord.

xyzr: (N, 4) x, y, z, radius, or (N, 3) positions with radius= (a number or (N,) array); any
      real dtype and strides (NumPy), or a CUDA device array (__cuda_array_interface__: CuPy,
      Numba, PyTorch, Warp) of float32 (N, 4), rendered in place without a host copy.
fields: {"speed": values, ...}, (N,) arrays in the same memory as xyzr.
ids: (N,) non-negative integers, the particles' global ids (needed for images that do not
     depend on the number of ranks when particles migrate).
contacts: (first, second, value), three (M,) arrays: each contact pair's particle indices into
     xyzr and its value f >= 0 (the contact force), drawn by [insitu.contacts] as the force
     network; in the same memory as xyzr (device arrays of int32/uint32 and float32 are read in
     place).
Raises InputError for this rank's bad input (the frame is then skipped on every rank). Any
other failure (no memory, a full disk, another rank's bad input) skips the frame without
raising: the record's `error` says why.
)doc")
      .def("skip", &PyRenderer::skip, py::arg("step"), py::arg("time"), py::arg("reason"),
           "Skips a due frame with this reason (logged); collective under MPI, like render()")
      .def("finish", &PyRenderer::finish, "Waits until every frame handed over is written")
      .def("close", &PyRenderer::close, "Writes what is queued and closes the output")
      // The object itself, not a copy (a PyRenderer& would be returned by value).
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyRenderer& r, py::args) { r.close(); })
      .def_property_readonly("counters", &PyRenderer::counters)
      .def_property_readonly("fields_needed", &PyRenderer::needed,
                             "The fields the configuration reads: pass these to render()")
      .def_property_readonly("backend", &PyRenderer::backend)
      .def_property_readonly("every", [](const PyRenderer& r) { return r.config().every; })
      .def_property_readonly("width", [](const PyRenderer& r) { return r.config().render.width; })
      .def_property_readonly("height", [](const PyRenderer& r) { return r.config().render.height; })
      .def_property_readonly("config_text",
                             [](const PyRenderer& r) { return r.config().table_text; });

  granray::python::bind_clump_gather(m);
  m.def("read_png", &granray::python::png_pixels, py::arg("path"),
        "A PNG written by granray as an (H, W, 3) uint8 array");
  m.def("cuda_devices", &cuda_device_count, "How many CUDA devices the CUDA backend can use");
}
