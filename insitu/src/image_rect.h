// Rectangles of pixels, and the one a rank has drawn: compositing moves and merges only those.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "granray/image.h"

namespace granray::mpi::detail {

// Pixels [x0, x1) x [y0, y1); empty when either side is.
struct Rect {
  std::int32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x0 >= x1 || y0 >= y1; }
  bool contains(int x, int y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
  std::size_t area() const { return empty() ? 0 : std::size_t(x1 - x0) * std::size_t(y1 - y0); }
  Rect rows(int lo, int hi) const {  // the part within rows [lo, hi)
    Rect r{x0, std::max(y0, lo), x1, std::min(y1, hi)};
    return r.empty() ? Rect{} : r;
  }
  Rect join(const Rect& o) const {
    if (empty()) return o;
    if (o.empty()) return *this;
    return {std::min(x0, o.x0), std::min(y0, o.y0), std::max(x1, o.x1), std::max(y1, o.y1)};
  }
};

// The bounding rectangle of the pixels an image has drawn (finite depth).
inline Rect drawn_rect(const Image& image) {
  int x0 = image.width, y0 = image.height, x1 = 0, y1 = 0;
#pragma omp parallel for reduction(min : x0, y0) reduction(max : x1, y1) schedule(static)
  for (int y = 0; y < image.height; ++y) {
    const float* row = image.depth.data() + std::size_t(y) * image.width;
    int first = 0;
    while (first < image.width && !std::isfinite(row[first])) ++first;
    if (first == image.width) continue;
    int last = image.width - 1;
    while (!std::isfinite(row[last])) --last;
    x0 = std::min(x0, first);
    x1 = std::max(x1, last + 1);
    y0 = std::min(y0, y);
    y1 = std::max(y1, y + 1);
  }
  const Rect r{x0, y0, x1, y1};
  return r.empty() ? Rect{} : r;
}

// Which of two hits is seen: the nearer, at equal depth the smaller global id.
inline bool nearer(float depth, std::uint64_t id, float than_depth, std::uint64_t than_id) {
  return depth < than_depth || (depth == than_depth && id < than_id);
}

}  // namespace granray::mpi::detail
