// A rectangle of image pixels, on both backends: where a frame has drawn anything, and the part
// of an image that compositing moves and merges.
#pragma once

#include <cstddef>
#include <cstdint>

#include "granray/kernels/platform.h"

namespace granray {

// Pixels [x0, x1) x [y0, y1); empty when either side is.
struct PixelRect {
  std::int32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;

  GRANRAY_HD bool empty() const { return x0 >= x1 || y0 >= y1; }
  GRANRAY_HD bool contains(int x, int y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
  std::size_t area() const { return empty() ? 0 : std::size_t(x1 - x0) * std::size_t(y1 - y0); }
  // The part within rows [lo, hi).
  GRANRAY_HD PixelRect rows(int lo, int hi) const {
    const PixelRect r{x0, y0 > lo ? y0 : lo, x1, y1 < hi ? y1 : hi};
    return r.empty() ? PixelRect{} : r;
  }
  // The smallest rectangle holding both.
  GRANRAY_HD PixelRect join(const PixelRect& o) const {
    if (empty()) return o;
    if (o.empty()) return *this;
    return {x0 < o.x0 ? x0 : o.x0, y0 < o.y0 ? y0 : o.y0, x1 > o.x1 ? x1 : o.x1,
            y1 > o.y1 ? y1 : o.y1};
  }
};

}  // namespace granray
