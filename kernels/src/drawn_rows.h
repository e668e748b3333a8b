// The drawn pixels of an image packed row after row (RenderOptions::copy_drawn_only): the
// renderer packs them on its backend, copies the packed planes out and puts each row's run back
// in its place in the caller's image.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "copy_threads.h"
#include "granray/pixel_rect.h"

namespace granray::detail {

// Where each row of `drawn` starts in the packed planes, and after the last the total.
inline std::vector<std::uint32_t> packed_row_offsets(const DrawnRegion& drawn) {
  std::vector<std::uint32_t> offsets(drawn.rows.size() + 1, 0);
  for (std::size_t r = 0; r < drawn.rows.size(); ++r) {
    const PixelRect& s = drawn.rows[r];
    offsets[r + 1] = offsets[r] + (s.empty() ? 0 : std::uint32_t(s.x1 - s.x0));
  }
  return offsets;
}

// Puts elements [first, first + count) of a packed plane, held at `part`, into `image` (`width`
// pixels wide): the rows whose runs overlap them, each overlap in its place.
template <class T>
void unpack_rows(const T* part, std::size_t first, std::size_t count, T* image, std::size_t width,
                 const DrawnRegion& drawn, const std::vector<std::uint32_t>& offsets) {
  if (count == 0) return;
  const std::size_t last = first + count;
  // Rows r0 .. r1 - 1: the row holding `first` up to the one holding `last - 1`.
  const auto r0 = static_cast<std::int64_t>(
      std::upper_bound(offsets.begin(), offsets.end() - 1, first) - offsets.begin() - 1);
  const auto r1 = static_cast<std::int64_t>(
      std::upper_bound(offsets.begin(), offsets.end() - 1, last - 1) - offsets.begin());
#pragma omp parallel for schedule(static) num_threads(copy_threads(count * sizeof(T)))
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::size_t lo = std::max<std::size_t>(offsets[r], first);
    const std::size_t hi = std::min<std::size_t>(offsets[r + 1], last);
    if (lo >= hi) continue;
    const PixelRect& s = drawn.rows[r];
    std::memcpy(image + std::size_t(s.y0) * width + s.x0 + (lo - offsets[r]), part + (lo - first),
                (hi - lo) * sizeof(T));
  }
}

}  // namespace granray::detail
