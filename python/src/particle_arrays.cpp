#include "particle_arrays.h"

#include <pybind11/numpy.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "granray/errors.h"

namespace py = pybind11;

namespace granray::python {
namespace {

std::string shape_text(const std::vector<py::ssize_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

// ---- CUDA device arrays: __cuda_array_interface__ (version 2 or 3), used in place ----------

struct DeviceArray {
  std::uintptr_t data = 0;
  std::vector<py::ssize_t> shape;
  std::string typestr;
  bool contiguous = true;
  void* stream = nullptr;  // the producer's stream, to order our work after its writes
};

std::optional<DeviceArray> device_array(py::handle object) {
  if (object.is_none() || !py::hasattr(object, "__cuda_array_interface__")) return std::nullopt;
  const py::dict cai = object.attr("__cuda_array_interface__");
  DeviceArray array;
  for (const py::handle n : cai["shape"].cast<py::tuple>()) {
    array.shape.push_back(n.cast<py::ssize_t>());
  }
  array.typestr = cai["typestr"].cast<std::string>();
  array.data = cai["data"].cast<py::tuple>()[0].cast<std::uintptr_t>();
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    // Strides equal to the packed ones are contiguous too.
    const py::tuple strides = cai["strides"];
    py::ssize_t expected = static_cast<py::ssize_t>(std::stoi(array.typestr.substr(2)));
    for (std::size_t i = array.shape.size(); i-- > 0;) {
      if (array.shape[i] > 1 && strides[i].cast<py::ssize_t>() != expected) {
        array.contiguous = false;
      }
      expected *= array.shape[i];
    }
  }
  if (cai.contains("stream") && !cai["stream"].is_none()) {
    array.stream = reinterpret_cast<void*>(cai["stream"].cast<std::uintptr_t>());
  }
  return array;
}

const char* in_place_rule() {
  return "a device array is rendered in place, so it must be float32 ('<f4'), C-contiguous, "
         "of shape (N, 4) (x, y, z, radius) and 16-byte aligned";
}

void read_device_arrays(const DeviceArray& xyzr, const ArrayArguments& args,
                        const std::vector<std::string>& needed, BackendKind backend,
                        ParticleArrays& out) {
  if (backend != BackendKind::cuda) {
    throw InputError(std::string("xyzr is a CUDA device array, but this renderer runs on the ") +
                     backend_name(backend) + " backend (set backend = \"cuda\")");
  }
  if (xyzr.shape.size() != 2 || xyzr.shape[1] != 4 || xyzr.typestr != "<f4" || !xyzr.contiguous ||
      xyzr.data % 16 != 0) {
    throw InputError("xyzr: " + std::string(in_place_rule()) + "; got typestr '" + xyzr.typestr +
                     "', shape " + shape_text(xyzr.shape) + (xyzr.contiguous ? "" : ", strided") +
                     (xyzr.data % 16 != 0 ? ", misaligned" : ""));
  }
  if (!args.radius.is_none()) {
    throw InputError("radius= goes with (N, 3) positions; xyzr already holds the radii");
  }
  const auto count = static_cast<std::size_t>(xyzr.shape[0]);
  SimulationParticles& p = out.particles;
  p.view.xyzr = reinterpret_cast<const Vec4*>(xyzr.data);
  p.view.count = count;
  p.view.space = MemorySpace::device;
  p.view.cuda_stream = xyzr.stream;
  for (const std::string& name : needed) {
    const py::dict fields = py::reinterpret_borrow<py::dict>(args.fields);
    const auto field = device_array(fields[py::str(name)]);
    if (!field) {
      throw InputError("field \"" + name +
                       "\" is not a CUDA device array, but the positions are: pass both from "
                       "the same memory");
    }
    if (field->shape != std::vector<py::ssize_t>{xyzr.shape[0]} || field->typestr != "<f4" ||
        !field->contiguous || field->data % 4 != 0) {
      throw InputError("field \"" + name +
                       "\": a device field is read in place, so it must be "
                       "float32 ('<f4'), contiguous, of shape (" +
                       std::to_string(count) + ",); got typestr '" + field->typestr + "', shape " +
                       shape_text(field->shape));
    }
    p.with_field(name, reinterpret_cast<const float*>(field->data));
  }
  if (!args.ids.is_none()) {
    const auto ids = device_array(args.ids);
    if (!ids || ids->shape != std::vector<py::ssize_t>{xyzr.shape[0]} ||
        (ids->typestr != "<u8" && ids->typestr != "<i8") || !ids->contiguous ||
        ids->data % 8 != 0) {
      throw InputError("ids: with device positions, ids must be a contiguous device array of " +
                       std::to_string(count) + " 64-bit integers ('<u8' or '<i8')");
    }
    p.with_ids(reinterpret_cast<const std::uint64_t*>(ids->data));
  }
}

// ---- host arrays (NumPy or anything NumPy reads) -------------------------------------------

py::array numeric_array(py::handle object, const char* what) {
  py::array array;
  try {
    array = py::array::ensure(object);
  } catch (const py::error_already_set&) {
  }
  if (!array) {
    throw InputError(std::string(what) + ": expected an array, got " +
                     py::repr(object).cast<std::string>().substr(0, 80));
  }
  const char kind = array.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw InputError(std::string(what) + ": expected real numbers, got dtype " +
                     py::str(array.dtype()).cast<std::string>());
  }
  return array;
}

std::vector<py::ssize_t> shape_of(const py::array& array) {
  return {array.shape(), array.shape() + array.ndim()};
}

const char* const kColumn[] = {"x", "y", "z", "radius"};

[[noreturn]] void not_finite(std::size_t row, int column, double value) {
  throw InputError("xyzr row " + std::to_string(row) + ": " + kColumn[column] + " is " +
                   std::to_string(value) +
                   " (positions and radii must be finite numbers, as float32)");
}

void check_finite(const Vec4* xyzr, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const float v[4] = {xyzr[i].x, xyzr[i].y, xyzr[i].z, xyzr[i].w};
    for (int c = 0; c < 4; ++c) {
      if (!std::isfinite(v[c])) not_finite(i, c, v[c]);
    }
  }
}

