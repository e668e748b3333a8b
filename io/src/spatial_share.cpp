#include "granray/io/spatial_share.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace granray::io {

namespace {

float coordinate(const Vec4& p, int axis) {
  const float c = axis == 0 ? p.x : axis == 1 ? p.y : p.z;
  return std::isfinite(c) ? c : std::numeric_limits<float>::infinity();
}

// Splits indices [first, last) among ranks [rank_lo, rank_hi) and keeps `rank`'s.
void bisect(const std::vector<Vec4>& xyzr, std::vector<std::size_t>& order, std::size_t first,
            std::size_t last, int rank_lo, int rank_hi, int rank, std::vector<std::size_t>& mine) {
  if (rank_hi - rank_lo == 1) {
    mine.assign(order.begin() + static_cast<std::ptrdiff_t>(first),
                order.begin() + static_cast<std::ptrdiff_t>(last));
    return;
  }
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (std::size_t k = first; k < last; ++k) {
    for (int a = 0; a < 3; ++a) {
      const float c = coordinate(xyzr[order[k]], a);
      if (c < INFINITY) {
        lo[a] = std::min(lo[a], c);
        hi[a] = std::max(hi[a], c);
      }
    }
  }
  int axis = 0;
  for (int a = 1; a < 3; ++a) {
    if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
  }
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
    bisect(xyzr, order, first, split, rank_lo, rank_lo + left_ranks, rank, mine);
  } else {
    bisect(xyzr, order, split, last, rank_lo + left_ranks, rank_hi, rank, mine);
  }
}

}  // namespace

std::vector<std::size_t> spatial_share_indices(const ParticleFrame& frame, int rank, int ranks) {
  std::vector<std::size_t> order(frame.xyzr.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<std::size_t> mine;
  if (ranks <= 1) return order;
  bisect(frame.xyzr, order, 0, order.size(), 0, ranks, rank, mine);
  std::sort(mine.begin(), mine.end());  // file order within the share
  return mine;
}

ParticleFrame spatial_share(const ParticleFrame& frame, int rank, int ranks) {
  const std::vector<std::size_t> mine = spatial_share_indices(frame, rank, ranks);
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
  }
  return share;
}

}  // namespace granray::io
