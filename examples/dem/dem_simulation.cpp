#include "dem_simulation.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "granray/errors.h"

namespace granray::dem {

namespace {

// Cells of one largest diameter, coarser when the box is mostly empty: at most ~8 per grain.
ContactGrid whole_box_grid(const DemParams& p, std::size_t grains, float r_max) {
  const float volume = p.box.x * p.box.y * p.box.z;
  const float cell = std::max(
      {2.0f * r_max, std::cbrt(volume / (8.0f * std::max<std::size_t>(grains, 1))), 1e-6f});
  ContactGrid grid{};
  grid.box = p.box;
  grid.inv_cell = 1.0f / cell;
  for (int a = 0; a < 3; ++a) {
    grid.global_dims[a] = std::max(1, static_cast<int>(std::ceil(component(p.box, a) / cell)));
    grid.dims[a] = grid.global_dims[a];
    grid.first[a] = 0;
  }
  return grid;
}

}  // namespace

std::unique_ptr<DemSimulation> DemSimulation::create(const DemParams& p,
                                                     std::shared_ptr<SlabExchange> slabs) {
  const float spacing = 2.05f * p.radius_max;
  const auto nx = static_cast<std::int64_t>(std::floor(p.pour_width * p.box.x / spacing));
  const auto ny = static_cast<std::int64_t>(std::floor(p.pour_width * p.box.y / spacing));
  const float z0 = p.pour_height * p.box.z + p.radius_max;
  if (nx < 1 || ny < 1) {
    throw ConfigError("simulation.pour_width: the column is narrower than one grain (" +
                      std::to_string(spacing) + " m)");
  }
  const std::int64_t layers = (p.particles + nx * ny - 1) / (nx * ny);
  const float top = z0 + static_cast<float>(layers - 1) * spacing + p.radius_max;
  if (top > p.box.z) {
    throw ConfigError("simulation.particles: " + std::to_string(p.particles) +
                      " grains need a pour " + std::to_string(top) +
                      " m high, more than the box (simulation.box z = " + std::to_string(p.box.z) +
                      " m); enlarge the box or lower pour_height");
  }
  std::mt19937_64 rng(p.seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<Vec4> positions;
  std::vector<Vec3> velocities;
  positions.reserve(static_cast<std::size_t>(p.particles));
  velocities.reserve(static_cast<std::size_t>(p.particles));
  const float x0 = 0.5f * (p.box.x - (nx - 1) * spacing);
  const float y0 = 0.5f * (p.box.y - (ny - 1) * spacing);
  const float jitter = 0.02f * p.radius_max;
  for (std::int64_t k = 0; k < p.particles; ++k) {
    const std::int64_t i = k % nx, j = (k / nx) % ny, layer = k / (nx * ny);
    const float r = p.radius_min + (p.radius_max - p.radius_min) * unit(rng);
    positions.push_back({x0 + i * spacing + jitter * (unit(rng) - 0.5f),
                         y0 + j * spacing + jitter * (unit(rng) - 0.5f), z0 + layer * spacing, r});
    // Small random sideways velocities break the lattice's symmetry.
    velocities.push_back({0.05f * (unit(rng) - 0.5f), 0.05f * (unit(rng) - 0.5f), 0.0f});
  }
  return create(p, positions, velocities, std::move(slabs));
}

std::unique_ptr<DemSimulation> DemSimulation::create(const DemParams& params,
                                                     const std::vector<Vec4>& positions,
                                                     const std::vector<Vec3>& velocities,
                                                     std::shared_ptr<SlabExchange> slabs) {
  if (positions.size() != velocities.size()) {
    throw Error("granray-dem: " + std::to_string(positions.size()) + " positions but " +
                std::to_string(velocities.size()) + " velocities");
  }
  const BackendKind kind = params.backend == BackendKind::automatic
                               ? (cuda_device_available() ? BackendKind::cuda : BackendKind::cpu)
                               : params.backend;
  if (kind == BackendKind::cuda && !cuda_device_available()) {
    throw DeviceError("simulation.backend = \"cuda\", but no CUDA device is available");
  }
  float r_max = 0.0f;
  for (const Vec4& g : positions) r_max = std::max(r_max, g.w);
  detail::DemStart start;
  start.grid = whole_box_grid(params, positions.size(), r_max);
  const int ranks = slabs ? slabs->ranks() : 1;
  if (start.grid.global_dims[0] < ranks) {
    throw ConfigError("simulation.box: " + std::to_string(ranks) + " ranks need at least as many " +
                      "contact cells along x, the box has " +
                      std::to_string(start.grid.global_dims[0]));
  }
  const SlabColumns mine =
      slab_columns(start.grid.global_dims[0], slabs ? slabs->rank() : 0, ranks);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const int column = start.grid.global_coord(positions[i].x, 0);
    if (column < mine.first || column >= mine.end) continue;
    start.positions.push_back(positions[i]);
    start.velocities.push_back(velocities[i]);
    start.ids.push_back(i);
  }
  start.slabs = std::move(slabs);
  if (kind == BackendKind::cuda) return detail::make_cuda_dem(params, std::move(start));
  return detail::make_cpu_dem(params, std::move(start));
}

}  // namespace granray::dem

#if !defined(GRANRAY_HAVE_CUDA)
namespace granray::dem::detail {
std::unique_ptr<DemSimulation> make_cuda_dem(const DemParams&, DemStart) {
  throw DeviceError("granray-dem was built without CUDA");
}
}  // namespace granray::dem::detail
#endif
