#include "particle_arrays.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#define GRANRAY_PYTHON_DLPACK 1
#else
#define GRANRAY_PYTHON_DLPACK 0
#endif

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

// ---- CUDA device arrays: __cuda_array_interface__ (version 2 or 3) or DLPack, in place -----

struct DeviceArray {
  std::uintptr_t data = 0;
  std::vector<py::ssize_t> shape;
  std::string typestr;  // as __cuda_array_interface__ writes it: '<f4', '<u8', ...
  bool contiguous = true;
  void* stream = nullptr;        // the producer's stream, to order our work after its writes
  std::shared_ptr<void> holder;  // a DLPack tensor, released (with the GIL held) when done
};

// Whether the strides (bytes for __cuda_array_interface__, elements for DLPack) are those of a
// packed C-order array of `element`-sized items.
template <class Strides>
bool packed_strides(const std::vector<py::ssize_t>& shape, const Strides& stride_of,
                    py::ssize_t element) {
  py::ssize_t expected = element;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] > 1 && stride_of(i) != expected) return false;
    expected *= shape[i];
  }
  return true;
}

std::optional<DeviceArray> cuda_array_interface(py::handle object) {
  const py::dict cai = object.attr("__cuda_array_interface__");
  DeviceArray array;
  for (const py::handle n : cai["shape"].cast<py::tuple>()) {
    array.shape.push_back(n.cast<py::ssize_t>());
  }
  array.typestr = cai["typestr"].cast<std::string>();
  array.data = cai["data"].cast<py::tuple>()[0].cast<std::uintptr_t>();
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    const py::tuple strides = cai["strides"];
    array.contiguous = packed_strides(
        array.shape, [&](std::size_t i) { return strides[i].cast<py::ssize_t>(); },
        static_cast<py::ssize_t>(std::stoi(array.typestr.substr(2))));
  }
  if (cai.contains("stream") && !cai["stream"].is_none()) {
    array.stream = reinterpret_cast<void*>(cai["stream"].cast<std::uintptr_t>());
  }
  return array;
}

#if GRANRAY_PYTHON_DLPACK
std::string dlpack_typestr(const DLDataType& t) {
  const char kind = t.code == kDLFloat  ? 'f'
                    : t.code == kDLInt  ? 'i'
                    : t.code == kDLUInt ? 'u'
                                        : '?';
  return std::string("<") + kind + std::to_string(t.bits / 8 * t.lanes);
}

// A CUDA tensor through DLPack (JAX, and any producer of the array API standard).
std::optional<DeviceArray> dlpack_array(py::handle object) {
  const py::tuple device = object.attr("__dlpack_device__")();
  if (device[0].cast<int>() != kDLCUDA) return std::nullopt;
  py::object capsule;
  try {
    // Stream 1: the producer orders its work before the legacy default stream, ours.
    capsule = object.attr("__dlpack__")(py::arg("stream") = 1);
  } catch (const py::error_already_set&) {
    capsule = object.attr("__dlpack__")();
  }
  auto* tensor = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (tensor == nullptr) throw py::error_already_set();
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");  // ours to release now
  DeviceArray array;
  array.holder = std::shared_ptr<void>(tensor, [](void* t) {
    auto* managed = static_cast<DLManagedTensor*>(t);
    if (managed->deleter != nullptr) managed->deleter(managed);
  });
  const DLTensor& dl = tensor->dl_tensor;
  array.shape.assign(dl.shape, dl.shape + dl.ndim);
  array.typestr = dlpack_typestr(dl.dtype);
  array.data = reinterpret_cast<std::uintptr_t>(dl.data) + dl.byte_offset;
  if (dl.strides != nullptr) {
    array.contiguous = packed_strides(
        array.shape, [&](std::size_t i) { return static_cast<py::ssize_t>(dl.strides[i]); }, 1);
  }
  return array;
}
#endif

std::optional<DeviceArray> device_array(py::handle object) {
  if (object.is_none()) return std::nullopt;
  if (py::hasattr(object, "__cuda_array_interface__")) return cuda_array_interface(object);
#if GRANRAY_PYTHON_DLPACK
  if (py::hasattr(object, "__dlpack_device__")) return dlpack_array(object);
#endif
  return std::nullopt;
}

