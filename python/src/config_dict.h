// A Python dict shaped like the [insitu] table, as the configuration reader's table of values.
#pragma once

#include <pybind11/pybind11.h>

#include "granray/insitu/config.h"

namespace granray::python {

// `{"every": 1000, "camera": {"fov": 30}}`: values may be bool, int, float, str, lists/tuples
// (or anything with tolist(), as NumPy arrays) of those, and dicts (subtables); lists of dicts
// are arrays of tables ([[insitu.walls]]). Anything else throws ConfigError naming the key
// ("insitu.camera.fov").
ConfigValue::Table insitu_table_from_dict(const pybind11::dict& insitu);

}  // namespace granray::python
