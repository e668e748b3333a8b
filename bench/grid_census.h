// What a frame's grid made of a scene: how fine its cells are, how full the listing ones, and how
// much empty space its bricks leave (granray-bench --grid-census).
#pragma once

#include <cstddef>
#include <string>

#include "granray/renderer.h"

namespace granray::bench {

struct GridCensus {
  double cells_per_grain = 0.0;
  double grains_per_listing_cell = 0.0;  // references over the cells that list any
  double marked_bricks = 1.0;            // share of the bricks marked; 1 without bricks
  bool skips_empty = false;              // the frames' walks skip the unmarked bricks
};

GridCensus grid_census(const HostGrid& grid, std::size_t grains);

// One line: "grid 231 x 231 x 53, 2.83 cells a grain, 1.09 grains a listing cell, bricks 40 %
// marked (walks skip)".
std::string describe(const HostGrid& grid, const GridCensus& census);

}  // namespace granray::bench
