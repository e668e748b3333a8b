// The example DEM's time stepping, written once. Included by dem_cpu.cpp and dem_cuda.cu after
// each defines, in namespace granray::dem::GRANRAY_DEM_BACKEND: Vector<T> (a Thrust vector of
// that system), policy(), and kBackend / kSpace.
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cmath>

#include "dem_simulation.h"

namespace granray::dem::GRANRAY_DEM_BACKEND {

using Index = thrust::counting_iterator<std::uint32_t>;

template <class T>
T* raw(Vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <class T>
const T* raw(const Vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

class Dem final : public DemSimulation {
 public:
  Dem(const DemParams& p, const std::vector<Vec4>& positions, const std::vector<Vec3>& velocities)
      : params_(p), n_(static_cast<std::uint32_t>(positions.size())) {
    const double pi = 3.14159265358979323846;
    std::vector<Vec4> vel(n_), spin(n_);
    float r_max = 0.0f;
    for (std::uint32_t i = 0; i < n_; ++i) {
      const double r = positions[i].w;
      const double m = p.density * 4.0 / 3.0 * pi * r * r * r;
      vel[i] = {velocities[i].x, velocities[i].y, velocities[i].z, static_cast<float>(1.0 / m)};
      spin[i] = {0.0f, 0.0f, 0.0f, static_cast<float>(1.0 / (0.4 * m * r * r))};
      r_max = std::max(r_max, positions[i].w);
    }
    pos_.assign(positions.begin(), positions.end());
    vel_.assign(vel.begin(), vel.end());
    spin_.assign(spin.begin(), spin.end());
    force_.resize(n_);
    torque_.resize(n_);
    keys_.resize(n_);
    sorted_.resize(n_);
    speed_.resize(n_);

    // Cells of one largest diameter, coarser when the box is mostly empty: at most ~8 per grain.
    const float volume = p.box.x * p.box.y * p.box.z;
    const float cell =
        std::max({2.0f * r_max, std::cbrt(volume / (8.0f * std::max(n_, 1u))), 1e-6f});
    grid_.box = p.box;
    grid_.inv_cell = 1.0f / cell;
    for (int a = 0; a < 3; ++a) {
      grid_.dims[a] = std::max(1, static_cast<int>(std::ceil(component(p.box, a) / cell)));
    }
    const std::size_t cells = std::size_t(grid_.dims[0]) * grid_.dims[1] * grid_.dims[2];
    cell_start_.resize(cells);
    cell_end_.resize(cells);
    const double log_e = std::log(static_cast<double>(p.restitution));
    law_ = {p.stiffness, static_cast<float>(-2.0 * log_e / std::sqrt(log_e * log_e + pi * pi)),
            p.friction};
    find_neighbours();
    compute_forces();
  }

  BackendKind backend() const override { return kBackend; }
  std::int64_t step_count() const override { return steps_; }
  double time() const override { return static_cast<double>(steps_) * params_.dt; }
  std::size_t size() const override { return n_; }

  void step() override {
    const auto dt = static_cast<float>(params_.dt);
    thrust::for_each_n(
        policy(), Index(0), n_,
        KickDrift{{raw(vel_), raw(spin_), raw(force_), raw(torque_), dt}, raw(pos_)});
    find_neighbours();
    compute_forces();
    thrust::for_each_n(policy(), Index(0), n_,
                       Kick{raw(vel_), raw(spin_), raw(force_), raw(torque_), dt});
    ++steps_;
  }

  SimulationParticles particles() override {
    thrust::transform(policy(), Index(0), Index(n_), speed_.begin(), Speed{raw(vel_)});
    SimulationParticles p;
    p.view.xyzr = raw(pos_);
    p.view.count = n_;
    p.view.space = kSpace;
    p.with_field("speed", raw(speed_));
    return p;
  }

  std::vector<Vec4> positions() const override { return to_host(pos_); }
  std::vector<Vec4> velocities() const override { return to_host(vel_); }

  Energy energy() override {
    return thrust::transform_reduce(policy(), Index(0), Index(n_), EnergyOf{state()},
                                    Energy{0.0, 0.0, 0.0f, INFINITY}, MergeEnergy{});
  }

 private:
  static std::vector<Vec4> to_host(const Vector<Vec4>& v) {
    std::vector<Vec4> out(v.size());
    thrust::copy(v.begin(), v.end(), out.begin());
    return out;
  }

  DemState state() const {
    return {raw(pos_),      raw(vel_), raw(spin_), raw(sorted_),   raw(cell_start_),
            raw(cell_end_), grid_,     law_,       params_.gravity};
  }

  // Seed 001, section I.A: hash every grain to its cell, sort by cell, mark each cell's range.
  void find_neighbours() {
    thrust::transform(policy(), Index(0), Index(n_), keys_.begin(), CellKey{raw(pos_), grid_});
    thrust::sequence(policy(), sorted_.begin(), sorted_.end());
    thrust::sort_by_key(policy(), keys_.begin(), keys_.end(), sorted_.begin());
    thrust::fill(policy(), cell_start_.begin(), cell_start_.end(), 0u);
    thrust::fill(policy(), cell_end_.begin(), cell_end_.end(), 0u);
    thrust::for_each_n(policy(), Index(0), n_,
                       MarkCells{raw(keys_), n_, raw(cell_start_), raw(cell_end_)});
  }

  void compute_forces() {
    thrust::for_each_n(policy(), Index(0), n_, ComputeForces{state(), raw(force_), raw(torque_)});
  }

  DemParams params_;
  std::uint32_t n_;
  std::int64_t steps_ = 0;
  ContactGrid grid_{};
  ContactLaw law_{};
  Vector<Vec4> pos_, vel_, spin_, force_, torque_;
  Vector<std::uint32_t> keys_, sorted_, cell_start_, cell_end_;
  Vector<float> speed_;
};

}  // namespace granray::dem::GRANRAY_DEM_BACKEND
