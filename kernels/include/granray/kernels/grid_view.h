#pragma once

#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray {

// A uniform grid of cubic cells over the box [origin, origin + dims * cell_size], and how it
// lists spheres. A sphere of radius up to `centre_radius` is listed once, in the cell of its
// centre; the traversal then tests every cell whose box, grown by `reach` on every side, the ray
// crosses (reach = centre_radius plus a rounding pad). A larger sphere is listed in every cell
// its padded box overlaps, so the cell holding its hit point lists it whatever the reach.
struct GridGeometry {
  Vec3 origin;
  float cell_size;
  float inv_cell_size;
  int dims[3];
  float centre_radius;
  float reach;
};

// How a grid's cells list the spheres. `centres`: cells of about a diameter, each grain listed in
// its centre's cell and found by a walk over cells grown by the largest radius (every frame's
// grid). `overlaps`: cells of about two diameters, each grain listed in every cell its box
// overlaps, so the walk steps through fewer, fuller cells: the CPU's path-traced still, whose
// short bounce rays test a cell's grains four at a time (kernels/sphere_batch.h).
enum class GridCells { centres, overlaps };

struct CellRange {
  int lo[3];
  int hi[3];  // inclusive
};

GRANRAY_HD_INLINE int clamp_cell(float coordinate, int dim) {
  // Clamp in float first: a far-away coordinate must not overflow the int conversion. Inside
  // [0, dim - 1] the conversion's truncation is floor (floorf is a libm call on x86-64 without
  // SSE4.1, several per ray).
  const float c = nan_ignoring_min(nan_ignoring_max(coordinate, 0.0f), static_cast<float>(dim - 1));
  return static_cast<int>(c);
}

GRANRAY_HD_INLINE std::uint32_t cell_index(const GridGeometry& g, int x, int y, int z) {
  return (static_cast<std::uint32_t>(z) * static_cast<std::uint32_t>(g.dims[1]) +
          static_cast<std::uint32_t>(y)) *
             static_cast<std::uint32_t>(g.dims[0]) +
         static_cast<std::uint32_t>(x);
}

// Padding, as a fraction of a cell, added to every sphere's box when it is listed in the cells it
// overlaps, and to the traversal's reach: it absorbs the rounding of cell boundaries and of the
// centre's cell, so a hit point near a cell face is found whichever cell the rounding picks.
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

// The one cell that holds a sphere's centre, as a range.
GRANRAY_HD_INLINE CellRange centre_cells(const GridGeometry& g, Vec4 s) {
  const float c[3] = {s.x, s.y, s.z};
  const float o[3] = {g.origin.x, g.origin.y, g.origin.z};
  CellRange range;
  for (int a = 0; a < 3; ++a) {
    range.lo[a] = range.hi[a] = clamp_cell((c[a] - o[a]) * g.inv_cell_size, g.dims[a]);
  }
  return range;
}

GRANRAY_HD_INLINE std::uint32_t centre_cell(const GridGeometry& g, Vec4 s) {
  const CellRange r = centre_cells(g, s);
  return cell_index(g, r.lo[0], r.lo[1], r.lo[2]);
}

GRANRAY_HD_INLINE bool listed_once(const GridGeometry& g, Vec4 s) { return s.w <= g.centre_radius; }

// The cells that list a renderable sphere: its centre's alone, or all that its box overlaps.
GRANRAY_HD_INLINE CellRange listed_cells(const GridGeometry& g, Vec4 s) {
  return listed_once(g, s) ? centre_cells(g, s) : overlapped_cells(g, s);
}

GRANRAY_HD_INLINE std::uint32_t cell_count(const CellRange& r) {
  return static_cast<std::uint32_t>(r.hi[0] - r.lo[0] + 1) *
         static_cast<std::uint32_t>(r.hi[1] - r.lo[1] + 1) *
         static_cast<std::uint32_t>(r.hi[2] - r.lo[2] + 1);
}

// The built grid as the kernels read it (trivially copyable; the buffers belong to the backend).
// Cell c lists references [cell_offsets[c], cell_offsets[c + 1]) (cells + 1 offsets, so a run of
// cells along x lists one contiguous range); reference k is the sphere ref_spheres[k], a copy of
// particle ref_index[k] stored in cell order for coherent reads.
//
// Empty space is leapt over by the clearance of blocks of kClearanceBlock^3 cells (clearance[b],
// one byte a block, x fastest, clearance_blocks(dims) each way): the Chebyshev distance, in
// blocks, from block b to the nearest block with a cell that lists a sphere (0 for such a block),
// at most kMostClearance. A cell of a block of clearance d lies at least cell_clearance(d) cells
// from every listing cell, so it is the centre of a cube of 2 (cell_clearance(d) -
// leap_margin_cells) + 1 cells that no listing cell's grown box meets, and a walk there may start
// again where the ray leaves that cube (GrownCellWalk::leap_from). Blocks rather than cells: the
// field costs an eighth to measure, and leaps start about as near the grains. Null clearance:
// every cell is walked.
constexpr int kClearanceBlock = 2;
struct GridView {
  GridGeometry geometry;
  const std::uint32_t* cell_offsets;
  const Vec4* ref_spheres;
  const std::uint32_t* ref_index;
  const std::uint8_t* clearance = nullptr;
  int clearance_dims[3] = {0, 0, 0};
};

// The largest clearance a block records: 8 blocks, 15 cells, leaps about as far as a field
// without a cap on the suite's beds (pour and hopper); 7 cells walked them 1.6-1.8x as many turns
// (docs/benchmarks-log.md).
constexpr int kMostClearance = 8;

// The blocks along an axis of `cells` cells.
GRANRAY_HD_INLINE int clearance_blocks(int cells) {
  return (cells + kClearanceBlock - 1) / kClearanceBlock;
}

// The grid's view with `clearance` (one a block, x fastest) set, and the blocks along each axis.
GRANRAY_HD_INLINE void set_clearance(GridView& view, const std::uint8_t* clearance) {
  view.clearance = clearance;
  for (int a = 0; a < 3; ++a) view.clearance_dims[a] = clearance_blocks(view.geometry.dims[a]);
}

// The clearance of the block that holds cell (i, j, k).
GRANRAY_HD_INLINE int clearance_of_cell(const GridView& grid, int i, int j, int k) {
  return grid.clearance[(static_cast<std::uint32_t>(k / kClearanceBlock) *
                             static_cast<std::uint32_t>(grid.clearance_dims[1]) +
                         static_cast<std::uint32_t>(j / kClearanceBlock)) *
                            static_cast<std::uint32_t>(grid.clearance_dims[0]) +
                        static_cast<std::uint32_t>(i / kClearanceBlock)];
}

// How many cells at least lie between a cell of a block of clearance d and any listing cell.
GRANRAY_HD_INLINE int cell_clearance(int d) { return d > 0 ? kClearanceBlock * d - 1 : 0; }

// Cells of a clearance that a leap leaves unused: the walk's reach rounded up to cells (how far a
// listing cell's grown box reaches into its neighbours), and one more for the rounding of where a
// ray's point falls.
GRANRAY_HD_INLINE int leap_margin_cells(const GridGeometry& g) {
  return static_cast<int>(ceilf(g.reach * g.inv_cell_size)) + 1;
}

}  // namespace granray
