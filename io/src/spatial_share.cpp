#include "granray/io/spatial_share.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "granray/camera.h"

namespace granray::io {

namespace {

// A grain's coordinate along `axis` (the components it weighs alone: along x a grain broken in
// y keeps its place); broken grains last.
float coordinate(const Vec4& p, const Vec3& axis) {
  const float c = (axis.x != 0.0f ? p.x * axis.x : 0.0f) + (axis.y != 0.0f ? p.y * axis.y : 0.0f) +
                  (axis.z != 0.0f ? p.z * axis.z : 0.0f);
  return std::isfinite(c) ? c : std::numeric_limits<float>::infinity();
}

// Splits indices [first, last) among ranks [rank_lo, rank_hi) along the longest of `axes` and
// keeps `rank`'s.
void bisect(const std::vector<Vec4>& xyzr, const std::vector<Vec3>& axes,
            std::vector<std::size_t>& order, std::size_t first, std::size_t last, int rank_lo,
            int rank_hi, int rank, std::vector<std::size_t>& mine) {
  if (rank_hi - rank_lo == 1) {
    mine.assign(order.begin() + static_cast<std::ptrdiff_t>(first),
                order.begin() + static_cast<std::ptrdiff_t>(last));
    return;
  }
  const std::size_t count = axes.size();
  std::vector<float> lo(count, INFINITY), hi(count, -INFINITY);
  for (std::size_t k = first; k < last; ++k) {
    for (std::size_t a = 0; a < count; ++a) {
      const float c = coordinate(xyzr[order[k]], axes[a]);
      if (c < INFINITY) {
        lo[a] = std::min(lo[a], c);
        hi[a] = std::max(hi[a], c);
      }
    }
  }
  std::size_t longest = 0;
  for (std::size_t a = 1; a < count; ++a) {
    if (hi[a] - lo[a] > hi[longest] - lo[longest]) longest = a;
  }
  const Vec3 axis = axes[longest];
  const int left_ranks = (rank_hi - rank_lo) / 2;
  const std::size_t split = first + (last - first) * static_cast<std::size_t>(left_ranks) /
                                        static_cast<std::size_t>(rank_hi - rank_lo);
  // Equal coordinates go by index: the same split on every rank.
  std::nth_element(order.begin() + static_cast<std::ptrdiff_t>(first),
                   order.begin() + static_cast<std::ptrdiff_t>(split),
                   order.begin() + static_cast<std::ptrdiff_t>(last),
                   [&](std::size_t a, std::size_t b) {
                     const float ca = coordinate(xyzr[a], axis), cb = coordinate(xyzr[b], axis);
                     return ca < cb || (ca == cb && a < b);
                   });
  if (rank < rank_lo + left_ranks) {
    bisect(xyzr, axes, order, first, split, rank_lo, rank_lo + left_ranks, rank, mine);
  } else {
    bisect(xyzr, axes, order, split, last, rank_lo + left_ranks, rank_hi, rank, mine);
  }
}

}  // namespace

std::vector<std::size_t> spatial_share_indices(const ParticleFrame& frame, int rank, int ranks,
                                               std::vector<Vec3> axes) {
  std::vector<std::size_t> order(frame.xyzr.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<std::size_t> mine;
  if (ranks <= 1) return order;
  if (axes.empty()) axes = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
  bisect(frame.xyzr, axes, order, 0, order.size(), 0, ranks, rank, mine);
  std::sort(mine.begin(), mine.end());  // file order within the share
  return mine;
}

std::vector<Vec3> picture_axes(const ParticleFrame& frame, const RenderSettings& settings) {
  SceneBounds bounds{
      {INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0, 0.0, 0.0f};
  for (const Vec4& p : frame.xyzr) {
    if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z) && std::isfinite(p.w) &&
          p.w > 0.0f)) {
      ++bounds.skipped;
      continue;
    }
    bounds.lo = {std::min(bounds.lo.x, p.x - p.w), std::min(bounds.lo.y, p.y - p.w),
                 std::min(bounds.lo.z, p.z - p.w)};
    bounds.hi = {std::max(bounds.hi.x, p.x + p.w), std::max(bounds.hi.y, p.y + p.w),
                 std::max(bounds.hi.z, p.z + p.w)};
    bounds.diameter_sum += 2.0 * p.w;
    bounds.max_radius = std::max(bounds.max_radius, p.w);
    ++bounds.renderable;
  }
  if (bounds.renderable == 0) return {};
  const ResolvedCamera camera = resolve_camera(settings, bounds).resolved;
  return {camera.right, camera.screen_up};
}

ParticleFrame spatial_share(const ParticleFrame& frame, int rank, int ranks,
                            const std::vector<Vec3>& axes) {
  const std::vector<std::size_t> mine = spatial_share_indices(frame, rank, ranks, axes);
  ParticleFrame share;
  share.step = frame.step;
  share.time = frame.time;
  share.xyzr.reserve(mine.size());
  share.ids.reserve(mine.size());
  for (const std::size_t i : mine) {
    share.xyzr.push_back(frame.xyzr[i]);
    share.ids.push_back(frame.ids.empty() ? i : frame.ids[i]);
    if (!frame.scalar.empty()) share.scalar.push_back(frame.scalar[i]);
    if (!frame.select.empty()) share.select.push_back(frame.select[i]);
    for (int k = 0; k < kMaterialFields; ++k) {
      if (!frame.material[k].empty()) share.material[k].push_back(frame.material[k][i]);
    }
  }
  return share;
}

}  // namespace granray::io