const char* in_place_rule() {
  return "a device array is rendered in place, so it must be float32 ('<f4'), C-contiguous, "
         "of shape (N, 4) (x, y, z, radius) and 16-byte aligned";
}

// contract 2g: the three arrays of contacts=(first, second, value), or a failure naming them.
std::vector<py::handle> contact_arrays(py::handle contacts) {
  const bool sequence = py::isinstance<py::tuple>(contacts) || py::isinstance<py::list>(contacts);
  if (!sequence || py::len(contacts) != 3) {
    throw InputError(
        "contacts: expected (first, second, value), three (M,) arrays: the pairs' "
        "particle indices and each pair's value");
  }
  const py::sequence items = py::reinterpret_borrow<py::sequence>(contacts);
  return {items[0], items[1], items[2]};
}

const char* const kContactNames[3] = {"first", "second", "value"};

// Device pairs, read in place: 32-bit indices and float32 values, contiguous, of one length.
void read_device_contacts(py::handle contacts, ParticleArrays& out) {
  if (contacts.is_none()) return;
  const std::vector<py::handle> items = contact_arrays(contacts);
  std::uintptr_t data[3] = {0, 0, 0};
  py::ssize_t pairs = -1;
  for (int k = 0; k < 3; ++k) {
    const auto a = device_array(items[k]);
    const bool index = k < 2;
    const bool typed =
        a && (index ? (a->typestr == "<i4" || a->typestr == "<u4") : a->typestr == "<f4");
    if (!typed || a->shape.size() != 1 || !a->contiguous || a->data % 4 != 0 ||
        (pairs >= 0 && a->shape[0] != pairs)) {
      throw InputError(std::string("contacts: with device positions, ") + kContactNames[k] +
                       " must be a contiguous CUDA device array of shape (M,) and dtype " +
                       (index ? "int32 or uint32" : "float32") + ", the three of one length");
    }
    pairs = a->shape[0];
    data[k] = a->data;
    out.holders.push_back(a->holder);
  }
  out.particles.with_contacts(reinterpret_cast<const std::uint32_t*>(data[0]),
                              reinterpret_cast<const std::uint32_t*>(data[1]),
                              reinterpret_cast<const float*>(data[2]),
                              static_cast<std::size_t>(pairs));
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
  out.holders.push_back(xyzr.holder);
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
    out.holders.push_back(field->holder);
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
    out.holders.push_back(ids->holder);
    p.with_ids(reinterpret_cast<const std::uint64_t*>(ids->data));
  }
  read_device_contacts(args.contacts, out);
}

// ---- host arrays (NumPy or anything NumPy reads) -------------------------------------------

// NumPy through its Python API and the buffer protocol only: pybind11's numpy.h of Debian's
// pybind11 (2.10) reads NumPy 1's C structures and crashes with NumPy 2.
struct HostArray {
  py::object array;  // a numpy.ndarray
  char kind = 0;     // dtype.kind
  std::string dtype;
  std::vector<py::ssize_t> shape;
};

py::module_ numpy() { return py::module_::import("numpy"); }

HostArray numeric_array(py::handle object, const std::string& what) {
  HostArray a;
  try {
    a.array = numpy().attr("asarray")(object);
  } catch (const py::error_already_set&) {
  }
  if (!a.array) {
    throw InputError(what + ": expected an array, got " +
                     py::repr(object).cast<std::string>().substr(0, 80));
  }
  const py::object dtype = a.array.attr("dtype");
  a.kind = dtype.attr("kind").cast<std::string>()[0];
  a.dtype = py::str(dtype).cast<std::string>();
  for (const py::handle n : a.array.attr("shape").cast<py::tuple>()) {
    a.shape.push_back(n.cast<py::ssize_t>());
  }
  if (a.kind != 'f' && a.kind != 'i' && a.kind != 'u') {
    throw InputError(what + ": expected real numbers, got dtype " + a.dtype);
  }
  return a;
}

// A C-contiguous copy (or the array itself, when it already is one) of the given dtype, and
// its data pointer.
template <class T>
const T* contiguous(const HostArray& a, const char* dtype, std::vector<py::object>& keep) {
  py::object c = numpy().attr("ascontiguousarray")(a.array, py::arg("dtype") = dtype);
  keep.push_back(c);
  return static_cast<const T*>(py::buffer(c).request().ptr);
}

