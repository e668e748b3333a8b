// granray.ClumpGather: clump owners (DEM-Engine's: positions, (x, y, z, w) quaternions, a clump
// template each) to the spheres Renderer.render draws, on the host or on the GPU in place
// (docs/dem-engine.md).
#include "clump_gather_binding.h"

#include <pybind11/numpy.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "granray/clump_gather.h"
#include "granray/errors.h"
#include "particle_arrays.h"

namespace py = pybind11;

namespace granray::python {
namespace {

std::vector<ClumpTemplate> templates_from(const py::sequence& given) {
  std::vector<ClumpTemplate> templates;
  for (std::size_t k = 0; k < given.size(); ++k) {
    const std::string what = "templates[" + std::to_string(k) + "]";
    const py::sequence pair = given[k];
    if (pair.size() != 2) throw InputError(what + ": expected (offsets, radii)");
    std::vector<py::object> keep;
    std::vector<std::shared_ptr<void>> holders;
    bool device_offsets = false, device_radii = false;
    const py::object offsets = py::module_::import("numpy").attr("asarray")(pair[0]);
    const auto n = offsets.attr("shape").cast<py::tuple>()[0].cast<std::size_t>();
    const float* o = float_array(offsets, n, 3, what + " offsets", device_offsets, keep, holders);
    const float* r = float_array(pair[1], n, 0, what + " radii", device_radii, keep, holders);
    // The templates are read here, on the host, once: device arrays cannot serve.
    if (device_offsets || device_radii) {
      throw InputError(what + ": expected host arrays (NumPy), got a CUDA device array");
    }
    ClumpTemplate t;
    for (std::size_t c = 0; c < n; ++c) {
      t.offsets.push_back({o[3 * c], o[3 * c + 1], o[3 * c + 2]});
      t.radii.push_back(r[c]);
    }
    templates.push_back(std::move(t));
  }
  return templates;
}

std::vector<std::uint32_t> ids_from(const py::handle& given) {
  // One pass over the array's buffer: an owner count in the millions iterates in C++, not Python.
  const py::object a =
      py::module_::import("numpy").attr("ascontiguousarray")(given, py::arg("dtype") = "int64");
  const py::buffer_info buffer = py::buffer(a).request();
  const auto* values = static_cast<const std::int64_t*>(buffer.ptr);
  std::vector<std::uint32_t> ids(static_cast<std::size_t>(buffer.size));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (values[i] < 0) {
      throw ConfigError("template_of: template ids are not negative, got " +
                        std::to_string(values[i]));
    }
    ids[i] = static_cast<std::uint32_t>(values[i]);
  }
  return ids;
}

// A view of the gather's device buffer for __cuda_array_interface__ consumers (Renderer.render,
// CuPy): valid until the gather's next call.
py::object device_view(const void* data, std::size_t rows, std::size_t columns) {
  py::dict cai;
  // py::tuple on both sides: newer pybind11 types make_tuple by its elements.
  cai["shape"] =
      columns > 0 ? py::tuple(py::make_tuple(rows, columns)) : py::tuple(py::make_tuple(rows));
  cai["typestr"] = "<f4";
  cai["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(data), true);
  cai["version"] = 3;
  cai["strides"] = py::none();
  py::object view = py::module_::import("types").attr("SimpleNamespace")();
  view.attr("__cuda_array_interface__") = cai;
  return view;
}

// A NumPy array of its own (one copy: array_t copies what it is given without a base).
py::object host_copy(const float* data, std::size_t rows, std::size_t columns) {
  std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(rows)};
  if (columns > 0) shape.push_back(static_cast<py::ssize_t>(columns));
  return py::array_t<float>(shape, data);
}

class PyClumpGather {
 public:
  PyClumpGather(const py::sequence& templates, const py::handle& template_of, bool device)
      : gather_(device ? MemorySpace::device : MemorySpace::host, templates_from(templates),
                ids_from(template_of)),
        device_(device) {}

  py::tuple gather(const py::handle& positions, const py::handle& orientations,
                   const py::handle& values) {
    const std::size_t n = gather_.owners();
    std::vector<py::object> keep;
    std::vector<std::shared_ptr<void>> holders;
    bool on_device[3] = {false, false, device_};
    ClumpOwnersFrame frame;
    frame.positions = float_array(positions, n, 3, "positions", on_device[0], keep, holders);
    frame.orientations = reinterpret_cast<const Vec4*>(
        float_array(orientations, n, 4, "orientations", on_device[1], keep, holders));
    if (!values.is_none()) {
      frame.values = float_array(values, n, 0, "values", on_device[2], keep, holders);
    }
    for (const bool d : on_device) {
      if (d != device_) {
        throw InputError(std::string("this ClumpGather takes ") +
                         (device_ ? "CUDA device arrays" : "host arrays") +
                         " (device=" + (device_ ? "True" : "False") + ")");
      }
    }
    ParticleView view;
    {
      py::gil_scoped_release release;
      view = gather_.gather(frame);
    }
    const std::size_t m = view.count;
    if (device_) {
      return py::make_tuple(device_view(view.xyzr, m, 4),
                            view.scalar ? device_view(view.scalar, m, 0) : py::none());
    }
    return py::make_tuple(host_copy(reinterpret_cast<const float*>(view.xyzr), m, 4),
                          view.scalar ? host_copy(view.scalar, m, 0) : py::none());
  }

  std::size_t owners() const { return gather_.owners(); }
  std::size_t spheres() const { return gather_.spheres(); }

 private:
  ClumpGather gather_;
  bool device_;
};

}  // namespace

void bind_clump_gather(py::module_& m) {
  py::class_<PyClumpGather>(m, "ClumpGather", R"doc(
Clumps as DEM-Engine keeps them, to the spheres Renderer.render draws.

templates: a sequence of (offsets, radii) per clump template: (k, 3) body-frame offsets and
           (k,) radii of its k component spheres.
template_of: (N,) each owner's template index.
device: True for CUDA device arrays (gathered in place on the GPU), False for NumPy.
)doc")
      .def(py::init<const py::sequence&, const py::handle&, bool>(), py::arg("templates"),
           py::arg("template_of"), py::kw_only(), py::arg("device") = false)
      .def("gather", &PyClumpGather::gather, py::arg("positions"), py::arg("orientations"),
           py::arg("values") = py::none(), R"doc(
Every owner's component spheres: returns (xyzr, values), (M, 4) float32 and (M,) or None.

positions: (N, 3) owner positions; orientations: (N, 4) quaternions (x, y, z, w), DEM-Engine's
float4 order; values: optional (N,) value per owner, given to each of its spheres. With
device=True the results are views of the gather's GPU buffer (valid until the next call) that
Renderer.render reads in place; with device=False, NumPy copies.
)doc")
      .def_property_readonly("owners", &PyClumpGather::owners)
      .def_property_readonly("spheres", &PyClumpGather::spheres);
}

}  // namespace granray::python
