// Rectangles of pixels, and the one a rank has drawn: compositing moves and merges only those.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "granray/image.h"
#include "granray/pixel_rect.h"

namespace granray::mpi::detail {

using Rect = PixelRect;

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
