#include "grid_census.h"

#include <algorithm>
#include <cstdio>

namespace granray::bench {

GridCensus grid_census(const HostGrid& grid, std::size_t grains) {
  GridCensus c;
  const std::size_t cells = grid.cell_offsets.empty() ? 0 : grid.cell_offsets.size() - 1;
  std::size_t listing = 0;
  for (std::size_t k = 0; k < cells; ++k)
    listing += grid.cell_offsets[k + 1] > grid.cell_offsets[k];
  if (grains > 0) c.cells_per_grain = double(cells) / double(grains);
  if (listing > 0) c.grains_per_listing_cell = double(grid.ref_index.size()) / double(listing);
  if (!grid.bricks.empty()) {
    const auto marked = std::count_if(grid.bricks.begin(), grid.bricks.end(),
                                      [](std::uint8_t b) { return b != 0; });
    c.marked_bricks = double(marked) / double(grid.bricks.size());
  }
  c.skips_empty = grid.skips_empty;
  return c;
}

std::string describe(const HostGrid& grid, const GridCensus& census) {
  const GridGeometry& g = grid.geometry;
  char bricks[64] = "no bricks";
  if (!grid.bricks.empty()) {
    std::snprintf(bricks, sizeof bricks, "bricks %.0f %% marked (%s)", 100.0 * census.marked_bricks,
                  census.skips_empty ? "walks skip" : "walks do not skip");
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "grid %d x %d x %d, %.2f cells a grain, %.2f grains a listing cell, %s", g.dims[0],
                g.dims[1], g.dims[2], census.cells_per_grain, census.grains_per_listing_cell,
                bricks);
  return line;
}

}  // namespace granray::bench
