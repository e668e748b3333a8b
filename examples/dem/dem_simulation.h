// The example DEM: spheres poured into a box, on the CPU (Thrust OpenMP) or a GPU (Thrust CUDA)
// from one source (dem_kernels.h, dem_backend.inl), on one rank or on slabs across MPI ranks
// (dem_slabs.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "dem_kernels.h"
#include "dem_params.h"
#include "dem_slabs.h"
#include "granray/insitu/simulation_particles.h"

namespace granray::dem {

class DemSimulation {
 public:
  virtual ~DemSimulation() = default;

  // Places params.particles grains on a jittered lattice from params.pour_height upward.
  // Throws ConfigError when they do not fit in the box. With `slabs`, every rank calls it with
  // the same parameters and keeps the grains of its slab (collective).
  static std::unique_ptr<DemSimulation> create(const DemParams& params,
                                               std::shared_ptr<SlabExchange> slabs = nullptr);
  // The same, from given positions (x, y, z, r) and velocities of all grains (ids: their
  // indices), e.g. for tests.
  static std::unique_ptr<DemSimulation> create(const DemParams& params,
                                               const std::vector<Vec4>& positions,
                                               const std::vector<Vec3>& velocities,
                                               std::shared_ptr<SlabExchange> slabs = nullptr);

  virtual BackendKind backend() const = 0;
  virtual std::int64_t step_count() const = 0;
  virtual double time() const = 0;
  // Grains this rank owns (all of them on one rank), and ghosts copied from neighbours.
  virtual std::size_t size() const = 0;
  virtual std::size_t ghosts() const = 0;
  // Grains that arrived from neighbouring slabs since the start.
  virtual std::uint64_t migrated() const = 0;

  // Advances one time step (collective with slabs).
  virtual void step() = 0;

  // This rank's grains as the in-situ renderer reads them, in this backend's memory, with their
  // global ids and the field "speed" (|v|, recomputed by this call). Valid until the next step().
  virtual SimulationParticles particles() = 0;
  // contract 2g: particles() also passes the contact pairs of this rank's grains (each pair once
  // across ranks, given whole), with their normal force (a pass over the contacts each frame, so
  // only when asked).
  virtual void pass_contacts(bool on) = 0;

  // Host copies of this rank's grains, for tests and diagnostics.
  virtual std::vector<Vec4> positions() const = 0;
  virtual std::vector<Vec4> velocities() const = 0;
  virtual std::vector<std::uint64_t> ids() const = 0;
  // Over all ranks (collective with slabs).
  virtual Energy energy() = 0;
};

namespace detail {
// What a backend starts from: this rank's grains, and the grid and slabs all ranks share.
struct DemStart {
  std::vector<Vec4> positions;
  std::vector<Vec3> velocities;
  std::vector<std::uint64_t> ids;
  ContactGrid grid;                     // the whole box's
  std::shared_ptr<SlabExchange> slabs;  // null on one rank
};
std::unique_ptr<DemSimulation> make_cpu_dem(const DemParams& params, DemStart start);
std::unique_ptr<DemSimulation> make_cuda_dem(const DemParams& params, DemStart start);
}  // namespace detail

}  // namespace granray::dem