void read_host_positions(const ArrayArguments& args, ParticleArrays& out) {
  const py::array xyzr = numeric_array(args.xyzr, "xyzr");
  const bool has_radius = !args.radius.is_none();
  if (xyzr.ndim() != 2 || xyzr.shape(1) != (has_radius ? 3 : 4)) {
    throw InputError(
        "xyzr: expected shape (N, 4) (x, y, z, radius), or (N, 3) with radius=; "
        "got shape " +
        shape_text(shape_of(xyzr)) + (has_radius ? " with radius=" : ""));
  }
  const auto count = static_cast<std::size_t>(xyzr.shape(0));
  out.keep_alive.push_back(xyzr);
  out.particles.view.count = count;
  out.particles.view.space = MemorySpace::host;

  const bool packed_float4 = !has_radius && xyzr.dtype().is(py::dtype::of<float>()) &&
                             (xyzr.flags() & py::array::c_style) &&
                             reinterpret_cast<std::uintptr_t>(xyzr.data()) % 16 == 0;
  if (packed_float4) {
    out.particles.view.xyzr = static_cast<const Vec4*>(xyzr.data());
    check_finite(out.particles.view.xyzr, count);
    return;
  }
  // Any other dtype or layout: read it as double (exact for every float up to float64) and
  // round once to float32, as a C++ code storing float4 would.
  const auto positions = py::array_t<double, py::array::forcecast>::ensure(xyzr);
  const auto p = positions.unchecked<2>();
  std::optional<double> one_radius;
  py::array_t<double, py::array::forcecast> radii;
  if (has_radius) {
    const py::array r = numeric_array(args.radius, "radius");
    if (r.ndim() == 0) {
      one_radius = py::float_(r).cast<double>();
    } else if (r.ndim() == 1 && static_cast<std::size_t>(r.shape(0)) == count) {
      radii = py::array_t<double, py::array::forcecast>::ensure(r);
    } else {
      throw InputError("radius: expected a number or shape (" + std::to_string(count) + ",) for " +
                       std::to_string(count) + " positions; got shape " + shape_text(shape_of(r)));
    }
  }
  out.packed.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto row = static_cast<py::ssize_t>(i);
    const double r = has_radius ? (one_radius ? *one_radius : radii.at(row)) : p(row, 3);
    const double v[4] = {p(row, 0), p(row, 1), p(row, 2), r};
    float f[4];
    for (int c = 0; c < 4; ++c) {
      f[c] = static_cast<float>(v[c]);
      if (!std::isfinite(f[c])) not_finite(i, c, v[c]);
    }
    out.packed[i] = Vec4{f[0], f[1], f[2], f[3]};
  }
  out.particles.view.xyzr = out.packed.data();
}

