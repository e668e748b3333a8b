#include "light_columns.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <thrust/sort.h>
#include <thrust/system/omp/execution_policy.h>

#include "granray/kernels/lighting.h"

namespace granray::detail {

namespace {

// Building the columns costs about what a few walks per reference cost on the CPU (a sort by
// depth and two passes over the entries); with fewer shadow rays than this per reference the
// rays walk.
constexpr std::uint64_t kLeastRaysPerReference = 32;

struct Projected {
  float u, v, depth, rad;
};

int column_of(float coordinate, float corner, float inv_cell) {
  return static_cast<int>(
      std::floor(LightColumnsView::column_coordinate(coordinate, corner, inv_cell)));
}

}  // namespace

void LightColumns::build(const GridView& grid, std::uint64_t references, Vec3 dir,
                         std::uint64_t rays, std::uint64_t grid_generation) {
  if (kept(grid_generation, dir)) return;
  asked_ = true;
  grid_generation_ = grid_generation;
  dir_ = dir;
  view_ = LightColumnsView{};
  if (references == 0 || references > kMostColumnReferences ||
      rays < kLeastRaysPerReference * references) {
    return;
  }
  const auto n = static_cast<std::size_t>(references);

  float largest = 0.0f, radius = 0.0f;
  for (std::size_t k = 0; k < n; ++k) {
    const Vec4 s = grid.ref_spheres[k];
    largest = std::max({largest, std::fabs(s.x) + s.w, std::fabs(s.y) + s.w, std::fabs(s.z) + s.w});
    radius = std::max(radius, s.w);
  }
  const float scale = kColumnOriginScale * largest;
  const float pad = kColumnPadOfScale * scale;
  float cell = grid.geometry.cell_size;
  if (!(std::isfinite(scale) && pad < cell)) return;

  LightColumnsView v{};
  v.dir = dir;
  basis_about(dir, v.across_u, v.across_v);
  v.behind = radius + pad;
  v.scale = scale;

  // Each sphere once: a grain larger than the grid's centre radius is listed in every cell it
  // overlaps, and its copies would fill every column it covers again.
  std::vector<std::uint32_t> refs;
  refs.reserve(n);
  std::vector<bool> seen;
  for (std::size_t k = 0; k < n; ++k) {
    if (!listed_once(grid.geometry, grid.ref_spheres[k])) {
      const std::uint32_t particle = grid.ref_index[k];
      if (particle >= seen.size()) seen.resize(std::size_t(particle) + 1, false);
      if (seen[particle]) continue;
      seen[particle] = true;
    }
    refs.push_back(static_cast<std::uint32_t>(k));
  }
  const std::size_t m = refs.size();
  std::vector<Projected> p(m);
  float u_lo = INFINITY, v_lo = INFINITY, u_hi = -INFINITY, v_hi = -INFINITY;
  for (std::size_t k = 0; k < m; ++k) {
    const Vec4 s = grid.ref_spheres[refs[k]];
    const Vec3 c = center_of(s);
    p[k] = {dot(c, v.across_u), dot(c, v.across_v), dot(c, dir), s.w + pad};
    u_lo = std::min(u_lo, p[k].u - p[k].rad);
    v_lo = std::min(v_lo, p[k].v - p[k].rad);
    u_hi = std::max(u_hi, p[k].u + p[k].rad);
    v_hi = std::max(v_hi, p[k].v + p[k].rad);
  }
  // Columns of a grid cell's width, wider when the picture across the light holds more columns
  // than a few per reference (a dilute gas).
  const double most_columns = 4.0 * static_cast<double>(m) + 4096.0;
  const double across = (static_cast<double>(u_hi) - u_lo) * (static_cast<double>(v_hi) - v_lo);
  if (across / (static_cast<double>(cell) * cell) > most_columns) {
    cell = static_cast<float>(std::sqrt(across / most_columns));
  }
  v.u0 = u_lo;
  v.v0 = v_lo;
  v.inv_cell = 1.0f / cell;
  if (!((u_hi - u_lo) * v.inv_cell < kMostColumnsAlong &&
        (v_hi - v_lo) * v.inv_cell < kMostColumnsAlong)) {
    return;
  }

  // Each reference's square of columns, found as a ray's column is (LightColumnsView::blocks_ray),
  // so that an origin within a sphere's padded reach lies in one of its columns.
  int columns_u = 0, columns_v = 0;
  std::uint64_t total = 0;
  std::vector<int> box(4 * m);
  for (std::size_t k = 0; k < m; ++k) {
    int* b = &box[4 * k];
    b[0] = column_of(p[k].u - p[k].rad, v.u0, v.inv_cell);
    b[1] = column_of(p[k].u + p[k].rad, v.u0, v.inv_cell);
    b[2] = column_of(p[k].v - p[k].rad, v.v0, v.inv_cell);
    b[3] = column_of(p[k].v + p[k].rad, v.v0, v.inv_cell);
    columns_u = std::max(columns_u, b[1] + 1);
    columns_v = std::max(columns_v, b[3] + 1);
    total +=
        static_cast<std::uint64_t>(b[1] - b[0] + 1) * static_cast<std::uint64_t>(b[3] - b[2] + 1);
  }
  const std::uint64_t columns = static_cast<std::uint64_t>(columns_u) * columns_v;
  if (total > kMostColumnEntriesPerReference * m + 4096 || columns > 2 * most_columns ||
      total >= UINT32_MAX) {
    return;
  }
  v.columns_u = columns_u;
  v.columns_v = columns_v;

  // The entries in order of depth along the light, so that filling the columns in that order
  // leaves each column sorted.
  std::vector<float> keys(m);
  std::vector<std::uint32_t> by_depth(m);
  for (std::size_t k = 0; k < m; ++k) {
    keys[k] = p[k].depth;
    by_depth[k] = static_cast<std::uint32_t>(k);
  }
  thrust::stable_sort_by_key(thrust::omp::par, keys.data(), keys.data() + m, by_depth.data());

  offsets_.assign(columns + 1, 0u);
  for (std::size_t k = 0; k < m; ++k) {
    const int* b = &box[4 * k];
    for (int cv = b[2]; cv <= b[3]; ++cv)
      for (int cu = b[0]; cu <= b[1]; ++cu) ++offsets_[std::size_t(cv) * columns_u + cu + 1];
  }
  std::partial_sum(offsets_.begin(), offsets_.end(), offsets_.begin());
  std::vector<std::uint32_t> next(offsets_.begin(), offsets_.end() - 1);
  entries_.resize(total);
  depth_.resize(total);
  for (const std::uint32_t k : by_depth) {
    const int* b = &box[4 * k];
    for (int cv = b[2]; cv <= b[3]; ++cv) {
      for (int cu = b[0]; cu <= b[1]; ++cu) {
        const std::uint32_t e = next[std::size_t(cv) * columns_u + cu]++;
        entries_[e] = refs[k];  // the grid's reference
        depth_[e] = p[k].depth;
      }
    }
  }
  v.offsets = offsets_.data();
  v.depth = depth_.data();
  v.entries = entries_.data();
  v.entry_count = static_cast<std::uint32_t>(total);
  view_ = v;
}

}  // namespace granray::detail