const char* const kColumn[] = {"x", "y", "z", "radius"};

[[noreturn]] void not_finite(std::size_t row, int column, double value) {
  throw InputError("xyzr row " + std::to_string(row) + ": " + kColumn[column] + " is " +
                   std::to_string(value) +
                   " (positions and radii must be finite numbers, as float32)");
}

void check_finite(const Vec4* xyzr, std::size_t count) {
  // A branch-free pass over the exponent bits first (it vectorises: one pass at memory speed),
  // then, only when something is not finite, the row that says which.
  const auto* bytes = reinterpret_cast<const unsigned char*>(xyzr);
  std::uint32_t all_finite = 1;
  for (std::size_t i = 0; i < 4 * count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, bytes + 4 * i, sizeof bits);
    all_finite &= static_cast<std::uint32_t>((bits & 0x7f800000u) != 0x7f800000u);
  }
  if (all_finite) return;
  for (std::size_t i = 0; i < count; ++i) {
    const float v[4] = {xyzr[i].x, xyzr[i].y, xyzr[i].z, xyzr[i].w};
    for (int c = 0; c < 4; ++c) {
      if (!std::isfinite(v[c])) not_finite(i, c, v[c]);
    }
  }
}

void read_host_positions(const ArrayArguments& args, ParticleArrays& out) {
  const HostArray xyzr = numeric_array(args.xyzr, "xyzr");
  const bool has_radius = !args.radius.is_none();
  if (xyzr.shape.size() != 2 || xyzr.shape[1] != (has_radius ? 3 : 4)) {
    throw InputError(
        "xyzr: expected shape (N, 4) (x, y, z, radius), or (N, 3) with radius=; "
        "got shape " +
        shape_text(xyzr.shape) + (has_radius ? " with radius=" : ""));
  }
  const auto count = static_cast<std::size_t>(xyzr.shape[0]);
  out.keep_alive.push_back(xyzr.array);
  out.particles.view.count = count;
  out.particles.view.space = MemorySpace::host;

  if (!has_radius && xyzr.dtype == "float32" &&
      xyzr.array.attr("flags")["C_CONTIGUOUS"].cast<bool>()) {
    const auto* in_place = static_cast<const Vec4*>(py::buffer(xyzr.array).request().ptr);
    if (reinterpret_cast<std::uintptr_t>(in_place) % alignof(Vec4) == 0) {
      out.particles.view.xyzr = in_place;
      check_finite(in_place, count);
      return;
    }
  }
  // Any other dtype or layout: read it as double (exact for every float up to float64) and
  // round once to float32, as a C++ code storing float4 would.
  const double* p = contiguous<double>(xyzr, "float64", out.keep_alive);
  const std::size_t columns = has_radius ? 3 : 4;
  const double* radii = nullptr;
  double one_radius = 0.0;
  if (has_radius) {
    const HostArray r = numeric_array(args.radius, "radius");
    if (r.shape.empty()) {
      one_radius = py::float_(r.array).cast<double>();
    } else if (r.shape.size() == 1 && static_cast<std::size_t>(r.shape[0]) == count) {
      radii = contiguous<double>(r, "float64", out.keep_alive);
    } else {
      throw InputError("radius: expected a number or shape (" + std::to_string(count) + ",) for " +
                       std::to_string(count) + " positions; got shape " + shape_text(r.shape));
    }
  }
  out.packed.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double* row = p + i * columns;
    const double v[4] = {row[0], row[1], row[2],
                         has_radius ? (radii ? radii[i] : one_radius) : row[3]};
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
    const HostArray given = numeric_array(object, "field \"" + name + "\"");
    if (given.shape.size() != 1 || static_cast<std::size_t>(given.shape[0]) != count) {
      throw InputError("field \"" + name + "\": expected shape (" + std::to_string(count) +
                       ",), one value per particle; got shape " + shape_text(given.shape));
    }
    out.particles.with_field(name, contiguous<float>(given, "float32", out.keep_alive));
  }
}

