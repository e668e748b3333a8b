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

// count_references(g) returns how many (cell, sphere) references geometry g would hold.
GridLayout choose_grid_layout(
    const SceneBounds& bounds,
    const std::function<std::uint64_t(const GridGeometry&)>& count_references,
    GridCells cells = GridCells::centres);

// True when geometry g lists every renderable sphere of `bounds` once (none is larger than its
// centre_radius); needs the bounds' max_radius, and says false when that is unknown (0).
inline bool lists_every_sphere_once(const SceneBounds& bounds, const GridGeometry& g) {
  return bounds.max_radius > 0.0f && bounds.max_radius <= g.centre_radius;
}

}  // namespace granray::detail
