// Adapters from a simulation's raw buffers to granray::SimulationParticles. Nothing is copied:
// the views point at the simulation's memory, which must stay valid during InsituRenderer::render.
#pragma once

#include <cstddef>

#include "granray/insitu/simulation_particles.h"

namespace granray::adapters {

namespace detail {
template <class Float4>
const Vec4* as_xyzr(const Float4* xyzr) {
  static_assert(sizeof(Float4) == sizeof(Vec4) && alignof(Float4) == alignof(Vec4),
                "positions must be float4-like: x, y, z, radius, 16-byte aligned");
  return reinterpret_cast<const Vec4*>(xyzr);
}
}  // namespace detail

// A CUDA code's device-resident float4 (x, y, z, radius) array; rendered in place on the CUDA
// backend, on `cuda_stream` (a cudaStream_t; null = the default stream).
template <class Float4>
SimulationParticles device_particles(const Float4* xyzr, std::size_t count,
                                     void* cuda_stream = nullptr) {
  SimulationParticles p;
  p.view.xyzr = detail::as_xyzr(xyzr);
  p.view.count = count;
  p.view.space = MemorySpace::device;
  p.view.cuda_stream = cuda_stream;
  return p;
}

// A CPU code's host array: used in place by the CPU backend, copied to the GPU by the CUDA one.
template <class Float4>
SimulationParticles host_particles(const Float4* xyzr, std::size_t count) {
  SimulationParticles p;
  p.view.xyzr = detail::as_xyzr(xyzr);
  p.view.count = count;
  p.view.space = MemorySpace::host;
  return p;
}

}  // namespace granray::adapters
