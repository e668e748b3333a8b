// The example DEM: spheres poured into a box, on the CPU (Thrust OpenMP) or a GPU (Thrust CUDA)
// from one source (dem_kernels.h, dem_backend.inl).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "dem_kernels.h"
#include "dem_params.h"
#include "granray/insitu/simulation_particles.h"

namespace granray::dem {

class DemSimulation {
 public:
  virtual ~DemSimulation() = default;

  // Places params.particles grains on a jittered lattice from params.pour_height upward.
  // Throws ConfigError when they do not fit in the box.
  static std::unique_ptr<DemSimulation> create(const DemParams& params);
  // The same, from given positions (x, y, z, r) and velocities, e.g. for tests.
  static std::unique_ptr<DemSimulation> create(const DemParams& params,
                                               const std::vector<Vec4>& positions,
                                               const std::vector<Vec3>& velocities);

  virtual BackendKind backend() const = 0;
  virtual std::int64_t step_count() const = 0;
  virtual double time() const = 0;
  virtual std::size_t size() const = 0;

  // Advances one time step.
  virtual void step() = 0;

  // The grains as the in-situ renderer reads them, in this backend's memory, with the field
  // "speed" (|v|, recomputed by this call). Valid until the next step().
  virtual SimulationParticles particles() = 0;

  // Host copies and reductions, for tests and diagnostics.
  virtual std::vector<Vec4> positions() const = 0;
  virtual std::vector<Vec4> velocities() const = 0;
  virtual Energy energy() = 0;
};

namespace detail {
std::unique_ptr<DemSimulation> make_cpu_dem(const DemParams& params,
                                            const std::vector<Vec4>& positions,
                                            const std::vector<Vec3>& velocities);
std::unique_ptr<DemSimulation> make_cuda_dem(const DemParams& params,
                                             const std::vector<Vec4>& positions,
                                             const std::vector<Vec3>& velocities);
}  // namespace detail

}  // namespace granray::dem