void read_host_ids(const ArrayArguments& args, ParticleArrays& out) {
  if (args.ids.is_none()) return;
  const std::size_t count = out.particles.view.count;
  const HostArray given = numeric_array(args.ids, "ids");
  if (given.kind == 'f' || given.shape.size() != 1 ||
      static_cast<std::size_t>(given.shape[0]) != count) {
    throw InputError("ids: expected " + std::to_string(count) + " integers, shape (" +
                     std::to_string(count) + ",); got dtype " + given.dtype + ", shape " +
                     shape_text(given.shape));
  }
  const std::int64_t* id = contiguous<std::int64_t>(given, "int64", out.keep_alive);
  out.id_copy.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (id[i] < 0) {
      throw InputError("ids: id " + std::to_string(id[i]) + " at row " + std::to_string(i) +
                       " is negative");
    }
    out.id_copy[i] = static_cast<std::uint64_t>(id[i]);
  }
  out.particles.with_ids(out.id_copy.data());
}

// Host pairs: indices copied to 32 bits (a negative or too large one is refused here), values
// used in place when already float32.
void read_host_contacts(py::handle contacts, ParticleArrays& out) {
  if (contacts.is_none()) return;
  const std::vector<py::handle> items = contact_arrays(contacts);
  std::size_t pairs = 0;
  for (int k = 0; k < 3; ++k) {
    const HostArray given = numeric_array(items[k], std::string("contacts ") + kContactNames[k]);
    const bool index = k < 2;
    if (given.shape.size() != 1 || (index && given.kind != 'i' && given.kind != 'u') ||
        (k > 0 && static_cast<std::size_t>(given.shape[0]) != pairs)) {
      throw InputError(std::string("contacts: ") + kContactNames[k] + " must be an (M,) array of " +
                       (index ? "integers" : "numbers") + ", the three of one length; got dtype " +
                       given.dtype + ", shape " + shape_text(given.shape));
    }
    pairs = static_cast<std::size_t>(given.shape[0]);
    if (!index) {
      out.particles.view.contacts.value = contiguous<float>(given, "float32", out.keep_alive);
      continue;
    }
    const std::int64_t* index_of = contiguous<std::int64_t>(given, "int64", out.keep_alive);
    std::vector<std::uint32_t>& copy = out.pair_copy[k];
    copy.resize(pairs);
    for (std::size_t m = 0; m < pairs; ++m) {
      if (index_of[m] < 0 || index_of[m] > std::int64_t{0xfffffffe}) {
        throw InputError(std::string("contacts: ") + kContactNames[k] + "[" + std::to_string(m) +
                         "] = " + std::to_string(index_of[m]) + " is not a particle index");
      }
      copy[m] = static_cast<std::uint32_t>(index_of[m]);
    }
  }
  out.particles.with_contacts(out.pair_copy[0].data(), out.pair_copy[1].data(),
                              out.particles.view.contacts.value, pairs);
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
  read_host_contacts(args.contacts, out);
}

const float* float_array(py::handle object, std::size_t rows, std::size_t columns,
                         const std::string& what, bool& device, std::vector<py::object>& keep,
                         std::vector<std::shared_ptr<void>>& holders) {
  std::vector<py::ssize_t> expected = {static_cast<py::ssize_t>(rows)};
  if (columns > 0) expected.push_back(static_cast<py::ssize_t>(columns));
  const auto wrong_shape = [&](const std::vector<py::ssize_t>& shape) {
    return InputError(what + ": expected shape " + shape_text(expected) + ", got " +
                      shape_text(shape));
  };
  if (const std::optional<DeviceArray> d = device_array(object)) {
    if (d->shape != expected) throw wrong_shape(d->shape);
    if (d->typestr != "<f4" || !d->contiguous) {
      throw InputError(what + ": a device array must be float32 ('<f4') and C-contiguous, got " +
                       d->typestr);
    }
    if (d->holder) holders.push_back(d->holder);
    device = true;
    return reinterpret_cast<const float*>(d->data);
  }
  const HostArray a = numeric_array(object, what);
  if (a.shape != expected) throw wrong_shape(a.shape);
  device = false;
  return contiguous<float>(a, "float32", keep);
}

}  // namespace granray::python
