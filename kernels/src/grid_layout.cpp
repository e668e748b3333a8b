#include "grid_layout.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "granray/errors.h"

namespace granray::detail {
namespace {

// Cells per renderable particle at most, and the overall cap (2^27 cells = 1 GiB of cell ranges).
// One per particle: the walk over grown cells pays per cell it enters, so gases (whose cells
// this cap sets) and polydisperse beds cast 8-14 % faster than with 4, and a 10 M gas builds
// its grid 25 % faster; half a cell per particle made dense beds slower (docs/benchmarks.md).
constexpr double kCellsPerParticle = 1.0;
constexpr double kMaxCells = 134217728.0;
// References per particle allowed before the cells are made coarser: only grains larger than a
// cell are listed more than once (in every cell they overlap), so this binds only when a few
// huge grains would overlap thousands of cells.
constexpr double kReferencesPerParticle = 8.0;
constexpr double kReferenceSlack = 64.0;
constexpr double kMaxReferences = 4294967295.0;  // 32-bit reference indices
constexpr int kMaxRefinements = 40;
// GridCells::overlaps: cells of this many mean diameters. A grain then overlaps about
// (1 + 1/2)^3 = 3.4 cells; on the LIGGGHTS packing's path-traced still, 1.5 and 2.5 diameters
// were 2-7 % slower, 3 diameters 15 %, and the frames' layout 16 % (docs/benchmarks.md).
constexpr double kOverlapCellDiameters = 2.0;
// Cells sized by the occupied volume where the grains occupy at most this share of their box, so
// that cells sized by the box would hold more than about three grains each where grains lie. On an
// H200 (1 M grains, 1080p, docs/benchmarks.md) the pour's (share under 1/8) primary cast went 1.11
// -> 0.67 ms and its lit cast 3.20 -> 1.79 ms, the hopper's (0.19) lit cast 2.90 -> 2.13 ms; the
// heap's (0.35) primary cast went 0.71 -> 1.12 ms and the drum's (0.64) 0.98 -> 1.16 ms: where
// grains lie only a few to a box-sized cell, the walk pays more for the finer cells it crosses
// than it saves in grains tested. A compile definition tries others (scripts/gpu-leaps.sh).
#ifndef GRANRAY_MOST_SHARE_SIZED_BY_OCCUPANCY
#define GRANRAY_MOST_SHARE_SIZED_BY_OCCUPANCY 0.3
#endif
constexpr double kMostShareSizedByOccupancy = GRANRAY_MOST_SHARE_SIZED_BY_OCCUPANCY;
// Cells per renderable particle at most, however little of its box a bed occupies.
constexpr double kMostCellsPerParticle = 8.0;
// CellSizing::finely_by_occupied_volume: up to half the box (every grid with clearance, so the
// heap too) and up to 32 cells a grain (the pour's column and layer fill under 1/30 of its box).
// Counted on the host (granray-bench --walk-census, 1 M grains), a ray leaving a grain then tests
// 14.2 grains on the heap against 23.8, 20.7 on the pour against 45.3; yet on an H200 the pour's
// path still took 83 ms against the frames' cells' 74 (its 31 M cells' offsets outgrow the L2
// cache), and 12 or 4 cells a grain were slower too, so no backend takes it by default
// (docs/benchmarks-log.md, "Finer cells for rays that bounce, measured and not taken").
constexpr OccupiedVolumeCells kFineOccupiedVolumeCells{0.5, 32.0};

GridGeometry geometry_for(double cell, const double origin[3], const double extent[3],
                          double max_radius, GridCells cells) {
  GridGeometry g{};
  g.origin = {static_cast<float>(origin[0]), static_cast<float>(origin[1]),
              static_cast<float>(origin[2])};
  g.cell_size = static_cast<float>(cell);
  g.inv_cell_size = static_cast<float>(1.0 / cell);
  for (int a = 0; a < 3; ++a) {
    g.dims[a] = static_cast<int>(std::max(1.0, std::ceil(extent[a] / cell)));
  }
  // Up to one cell: a reach of one cell already makes the traversal test 3 x 3 cells per slab.
  // Listed where they overlap, grains need no reach beyond the rounding pad.
  const double radius = cells == GridCells::overlaps                    ? 0.0
                        : max_radius > 0.0 && std::isfinite(max_radius) ? std::min(max_radius, cell)
                                                                        : 0.5 * cell;
  g.centre_radius = static_cast<float>(radius);
  g.reach = static_cast<float>(radius + kCellListingPad * cell);
  return g;
}

double cells_of(const GridGeometry& g) {
  return static_cast<double>(g.dims[0]) * g.dims[1] * g.dims[2];
}

// The bounds' box grown by a margin, so that clipping rays to the grid never cuts a sphere, and
// its volume (each side at least a mean diameter).
struct GridBox {
  double origin[3];
  double extent[3];
  double volume;
  double mean_diameter;
};

GridBox grid_box(const SceneBounds& bounds) {
  GridBox box{};
  const double n = static_cast<double>(bounds.renderable);
  const double lo[3] = {bounds.lo.x, bounds.lo.y, bounds.lo.z};
  const double hi[3] = {bounds.hi.x, bounds.hi.y, bounds.hi.z};
  box.mean_diameter = bounds.diameter_sum / n;
  double span = box.mean_diameter;
  for (int a = 0; a < 3; ++a) span = std::max(span, hi[a] - lo[a]);
  const double margin = 1e-4 * span;
  box.volume = 1.0;
  for (int a = 0; a < 3; ++a) {
    box.origin[a] = lo[a] - margin;
    box.extent[a] = hi[a] - lo[a] + 2.0 * margin;
    box.volume *= std::max(box.extent[a], box.mean_diameter);
  }
  return box;
}

// Cells of at least `cell` over `box`, made coarser until at most `max_cells` of them fit (an
// elongated box); `cell` is left at the size taken.
GridGeometry fitted_geometry(double& cell, const GridBox& box, double max_cells, float max_radius,
                             GridCells cells) {
  GridGeometry g = geometry_for(cell, box.origin, box.extent, max_radius, cells);
  while (cells_of(g) > max_cells) {
    cell *= 1.01 * std::cbrt(cells_of(g) / max_cells);
    g = geometry_for(cell, box.origin, box.extent, max_radius, cells);
  }
  return g;
}

}  // namespace

GridGeometry occupancy_geometry(const SceneBounds& bounds) {
  const GridBox box = grid_box(bounds);
  const double cells =
      std::clamp(static_cast<double>(bounds.renderable) / kGrainsPerOccupancyCell, 1.0, kMaxCells);
  double cell = std::cbrt(box.volume / cells);
  return fitted_geometry(cell, box, cells, bounds.max_radius, GridCells::centres);
}

OccupiedVolumeCells occupied_volume_cells(CellSizing sizing) {
  switch (sizing) {
    case CellSizing::by_box:
      return {-1.0, kCellsPerParticle};
    case CellSizing::by_occupied_volume:
      return {kMostShareSizedByOccupancy, kMostCellsPerParticle};
    case CellSizing::finely_by_occupied_volume:
      return kFineOccupiedVolumeCells;
  }
  return {-1.0, kCellsPerParticle};
}

GridLayout choose_grid_layout(
    const SceneBounds& bounds,
    const std::function<std::uint64_t(const GridGeometry&)>& count_references, GridCells cells,
    double occupied_share, double cells_per_particle, CellSizing sizing) {
  const double n = static_cast<double>(bounds.renderable);
  const GridBox box = grid_box(bounds);
  // A bed that occupies at most the sizing's share of its box gets one cell per particle over
  // that share: its grains then lie about one to a cell, as a dense box's do, and the walks leap
  // over the empty rest (GridView::clearance).
  const OccupiedVolumeCells by_volume = occupied_volume_cells(sizing);
  const double share =
      occupied_share <= by_volume.most_share
          ? std::clamp(occupied_share, kCellsPerParticle / by_volume.most_cells_per_particle, 1.0)
          : 1.0;
  const double max_cells =
      std::clamp(cells_per_particle * kCellsPerParticle * n / share, 64.0, kMaxCells);
  const double smallest =
      cells == GridCells::overlaps ? kOverlapCellDiameters * box.mean_diameter : box.mean_diameter;
  double cell = std::max(smallest, std::cbrt(box.volume / max_cells));
  GridGeometry g = fitted_geometry(cell, box, max_cells, bounds.max_radius, cells);

  const double max_refs = std::min(kReferencesPerParticle * n + kReferenceSlack, kMaxReferences);
  std::uint64_t refs = count_references(g);
  for (int i = 0; static_cast<double>(refs) > max_refs; ++i) {
    if (i == kMaxRefinements) {
      throw OutOfMemoryError("cannot fit " + std::to_string(bounds.renderable) +
                             " particles into a grid with 32-bit references");
    }
    // Huge grains overlap many cells: coarser cells (twice the volume) until the list is bounded.
    cell *= 1.26;
    g = geometry_for(cell, box.origin, box.extent, bounds.max_radius, cells);
    refs = count_references(g);
  }
  return {g, static_cast<std::uint64_t>(cells_of(g)), refs};
}

}  // namespace granray::detail
