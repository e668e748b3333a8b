#pragma once

#include "granray/kernels/dda.h"
#include "granray/kernels/intersect.h"
#include "granray/kernels/sphere_batch.h"

namespace granray {

// How a particle's array index becomes its global id: explicit ids, or the index offset by the
// particles of the ranks before this one (contract 1).
struct IdMap {
  const std::uint64_t* ids;
  std::uint64_t offset;

  GRANRAY_HD std::uint64_t operator()(std::uint32_t index) const {
    return ids != nullptr ? ids[index] : offset + index;
  }
};

// The nearest hit among the spheres the grid lists in the cells it is shown.
struct NearestListedHit {
  const GridView& grid;
  const IdMap& id_of;
  const Ray& ray;
  Hit best;
  bool eight_wide = false;  // SphereBatch8: only in code compiled for AVX2 (avx2_kernel.h)

  // A sphere listed once lies inside its cell's box grown by the reach (a larger one is listed
  // in the cell of its hit point), so its hit cannot come before the ray enters that grown box:
  // once the best hit is nearer than the next grown box, it is final.
  GRANRAY_HD bool done_before(float t) const { return best.t < t; }

  GRANRAY_HD void visit(std::uint32_t first_cell, std::uint32_t last_cell) {
    const std::uint32_t end = grid.cell_offsets[last_cell + 1];
    std::uint32_t k = grid.cell_offsets[first_cell];
#if GRANRAY_SPHERE_BATCH
    if (end - k > 1) {
#if GRANRAY_WIDE_SPHERE_BATCH
      if (eight_wide) {
        visit_eight_wide(k, end);
        return;
      }
#endif
      SphereBatch batch(ray);
      for (; k < end; k += 4) take_hits(batch, batch.entries(grid.ref_spheres + k, end - k), k);
      return;
    }
#endif
    for (; k < end; ++k) take(k);
  }

  // Listed sphere k weighed against the best; never ends the walk (walk_listed_spheres).
  GRANRAY_HD bool take(std::uint32_t k) {
    const float t = sphere_entry_distance(ray, grid.ref_spheres[k]);
    if (t < INFINITY) {
      const std::uint32_t index = grid.ref_index[k];
      const std::uint64_t id = id_of(index);
      if (closer(t, id, best)) best = {t, id, index};
    }
    return false;
  }

#if GRANRAY_SPHERE_BATCH
  // The batch's entered lanes (bits of `hits`, lane 0 reference k) weighed against the best.
  template <class Batch>
  void take_hits(const Batch& batch, unsigned hits, std::uint32_t k) {
    for (; hits != 0u; hits &= hits - 1u) {
      const int lane = __builtin_ctz(hits);
      const std::uint32_t index = grid.ref_index[k + lane];
      const std::uint64_t id = id_of(index);
      if (closer(batch.t(lane), id, best)) best = {batch.t(lane), id, index};
    }
  }
#endif

#if GRANRAY_WIDE_SPHERE_BATCH
  GRANRAY_AVX2 void visit_eight_wide(std::uint32_t k, std::uint32_t end) {
    SphereBatch8 batch(ray);
    for (; k < end; k += 8) take_hits(batch, batch.entries(grid.ref_spheres + k, end - k), k);
  }
#endif
};

// trace_grid's hit through walk_listed_spheres' one flat loop: what trace_grid runs on the GPU.
GRANRAY_HD_INLINE Hit trace_grid_flat(const GridView& grid, const IdMap& id_of, const Ray& ray,
                                      float t_min = 0.0f) {
  NearestListedHit nearest{grid, id_of, ray, no_hit()};
  walk_listed_spheres(grid, ray, t_min, INFINITY, nearest);
  return nearest.best;
}

// trace_grid_flat's hit through walk_listed_spheres_leaping: for a grid with clearance
// (GridView::clearance), the GPU's primary rays where a frame's grid leaps over empty space.
GRANRAY_HD_INLINE Hit trace_grid_leaping(const GridView& grid, const IdMap& id_of, const Ray& ray,
                                         float t_min = 0.0f) {
  NearestListedHit nearest{grid, id_of, ray, no_hit()};
  walk_listed_spheres_leaping(grid, ray, t_min, INFINITY, nearest);
  return nearest.best;
}

// trace_grid's hit over every cell, whatever clearance the grid has: the GPU's primary rays of
// grids without it, whose kernel then holds one loop.
GRANRAY_HD_INLINE Hit trace_grid_plain(const GridView& grid, const IdMap& id_of, const Ray& ray,
                                       bool eight_wide = false, float t_min = 0.0f) {
#if defined(__CUDA_ARCH__)
  (void)eight_wide;
  NearestListedHit nearest{grid, id_of, ray, no_hit()};
  walk_listed_spheres_between(grid, ray, t_min, INFINITY, nearest);
#else
  NearestListedHit nearest{grid, id_of, ray, no_hit(), eight_wide};
  walk_grown_cells(grid.geometry, ray, t_min, INFINITY, nearest);
#endif
  return nearest.best;
}

// Nearest hit through the grid: the cells whose grown boxes the ray crosses, front to back,
// until the best hit lies before the next one. `eight_wide`: NearestListedHit's.
GRANRAY_HD_INLINE Hit trace_grid(const GridView& grid, const IdMap& id_of, const Ray& ray,
                                 bool eight_wide = false, float t_min = 0.0f) {
#if defined(__CUDA_ARCH__)
  // One flat loop: on an H200, the primary rays' cast 0.110 -> 0.083 ms and the bounce pass of
  // metal and glass 1.27 -> 1.05 ms (docs/benchmarks.md). The CPU tests a run's spheres four or
  // eight at a time (SphereBatch), which wants the runs whole.
  (void)eight_wide;
  return trace_grid_flat(grid, id_of, ray, t_min);
#else
  NearestListedHit nearest{grid, id_of, ray, no_hit(), eight_wide};
  walk_grown_cells(grid, ray, t_min, INFINITY, nearest);
  return nearest.best;
#endif
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
