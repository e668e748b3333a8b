// The example DEM's time stepping, written once. Included by dem_cpu.cpp and dem_cuda.cu after
// each defines, in namespace granray::dem::GRANRAY_DEM_BACKEND: Vector<T> (a Thrust vector of
// that system), policy(), and kBackend / kSpace.
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/logical.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>

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
  Dem(const DemParams& p, detail::DemStart start)
      : params_(p),
        slabs_(std::move(start.slabs)),
        n_owned_(static_cast<std::uint32_t>(start.positions.size())) {
    const double pi = 3.14159265358979323846;
    std::vector<Vec4> vel(n_owned_), spin(n_owned_);
    for (std::uint32_t i = 0; i < n_owned_; ++i) {
      const double r = start.positions[i].w;
      const double m = p.density * 4.0 / 3.0 * pi * r * r * r;
      const Vec3 v = start.velocities[i];
      vel[i] = {v.x, v.y, v.z, static_cast<float>(1.0 / m)};
      spin[i] = {0.0f, 0.0f, 0.0f, static_cast<float>(1.0 / (0.4 * m * r * r))};
    }
    pos_.assign(start.positions.begin(), start.positions.end());
    vel_.assign(vel.begin(), vel.end());
    spin_.assign(spin.begin(), spin.end());
    id_.assign(start.ids.begin(), start.ids.end());
    n_total_ = n_owned_;

    // This rank's part of the grid: its slab's columns and one more on each side for ghosts.
    grid_ = start.grid;
    const int ranks = slabs_ ? slabs_->ranks() : 1, rank = slabs_ ? slabs_->rank() : 0;
    const int columns = grid_.global_dims[0];
    slab_ = slab_columns(columns, rank, ranks);
    lower_first_ = rank > 0 ? slab_columns(columns, rank - 1, ranks).first : slab_.first;
    upper_end_ = rank + 1 < ranks ? slab_columns(columns, rank + 1, ranks).end : slab_.end;
    grid_.first[0] = std::max(0, slab_.first - 1);
    grid_.dims[0] = std::min(columns, slab_.end + 1) - grid_.first[0];
    const std::size_t cells = std::size_t(grid_.dims[0]) * grid_.dims[1] * grid_.dims[2];
    cell_start_.resize(cells);
    cell_end_.resize(cells);
    const double log_e = std::log(static_cast<double>(p.restitution));
    law_ = {p.stiffness, static_cast<float>(-2.0 * log_e / std::sqrt(log_e * log_e + pi * pi)),
            p.friction};
    if (slabs_) exchange_ghosts();
    find_neighbours();
    compute_forces();
  }

  BackendKind backend() const override { return kBackend; }
  std::int64_t step_count() const override { return steps_; }
  double time() const override { return static_cast<double>(steps_) * params_.dt; }
  std::size_t size() const override { return n_owned_; }
  std::size_t ghosts() const override { return n_total_ - n_owned_; }
  std::uint64_t migrated() const override { return migrated_; }

  void step() override {
    const auto dt = static_cast<float>(params_.dt);
    thrust::for_each_n(
        policy(), Index(0), n_owned_,
        KickDrift{{raw(vel_), raw(spin_), raw(force_), raw(torque_), dt}, raw(pos_)});
    if (slabs_) {
      migrate();
      exchange_ghosts();
    }
    find_neighbours();
    compute_forces();
    thrust::for_each_n(policy(), Index(0), n_owned_,
                       Kick{raw(vel_), raw(spin_), raw(force_), raw(torque_), dt});
    ++steps_;
  }

  SimulationParticles particles() override {
    thrust::transform(policy(), Index(0), Index(n_owned_), speed_.begin(), Speed{raw(vel_)});
    SimulationParticles p;
    p.view.xyzr = raw(pos_);
    p.view.count = n_owned_;
    p.view.ids = raw(id_);
    p.view.space = kSpace;
    p.with_field("speed", raw(speed_));
    if (pass_contacts_) pass_contact_pairs(p);
    return p;
  }

  void pass_contacts(bool on) override { pass_contacts_ = on; }

  std::vector<Vec4> positions() const override { return owned_to_host(pos_); }
  std::vector<Vec4> velocities() const override { return owned_to_host(vel_); }
  std::vector<std::uint64_t> ids() const override { return owned_to_host(id_); }

  Energy energy() override {
    const Energy mine =
        thrust::transform_reduce(policy(), Index(0), Index(n_owned_), EnergyOf{state()},
                                 Energy{0.0, 0.0, 0.0f, INFINITY}, MergeEnergy{});
    return slabs_ ? slabs_->combine(mine) : mine;
  }

 private:
  template <class T>
  std::vector<T> owned_to_host(const Vector<T>& v) const {
    std::vector<T> out(n_owned_);
    thrust::copy(v.begin(), v.begin() + n_owned_, out.begin());
    return out;
  }

  DemState state() const {
    return {raw(pos_),      raw(vel_), raw(spin_), raw(sorted_),   raw(cell_start_),
            raw(cell_end_), grid_,     law_,       params_.gravity};
  }

  // Owned and ghost grains live in the same arrays: owned first, then ghosts.
  void resize_grains(std::uint32_t owned, std::uint32_t total) {
    pos_.resize(total);
    vel_.resize(total);
    spin_.resize(total);
    id_.resize(total);
    n_owned_ = owned;
    n_total_ = total;
  }

  // The grains among [0, count) whose side bits have `mask`, packed for sending.
  std::vector<Grain> pack(std::uint32_t count, std::uint8_t mask) {
    picked_.resize(count);
    const auto end = thrust::copy_if(policy(), Index(0), Index(count), side_.begin(),
                                     picked_.begin(), HasBits{mask});
    const auto n = static_cast<std::size_t>(end - picked_.begin());
    packed_.resize(n);
    thrust::transform(policy(), picked_.begin(), end, packed_.begin(),
                      PackGrain{raw(pos_), raw(vel_), raw(spin_), raw(id_)});
    std::vector<Grain> out(n);
    thrust::copy(packed_.begin(), packed_.begin() + n, out.begin());
    return out;
  }

  // Writes received grains at [offset, offset + size); the arrays are already that long.
  void unpack(const std::vector<Grain>& grains, std::uint32_t offset) {
    if (grains.empty()) return;
    packed_.assign(grains.begin(), grains.end());
    thrust::for_each_n(
        policy(), Index(0), grains.size(),
        UnpackGrain{raw(packed_), offset, raw(pos_), raw(vel_), raw(spin_), raw(id_)});
  }

  // Keeps only the arrays' entries listed in picked_[0, count), gathered through a spare array
  // that is kept between steps (grains migrate in most steps of a large run).
  template <class T>
  void compact(Vector<T>& v, Vector<T>& spare, std::uint32_t count) {
    spare.resize(count);
    thrust::gather(policy(), picked_.begin(), picked_.begin() + count, v.begin(), spare.begin());
    v.swap(spare);
  }

  // Grains that drifted out of the slab go to the neighbour that now owns them.
  void migrate() {
    side_.resize(n_owned_);
    thrust::transform(
        policy(), Index(0), Index(n_owned_), side_.begin(),
        MigrationSide{raw(pos_), grid_, slab_.first, slab_.end, lower_first_, upper_end_});
    const auto leaving =
        thrust::count_if(policy(), side_.begin(), side_.end(), HasBits{kToLower | kToUpper});
    if (thrust::any_of(policy(), side_.begin(), side_.end(), HasBits{kBeyond})) {
      slabs_->abort("a grain crossed more than one slab in one step at step " +
                    std::to_string(steps_) + ": the integration is unstable (shorten dt)");
    }
    std::vector<Grain> to_lower, to_upper, from_lower, from_upper;
    if (leaving > 0) {
      to_lower = pack(n_owned_, kToLower);
      to_upper = pack(n_owned_, kToUpper);
      picked_.resize(n_owned_);
      const auto staying = static_cast<std::uint32_t>(
          thrust::copy_if(policy(), Index(0), Index(n_owned_), side_.begin(), picked_.begin(),
                          thrust::logical_not<std::uint8_t>()) -
          picked_.begin());
      compact(pos_, spare_vec4_, staying);
      compact(vel_, spare_vec4_, staying);
      compact(spin_, spare_vec4_, staying);
      compact(id_, spare_id_, staying);
      n_owned_ = staying;
    }
    slabs_->swap(to_lower, to_upper, from_lower, from_upper);
    const auto arrived = static_cast<std::uint32_t>(from_lower.size() + from_upper.size());
    migrated_ += arrived;
    const std::uint32_t owned = n_owned_ + arrived;
    resize_grains(owned, owned);
    unpack(from_lower, owned - arrived);
    unpack(from_upper, owned - static_cast<std::uint32_t>(from_upper.size()));
  }

  // Copies of the neighbours' grains in the columns next to this slab, for the contact forces.
  void exchange_ghosts() {
    side_.resize(n_owned_);
    const bool has_lower = (lower_first_ < slab_.first);
    const bool has_upper = (upper_end_ > slab_.end);
    thrust::transform(policy(), Index(0), Index(n_owned_), side_.begin(),
                      GhostSides{raw(pos_), grid_, slab_.first, slab_.end, has_lower, has_upper});
    std::vector<Grain> from_lower, from_upper;
    slabs_->swap(pack(n_owned_, kToLower), pack(n_owned_, kToUpper), from_lower, from_upper);
    const auto ghosts = static_cast<std::uint32_t>(from_lower.size() + from_upper.size());
    resize_grains(n_owned_, n_owned_ + ghosts);
    unpack(from_lower, n_owned_);
    unpack(from_upper, n_owned_ + static_cast<std::uint32_t>(from_lower.size()));
  }

  // Seed 001, section I.A: hash every grain to its cell, sort by cell, mark each cell's range.
  void find_neighbours() {
    keys_.resize(n_total_);
    sorted_.resize(n_total_);
    force_.resize(n_owned_);
    torque_.resize(n_owned_);
    speed_.resize(n_owned_);
    thrust::transform(policy(), Index(0), Index(n_total_), keys_.begin(),
                      CellKey{raw(pos_), raw(id_), grid_});
    thrust::sequence(policy(), sorted_.begin(), sorted_.end());
    thrust::sort_by_key(policy(), keys_.begin(), keys_.end(), sorted_.begin());
    thrust::fill(policy(), cell_start_.begin(), cell_start_.end(), 0u);
    thrust::fill(policy(), cell_end_.begin(), cell_end_.end(), 0u);
    thrust::for_each_n(policy(), Index(0), n_total_,
                       MarkCells{raw(keys_), n_total_, raw(cell_start_), raw(cell_end_)});
  }

  // Passes the pairs of owned grains (each once across ranks) and their normal forces, given whole
  // (both grains' spheres and ids: the other grain may be a ghost), in this backend's memory.
  void pass_contact_pairs(SimulationParticles& p) {
    pair_offset_.resize(std::size_t{n_owned_} + 1);
    pair_offset_[0] = 0u;
    thrust::transform_inclusive_scan(policy(), Index(0), Index(n_owned_), pair_offset_.begin() + 1,
                                     CountContactPairs{state(), raw(id_)},
                                     thrust::plus<std::uint32_t>());
    const std::uint32_t pairs = pair_offset_[n_owned_];
    pair_spheres_.resize(2 * std::size_t{pairs});
    pair_ids_.resize(2 * std::size_t{pairs});
    pair_force_.resize(pairs);
    thrust::for_each_n(policy(), Index(0), n_owned_,
                       EmitContactPairs{state(), raw(id_), raw(pair_offset_), raw(pair_spheres_),
                                        raw(pair_ids_), raw(pair_force_)});
    p.with_contact_grains(raw(pair_spheres_), raw(pair_ids_), raw(pair_force_), pairs);
  }

  void compute_forces() {
    thrust::for_each_n(policy(), Index(0), n_owned_,
                       ComputeForces{state(), raw(force_), raw(torque_)});
  }

  DemParams params_;
  std::shared_ptr<SlabExchange> slabs_;
  std::uint32_t n_owned_;
  std::uint32_t n_total_ = 0;
  std::int64_t steps_ = 0;
  std::uint64_t migrated_ = 0;
  ContactGrid grid_{};
  SlabColumns slab_{};
  int lower_first_ = 0, upper_end_ = 0;  // the neighbouring slabs' outer columns
  ContactLaw law_{};
  Vector<Vec4> pos_, vel_, spin_, force_, torque_, spare_vec4_;
  Vector<std::uint64_t> id_, keys_, spare_id_;
  Vector<std::uint32_t> sorted_, cell_start_, cell_end_, picked_;
  Vector<std::uint8_t> side_;
  Vector<Grain> packed_;
  Vector<float> speed_;
  bool pass_contacts_ = false;
  Vector<std::uint32_t> pair_offset_;
  Vector<Vec4> pair_spheres_;
  Vector<std::uint64_t> pair_ids_;
  Vector<float> pair_force_;
};

}  // namespace granray::dem::GRANRAY_DEM_BACKEND
