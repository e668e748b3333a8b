// granray.ClumpGather in the Python module (clump_gather_binding.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace granray::python {

void bind_clump_gather(pybind11::module_& m);

}  // namespace granray::python
