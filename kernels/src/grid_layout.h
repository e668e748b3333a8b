// How the cell size of a frame's grid is chosen (docs/design.md, "Grid resolution").
#pragma once

#include <cstdint>
#include <functional>

#include "granray/kernels/grid_view.h"
#include "granray/particles.h"

namespace granray::detail {

struct GridLayout {
  GridGeometry geometry;
  std::uint64_t cells;
  std::uint64_t references;
};

// What a frame's grid sizes its cells by: the grains' box, or the volume they occupy in it (where
// that is a small share, choose_grid_layout's occupied_share), as the frames' grids do, or finer
// still (more of the box sized by what the grains occupy, more cells a grain in all: fewer grains
// tested a ray, more cells walked and a larger grid). Where the backend says so, the grids of
// bounce rays and of the path-traced still keep the box's cells (docs/design.md, "Cells sized by
// the occupied volume").
enum class CellSizing { by_box, by_occupied_volume, finely_by_occupied_volume };

// Where a grid's cells follow the occupied volume: where the grains occupy at most `most_share`
// of their box, about one cell a grain over that share, up to `most_cells_per_particle` cells a
// grain in all.
struct OccupiedVolumeCells {
  double most_share;
  double most_cells_per_particle;
};
OccupiedVolumeCells occupied_volume_cells(CellSizing sizing);

// count_references(g) returns how many (cell, sphere) references geometry g would hold; its last
// call is with the geometry returned (so it may count into that grid's cells as it goes).
// `occupied_share`: the share of the bounds' box that the grains occupy (occupancy_geometry); where
// `sizing` sizes by it and it is small enough (occupied_volume_cells), the cells are sized so
// that about one cell per particle covers that share. `cells_per_particle` scales those counts
// (the contact capsules' grid, contact_scene.inl).
GridLayout choose_grid_layout(
    const SceneBounds& bounds,
    const std::function<std::uint64_t(const GridGeometry&)>& count_references,
    GridCells cells = GridCells::centres, double occupied_share = 1.0,
    double cells_per_particle = 1.0, CellSizing sizing = CellSizing::by_occupied_volume);

// The coarse grid that estimates the occupied share: about kGrainsPerOccupancyCell particles per
// cell over the bounds' box, the share being the part of its cells that hold a particle's centre.
constexpr double kGrainsPerOccupancyCell = 8.0;
GridGeometry occupancy_geometry(const SceneBounds& bounds);

// True when geometry g lists every renderable sphere of `bounds` once (none is larger than its
// centre_radius); needs the bounds' max_radius, and says false when that is unknown (0).
inline bool lists_every_sphere_once(const SceneBounds& bounds, const GridGeometry& g) {
  return bounds.max_radius > 0.0f && bounds.max_radius <= g.centre_radius;
}

}  // namespace granray::detail
