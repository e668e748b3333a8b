#include "config_dict.h"

#include <toml++/toml.h>
#include <sstream>

#include "granray/errors.h"

namespace py = pybind11;

namespace granray::python {
namespace {

toml::table table_from_dict(const py::dict& dict, const std::string& path);
toml::array array_from_sequence(const py::handle& items, const std::string& path);

[[noreturn]] void unsupported(const std::string& path, const py::handle& value) {
  throw ConfigError("key '" + path + "': a " +
                    py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>() +
                    " cannot be written in TOML (use bool, int, float, str, list or dict)");
}

// Python's bool is an int and NumPy's scalars are neither: test the exact kinds in this order.
template <class Insert>
void convert(const py::handle& value, const std::string& path, Insert&& insert) {
  if (py::isinstance<py::bool_>(value)) {
    insert(toml::value<bool>(value.cast<bool>()));
  } else if (py::isinstance<py::int_>(value) || py::hasattr(value, "__index__")) {
    insert(toml::value<std::int64_t>(
        py::int_(py::reinterpret_borrow<py::object>(value)).cast<std::int64_t>()));
  } else if (py::isinstance<py::float_>(value) || py::hasattr(value, "__float__")) {
    insert(
        toml::value<double>(py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>()));
  } else if (py::isinstance<py::str>(value)) {
    insert(toml::value<std::string>(value.cast<std::string>()));
  } else if (py::isinstance<py::dict>(value)) {
    insert(table_from_dict(value.cast<py::dict>(), path));
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
             py::hasattr(value, "tolist")) {
    insert(
        array_from_sequence(py::hasattr(value, "tolist") ? value.attr("tolist")() : value, path));
  } else {
    unsupported(path, value);
  }
}

// Not a template: the recursion through lists and dicts then instantiates convert() finitely.
toml::array array_from_sequence(const py::handle& items, const std::string& path) {
  toml::array array;
  std::size_t index = 0;
  for (const py::handle item : items) {
    convert(item, path + "[" + std::to_string(index++) + "]",
            [&](auto&& node) { array.push_back(std::move(node)); });
  }
  return array;
}

toml::table table_from_dict(const py::dict& dict, const std::string& path) {
  toml::table table;
  for (const auto& [key, value] : dict) {
    if (!py::isinstance<py::str>(key)) {
      throw ConfigError("key '" + path + "': its keys must be strings, not " +
                        py::repr(key).cast<std::string>());
    }
    const std::string name = key.cast<std::string>();
    convert(value, path + "." + name,
            [&](auto&& node) { table.insert_or_assign(name, std::move(node)); });
  }
  return table;
}

}  // namespace

std::string insitu_toml_from_dict(const py::dict& insitu) {
  toml::table root;
  root.insert("insitu", table_from_dict(insitu, "insitu"));
  std::ostringstream text;
  text << root;
  return text.str();
}

}  // namespace granray::python
