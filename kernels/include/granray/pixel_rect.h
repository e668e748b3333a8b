// A rectangle of image pixels, on both backends: where a frame has drawn anything, and the part
// of an image that compositing moves and merges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

// Where a frame drew, row by row: in each row the span from its first to its last drawn pixel.
// One rank's slab of a scene seen at an angle is a slanted band: its rows' spans hold a fraction
// of its bounding rectangle's pixels.
struct DrawnRegion {
  PixelRect bounds;             // the rows' bounding rectangle
  std::vector<PixelRect> rows;  // one per row of bounds, top first: [x0, x1) x [y, y + 1) or empty

  // The span of image row y (empty outside bounds).
  PixelRect row(int y) const {
    return y >= bounds.y0 && y < bounds.y1 ? rows[std::size_t(y - bounds.y0)] : PixelRect{};
  }
  bool contains(int x, int y) const { return row(y).contains(x, y); }
  // The pixels of all spans.
  std::size_t area() const {
    std::size_t n = 0;
    for (const PixelRect& r : rows) n += r.area();
    return n;
  }
  // Every pixel of `r`.
  static DrawnRegion whole(const PixelRect& r) {
    DrawnRegion d;
    if (r.empty()) return d;
    d.bounds = r;
    for (int y = r.y0; y < r.y1; ++y) d.rows.push_back({r.x0, y, r.x1, y + 1});
    return d;
  }
};

}  // namespace granray
