// What a frame's grid made of a scene: how fine its cells are, how full the listing ones, and from
// how many of its cells a walk leaps (granray-bench --grid-census).
#pragma once

#include <cstddef>
#include <string>

#include "granray/renderer.h"

namespace granray::bench {

struct GridCensus {
  double cells_per_grain = 0.0;
  double grains_per_listing_cell = 0.0;  // references over the cells that list any
  // Share of the cells whose clearance lets a walk leap (GridView::clearance); 0 without it.
  double leaping_cells = 0.0;
  bool has_clearance = false;
};

GridCensus grid_census(const HostGrid& grid, std::size_t grains);

// One line: "grid 231 x 231 x 53, 2.83 cells a grain, 1.09 grains a listing cell, walks leap from
// 58 % of the cells".
std::string describe(const HostGrid& grid, const GridCensus& census);

}  // namespace granray::bench
