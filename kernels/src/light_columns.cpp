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

}  // namespace

bool ColumnLayout::repays(std::uint64_t references, std::uint64_t rays,
                          std::uint64_t least_rays_per_reference) {
  return references != 0 && references <= kMostColumnReferences &&
         rays >= least_rays_per_reference * references;
}

bool ColumnLayout::start(Vec3 dir, float largest, float radius, float cell_size) {
  const float scale = kColumnOriginScale * largest;
  pad_ = kColumnPadOfScale * scale;
  cell_ = cell_size;
  if (!(std::isfinite(scale) && pad_ < cell_)) return false;
  view_ = LightColumnsView{};
  view_.dir = dir;
  basis_about(dir, view_.across_u, view_.across_v);
  view_.behind = radius + pad_;
  view_.scale = scale;
  return true;
}

bool ColumnLayout::place(const SpanAcross& span, std::uint64_t spheres) {
  spheres_ = spheres;
  most_columns_ = 4.0 * static_cast<double>(spheres) + 4096.0;
  const double across =
      (static_cast<double>(span.u_hi) - span.u_lo) * (static_cast<double>(span.v_hi) - span.v_lo);
  if (across / (static_cast<double>(cell_) * cell_) > most_columns_) {
    cell_ = static_cast<float>(std::sqrt(across / most_columns_));
  }
  view_.u0 = span.u_lo;
  view_.v0 = span.v_lo;
  view_.inv_cell = 1.0f / cell_;
  return (span.u_hi - span.u_lo) * view_.inv_cell < kMostColumnsAlong &&
         (span.v_hi - span.v_lo) * view_.inv_cell < kMostColumnsAlong;
}

bool ColumnLayout::fits(int columns_u, int columns_v, std::uint64_t entries) {
  const std::uint64_t columns = static_cast<std::uint64_t>(columns_u) * columns_v;
  if (entries > kMostColumnEntriesPerReference * spheres_ + 4096 ||
      static_cast<double>(columns) > 2 * most_columns_ || entries >= UINT32_MAX) {
    return false;
  }
  view_.columns_u = columns_u;
  view_.columns_v = columns_v;
  return true;
}

bool ColumnsAsked::again(std::uint64_t grid_generation, Vec3 dir) {
  if (asked_ && grid_generation == grid_generation_ && dir.x == dir_.x && dir.y == dir_.y &&
      dir.z == dir_.z) {
    return true;
  }
  asked_ = true;
  grid_generation_ = grid_generation;
  dir_ = dir;
  return false;
}

void LightColumns::build(const GridView& grid, std::uint64_t references, Vec3 dir,
                         std::uint64_t rays, std::uint64_t grid_generation) {
  if (asked_.again(grid_generation, dir)) return;
  view_ = LightColumnsView{};
  if (!ColumnLayout::repays(references, rays, kLeastRaysPerReference)) return;
  const auto n = static_cast<std::size_t>(references);

  float largest = 0.0f, radius = 0.0f;
  for (std::size_t k = 0; k < n; ++k) {
    const Vec4 s = grid.ref_spheres[k];
    largest = std::max({largest, std::fabs(s.x) + s.w, std::fabs(s.y) + s.w, std::fabs(s.z) + s.w});
    radius = std::max(radius, s.w);
  }
  ColumnLayout layout;
  if (!layout.start(dir, largest, radius, grid.geometry.cell_size)) return;
  const LightColumnsView& frame = layout.view();

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
  // Each kept sphere across the light: (u, v) its centre across, z along, w its padded radius.
  const std::size_t m = refs.size();
  std::vector<Vec4> p(m);
  SpanAcross span{INFINITY, INFINITY, -INFINITY, -INFINITY};
  for (std::size_t k = 0; k < m; ++k) {
    const Vec4 s = grid.ref_spheres[refs[k]];
    const Vec3 c = center_of(s);
    p[k] = {dot(c, frame.across_u), dot(c, frame.across_v), dot(c, dir), s.w + layout.pad()};
    span.u_lo = std::min(span.u_lo, p[k].x - p[k].w);
    span.v_lo = std::min(span.v_lo, p[k].y - p[k].w);
    span.u_hi = std::max(span.u_hi, p[k].x + p[k].w);
    span.v_hi = std::max(span.v_hi, p[k].y + p[k].w);
  }
  if (!layout.place(span, m)) return;

  int columns_u = 0, columns_v = 0;
  std::uint64_t total = 0;
  std::vector<ColumnSquare> square(m);
  for (std::size_t k = 0; k < m; ++k) {
    square[k] = column_square(p[k], frame.u0, frame.v0, frame.inv_cell);
    columns_u = std::max(columns_u, square[k].u1 + 1);
    columns_v = std::max(columns_v, square[k].v1 + 1);
    total += square_columns(square[k]);
  }
  if (!layout.fits(columns_u, columns_v, total)) return;
  const std::size_t columns = std::size_t(columns_u) * std::size_t(columns_v);

  // The entries in order of depth along the light, so that filling the columns in that order
  // leaves each column sorted.
  std::vector<float> keys(m);
  std::vector<std::uint32_t> by_depth(m);
  for (std::size_t k = 0; k < m; ++k) {
    keys[k] = p[k].z;
    by_depth[k] = static_cast<std::uint32_t>(k);
  }
  thrust::stable_sort_by_key(thrust::omp::par, keys.data(), keys.data() + m, by_depth.data());

  offsets_.assign(columns + 1, 0u);
  for (const ColumnSquare& b : square) {
    for (int cv = b.v0; cv <= b.v1; ++cv)
      for (int cu = b.u0; cu <= b.u1; ++cu) ++offsets_[std::size_t(cv) * columns_u + cu + 1];
  }
  std::partial_sum(offsets_.begin(), offsets_.end(), offsets_.begin());
  std::vector<std::uint32_t> next(offsets_.begin(), offsets_.end() - 1);
  entries_.resize(total);
  depth_.resize(total);
  for (const std::uint32_t k : by_depth) {
    const ColumnSquare& b = square[k];
    for (int cv = b.v0; cv <= b.v1; ++cv) {
      for (int cu = b.u0; cu <= b.u1; ++cu) {
        const std::uint32_t e = next[std::size_t(cv) * columns_u + cu]++;
        entries_[e] = refs[k];  // the grid's reference
        depth_[e] = p[k].z;
      }
    }
  }
  view_ = frame;
  view_.offsets = offsets_.data();
  view_.depth = depth_.data();
  view_.entries = entries_.data();
  view_.entry_count = static_cast<std::uint32_t>(total);
}

}  // namespace granray::detail
