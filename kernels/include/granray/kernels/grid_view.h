#pragma once

#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray {

// A uniform grid of cubic cells over the box [origin, origin + dims * cell_size].
struct GridGeometry {
  Vec3 origin;
  float cell_size;
  float inv_cell_size;
  int dims[3];
};

struct CellRange {
  int lo[3];
  int hi[3];  // inclusive
};

GRANRAY_HD_INLINE int clamp_cell(float coordinate, int dim) {
  // Clamp in float first: a far-away coordinate must not overflow the int conversion.
  const float c =
      nan_ignoring_min(nan_ignoring_max(floorf(coordinate), 0.0f), static_cast<float>(dim - 1));
  return static_cast<int>(c);
}

GRANRAY_HD_INLINE std::uint32_t cell_index(const GridGeometry& g, int x, int y, int z) {
  return (static_cast<std::uint32_t>(z) * static_cast<std::uint32_t>(g.dims[1]) +
          static_cast<std::uint32_t>(y)) *
             static_cast<std::uint32_t>(g.dims[0]) +
         static_cast<std::uint32_t>(x);
}

// Padding added to every sphere's box when it is listed in cells, as a fraction of a cell: it
// absorbs the rounding of the traversal's cell boundaries, so that a hit point near a cell face is
// always found in whichever of the two cells the traversal assigns it to.
constexpr float kCellListingPad = 1e-3f;

// Cells overlapped by the (slightly padded) bounding box of a sphere.
GRANRAY_HD_INLINE CellRange overlapped_cells(const GridGeometry& g, Vec4 s) {
  const float reach = s.w + kCellListingPad * g.cell_size;
  CellRange range;
  const float c[3] = {s.x, s.y, s.z};
  const float o[3] = {g.origin.x, g.origin.y, g.origin.z};
  for (int a = 0; a < 3; ++a) {
    range.lo[a] = clamp_cell((c[a] - reach - o[a]) * g.inv_cell_size, g.dims[a]);
    range.hi[a] = clamp_cell((c[a] + reach - o[a]) * g.inv_cell_size, g.dims[a]);
  }
  return range;
}

GRANRAY_HD_INLINE std::uint32_t cell_count(const CellRange& r) {
  return static_cast<std::uint32_t>(r.hi[0] - r.lo[0] + 1) *
         static_cast<std::uint32_t>(r.hi[1] - r.lo[1] + 1) *
         static_cast<std::uint32_t>(r.hi[2] - r.lo[2] + 1);
}

// The built grid as the kernels read it (trivially copyable; the buffers belong to the backend).
// Cell c lists references [cell_start[c], cell_end[c]); reference k is the sphere ref_spheres[k],
// a copy of particle ref_index[k] stored in cell order for coherent reads.
struct GridView {
  GridGeometry geometry;
  const std::uint32_t* cell_start;
  const std::uint32_t* cell_end;
  const Vec4* ref_spheres;
  const std::uint32_t* ref_index;
};

}  // namespace granray
