// A Python dict shaped like the [insitu] table, as the TOML text the configuration reader takes.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace granray::python {

// `{"every": 1000, "camera": {"fov": 30}}` -> "[insitu]\nevery = 1000\n[insitu.camera]...".
// Values may be bool, int, float, str, lists/tuples of those, and dicts (subtables); lists of
// dicts become arrays of tables ([[insitu.walls]]). Anything else throws ConfigError naming the
// key ("insitu.camera.fov").
std::string insitu_toml_from_dict(const pybind11::dict& insitu);

}  // namespace granray::python
