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
    const std::function<std::uint64_t(const GridGeometry&)>& count_references);

}  // namespace granray::detail
