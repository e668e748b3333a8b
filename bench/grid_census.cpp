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
  c.has_clearance = !grid.clearance.empty();
  if (c.has_clearance && cells > 0) {
    const GridView view = grid.view();
    const GridGeometry& g = grid.geometry;
    const int least = leap_margin_cells(g) + 1;
    std::size_t leaping = 0;
    for (int z = 0; z < g.dims[2]; ++z)
      for (int y = 0; y < g.dims[1]; ++y)
        for (int x = 0; x < g.dims[0]; ++x)
          leaping += cell_clearance(clearance_of_cell(view, x, y, z)) >= least;
    c.leaping_cells = double(leaping) / double(cells);
  }
  return c;
}

std::string describe(const HostGrid& grid, const GridCensus& census) {
  const GridGeometry& g = grid.geometry;
  char leaps[64] = "no clearance (walks visit every cell)";
  if (census.has_clearance) {
    std::snprintf(leaps, sizeof leaps, "walks leap from %.0f %% of the cells",
                  100.0 * census.leaping_cells);
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "grid %d x %d x %d, %.2f cells a grain, %.2f grains a listing cell, %s", g.dims[0],
                g.dims[1], g.dims[2], census.cells_per_grain, census.grains_per_listing_cell,
                leaps);
  return line;
}

}  // namespace granray::bench
