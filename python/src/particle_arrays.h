// Python arrays (NumPy, or CUDA device arrays through __cuda_array_interface__ or DLPack) as the
// views the in-situ plugin takes. Host arrays already float32 (N, 4) and contiguous are used in
// place; any other dtype or layout is packed into a host copy. Device arrays are only ever used in
// place.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "granray/insitu/simulation_particles.h"
#include "granray/renderer.h"

namespace granray::python {

struct ParticleArrays {
  SimulationParticles particles;  // views into the caller's arrays or the copies below
  std::vector<Vec4> packed;       // host copy of (x, y, z, r) when the input was not packed
  std::vector<std::uint64_t> id_copy;
  std::vector<std::uint32_t> pair_copy[2];     // host contact pairs' indices, as the renderer reads
  std::vector<pybind11::object> keep_alive;    // the arrays viewed, while the frame renders
  std::vector<std::shared_ptr<void>> holders;  // DLPack tensors viewed, released after it
};

struct ArrayArguments {
  pybind11::handle xyzr;
  pybind11::handle radius;  // None, a number, or an (N,) array with (N, 3) positions
  pybind11::handle fields;  // None or a mapping name -> (N,) array
  pybind11::handle ids;     // None or an (N,) array of non-negative integers
  // None or (first, second, value): contract 2g's pairs, (M,) indices into the particles and
  // (M,) values f >= 0, in the same memory as xyzr
  pybind11::handle contacts;
};

// Reads the arrays for one frame, the fields in `needed` only (those the configuration uses).
// Throws InputError saying what is wrong (shape, dtype, a non-finite position, a missing field),
// with the same message as the C++ plugin where it has one.
void read_particle_arrays(const ArrayArguments& args, const std::vector<std::string>& needed,
                          BackendKind backend, ParticleArrays& out);

// A float32 C-contiguous array of shape (rows, columns) (columns 0: shape (rows,)), host (NumPy,
// converted when it is not one; kept alive in `keep`) or CUDA device (in place; a DLPack tensor
// held in `holders`); `device` says which. Throws InputError naming `what` for another shape,
// or a device array of another dtype or layout.
const float* float_array(pybind11::handle object, std::size_t rows, std::size_t columns,
                         const std::string& what, bool& device, std::vector<pybind11::object>& keep,
                         std::vector<std::shared_ptr<void>>& holders);

}  // namespace granray::python
