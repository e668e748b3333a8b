#include "config_dict.h"

#include "granray/errors.h"

namespace py = pybind11;

namespace granray::python {
namespace {

ConfigValue::Table table_from_dict(const py::dict& dict, const std::string& path);

[[noreturn]] void unsupported(const std::string& path, const py::handle& value) {
  throw ConfigError("key '" + path + "': a " +
                    py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>() +
                    " cannot be written in TOML (use bool, int, float, str, list or dict)");
}

// Python's bool is an int and NumPy's scalars are neither: test the exact kinds in this order.
ConfigValue value_from(const py::handle& value, const std::string& path) {
  const auto object = py::reinterpret_borrow<py::object>(value);
  if (py::isinstance<py::bool_>(value)) return {value.cast<bool>()};
  if (py::isinstance<py::int_>(value) || py::hasattr(value, "__index__")) {
    return {py::int_(object).cast<std::int64_t>()};
  }
  if (py::isinstance<py::float_>(value) || py::hasattr(value, "__float__")) {
    return {py::float_(object).cast<double>()};
  }
  if (py::isinstance<py::str>(value)) return {value.cast<std::string>()};
  if (py::isinstance<py::dict>(value)) return {table_from_dict(value.cast<py::dict>(), path)};
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
      py::hasattr(value, "tolist")) {
    const py::object items = py::hasattr(value, "tolist") ? object.attr("tolist")() : object;
    ConfigValue::Array array;
    for (const py::handle item : items) {
      array.push_back(value_from(item, path + "[" + std::to_string(array.size()) + "]"));
    }
    return {std::move(array)};
  }
  unsupported(path, value);
}

ConfigValue::Table table_from_dict(const py::dict& dict, const std::string& path) {
  ConfigValue::Table table;
  for (const auto& [key, value] : dict) {
    if (!py::isinstance<py::str>(key)) {
      throw ConfigError("key '" + path + "': its keys must be strings, not " +
                        py::repr(key).cast<std::string>());
    }
    const std::string name = key.cast<std::string>();
    table.emplace_back(name, value_from(value, path + "." + name));
  }
  return table;
}

}  // namespace

ConfigValue::Table insitu_table_from_dict(const py::dict& insitu) {
  return table_from_dict(insitu, "insitu");
}

}  // namespace granray::python
