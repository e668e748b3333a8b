#pragma once

#include "granray/kernels/dda.h"
#include "granray/kernels/intersect.h"

namespace granray {

// How a particle's array index becomes its global id: explicit ids, or the index offset by the
// particles of the ranks before this one (SPEC 1).
struct IdMap {
  const std::uint64_t* ids;
  std::uint64_t offset;

  GRANRAY_HD std::uint64_t operator()(std::uint32_t index) const {
    return ids != nullptr ? ids[index] : offset + index;
  }
};

// Nearest hit through the grid: walk cells front to back and stop at the first cell whose
// exit lies beyond the best hit found so far. A sphere hit at t lies inside its own padded box,
// so every cell that contains the hit point lists it: no neighbour cells are ever tested.
GRANRAY_HD_INLINE Hit trace_grid(const GridView& grid, const IdMap& id_of, const Ray& ray) {
  Hit best = no_hit();
  walk_cells(grid.geometry, ray, 0.0f, INFINITY, [&](std::uint32_t cell, float, float t_leave) {
    const std::uint32_t end = grid.cell_end[cell];
    for (std::uint32_t k = grid.cell_start[cell]; k < end; ++k) {
      const float t = sphere_entry_distance(ray, grid.ref_spheres[k]);
      if (t < INFINITY) {
        const std::uint32_t index = grid.ref_index[k];
        const std::uint64_t id = id_of(index);
        if (closer(t, id, best)) best = {t, id, index};
      }
    }
    return best.t <= t_leave;
  });
  return best;
}

// Seed 001's reference: test every sphere.
GRANRAY_HD_INLINE Hit trace_all(const Vec4* spheres, std::uint32_t count, const IdMap& id_of,
                                const Ray& ray) {
  Hit best = no_hit();
  for (std::uint32_t index = 0; index < count; ++index) {
    const Vec4 s = spheres[index];
    if (!is_renderable(s)) continue;
    const float t = sphere_entry_distance(ray, s);
    if (t < INFINITY) {
      const std::uint64_t id = id_of(index);
      if (closer(t, id, best)) best = {t, id, index};
    }
  }
  return best;
}

}  // namespace granray