void read_host_fields(const ArrayArguments& args, const std::vector<std::string>& needed,
                      ParticleArrays& out) {
  const std::size_t count = out.particles.view.count;
  for (const std::string& name : needed) {
    const py::object object = py::reinterpret_borrow<py::dict>(args.fields)[py::str(name)];
    if (device_array(object)) {
      throw InputError("field \"" + name +
                       "\" is a CUDA device array, but the positions are in host memory: pass "
                       "both from the same memory");
    }
    const py::array given = numeric_array(object, ("field \"" + name + "\"").c_str());
    if (given.ndim() != 1 || static_cast<std::size_t>(given.shape(0)) != count) {
      throw InputError("field \"" + name + "\": expected shape (" + std::to_string(count) +
                       ",), one value per particle; got shape " + shape_text(shape_of(given)));
    }
    const auto values =
        py::array_t<float, py::array::forcecast | py::array::c_style>::ensure(given);
    out.keep_alive.push_back(values);
    out.particles.with_field(name, values.data());
  }
}

void read_host_ids(const ArrayArguments& args, ParticleArrays& out) {
  if (args.ids.is_none()) return;
  const std::size_t count = out.particles.view.count;
  const py::array given = numeric_array(args.ids, "ids");
  if (given.dtype().kind() == 'f' || given.ndim() != 1 ||
      static_cast<std::size_t>(given.shape(0)) != count) {
    throw InputError("ids: expected " + std::to_string(count) + " integers, shape (" +
                     std::to_string(count) + ",); got dtype " +
                     py::str(given.dtype()).cast<std::string>() + ", shape " +
                     shape_text(shape_of(given)));
  }
  const auto wide = py::array_t<std::int64_t, py::array::forcecast>::ensure(given);
  const auto id = wide.unchecked<1>();
  out.id_copy.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t v = id(static_cast<py::ssize_t>(i));
    if (v < 0) {
      throw InputError("ids: id " + std::to_string(v) + " at row " + std::to_string(i) +
                       " is negative");
    }
    out.id_copy[i] = static_cast<std::uint64_t>(v);
  }
  out.particles.with_ids(out.id_copy.data());
}

}  // namespace

void read_particle_arrays(const ArrayArguments& args, const std::vector<std::string>& needed,
                          BackendKind backend, ParticleArrays& out) {
  if (!args.fields.is_none() && !py::isinstance<py::dict>(args.fields)) {
    throw InputError("fields: expected a dict of name -> array");
  }
  for (const std::string& name : needed) {
    if (args.fields.is_none() ||
        !py::reinterpret_borrow<py::object>(args.fields).contains(py::str(name))) {
      // The C++ plugin's words for the same mistake.
      throw InputError("field \"" + name + "\" was not passed with this frame");
    }
  }
  if (const auto device = device_array(args.xyzr)) {
    read_device_arrays(*device, args, needed, backend, out);
    return;
  }
  read_host_positions(args, out);
  read_host_fields(args, needed, out);
  read_host_ids(args, out);
}

}  // namespace granray::python
