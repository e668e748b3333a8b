#pragma once

#include "granray/kernels/grid_view.h"
#include "granray/kernels/ray.h"

namespace granray {

// Parameter interval [t_enter, t_exit] of a ray inside an axis-aligned box; empty when
// t_enter > t_exit. Axis-parallel rays are handled without dividing by zero.
struct Interval {
  float enter;
  float exit;
};

// Where the ray is inside the box [lo, hi] within [t_min, t_max] (empty when enter > exit), given
// its reciprocal direction inv_dir (reciprocal(ray.dir)). One division per axis, not two: an IEEE
// division is a long sequence on the GPU, and the product's extra rounding is far inside the pad
// that the cells' reach carries.
GRANRAY_HD_INLINE Interval clip_to_box(const Ray& ray, Vec3 inv_dir, Vec3 lo, Vec3 hi, float t_min,
                                       float t_max) {
  Interval span{t_min, t_max};
  for (int a = 0; a < 3; ++a) {
    const float o = component(ray.origin, a);
    const float d = component(ray.dir, a);
    const float l = component(lo, a);
    const float h = component(hi, a);
    if (d == 0.0f) {
      if (o < l || o > h) return {1.0f, 0.0f};
      continue;
    }
    const float inv = component(inv_dir, a);
    float t0 = (l - o) * inv;
    float t1 = (h - o) * inv;
    if (t0 > t1) {
      const float tmp = t0;
      t0 = t1;
      t1 = tmp;
    }
    span.enter = nan_ignoring_max(span.enter, t0);
    span.exit = nan_ignoring_min(span.exit, t1);
  }
  return span;
}

GRANRAY_HD_INLINE Interval clip_to_box(const Ray& ray, Vec3 lo, Vec3 hi, float t_min, float t_max) {
  return clip_to_box(ray, reciprocal(ray.dir), lo, hi, t_min, t_max);
}

// One axis of the walk over grown cells: the window [lo, hi] of the cell indices whose extent
// along this axis, grown by the reach on both sides, holds the ray's current point; when the next
// index enters the window ahead of the ray and when the last one leaves it behind. The ray
// crosses the grown low face of cell i at lower + i * per_cell and its grown high face at
// upper + i * per_cell: boundaries come from the indices at each step rather than being
// accumulated, so the error stays at a few roundings however long the walk. walk_grown_cells
// keeps three of these as named locals, not an array indexed by axis: indexed arrays go to the
// stack on the CPU and to local memory on the GPU.
struct GrownAxis {
  float lower;
  float upper;
  float per_cell;
  int dim;
  int step;
  int lo, hi;  // the window, inclusive, inside [0, dim)
  float t_enter;
  float t_leave;

  // inv: 1 / d, as clip_to_box takes it.
  GRANRAY_HD void start(float o, float d, float inv, float grid_origin, int n, float t0,
                        const GridGeometry& g) {
    dim = n;
    step = d > 0.0f ? 1 : (d < 0.0f ? -1 : 0);
    const float p = o + d * t0 - grid_origin;
    lo = clamp_cell((p - g.reach) * g.inv_cell_size, n);
    hi = clamp_cell((p + g.reach) * g.inv_cell_size, n);
    lower = (grid_origin - g.reach - o) * inv;
    upper = (grid_origin + g.cell_size + g.reach - o) * inv;
    per_cell = g.cell_size * inv;
    schedule();
  }
  GRANRAY_HD void schedule() {
    t_enter = t_leave = INFINITY;
    if (step > 0) {
      if (hi + 1 < dim) t_enter = lower + static_cast<float>(hi + 1) * per_cell;
      if (lo < hi) t_leave = upper + static_cast<float>(lo) * per_cell;
    } else if (step < 0) {
      if (lo > 0) t_enter = upper + static_cast<float>(lo - 1) * per_cell;
      if (lo < hi) t_leave = lower + static_cast<float>(hi) * per_cell;
    }
  }
  // The index that enters the window.
  GRANRAY_HD int enter() {
    const int index = step > 0 ? ++hi : --lo;
    schedule();
    return index;
  }
  // Drops the indices the ray has left behind before time t.
  GRANRAY_HD void leave_before(float t) {
    while (t_leave < t) {
      if (step > 0) {
        ++lo;
      } else {
        --hi;
      }
      schedule();
    }
  }
};

// The grid's corner opposite its origin.
GRANRAY_HD_INLINE Vec3 grid_far_corner(const GridGeometry& g) {
  return {g.origin.x + g.cell_size * static_cast<float>(g.dims[0]),
          g.origin.y + g.cell_size * static_cast<float>(g.dims[1]),
          g.origin.z + g.cell_size * static_cast<float>(g.dims[2])};
}

// The walk behind the grid's traversal (a 3D-DDA, Amanatides & Woo 1987, seed 002, over cells
// grown by the grid's reach): visits, front to back by where the ray enters their grown box,
// every cell whose grown box the ray crosses inside the grid during [t_min, t_max], each once.
// A cell becomes due when the last of its three indices enters its axis's window, so each event
// brings one slab of the windows' product. The visitor offers
//   bool done_before(float t): true when nothing the walk has yet to visit can matter, the next
//                              cell's grown box being entered at t;
//   void visit(first, last):   cells first..last, one run along x (consecutive indices).
template <class Visitor>
GRANRAY_HD void walk_grown_cells(const GridGeometry& g, const Ray& ray, float t_min, float t_max,
                                 Visitor& visitor) {
  // The reciprocal direction once for the clip and the three axes (they are not always inlined
  // together, and the CPU would divide twice).
  const Vec3 inv = reciprocal(ray.dir);
  const Interval span = clip_to_box(ray, inv, g.origin, grid_far_corner(g), t_min, t_max);
  if (!(span.enter <= span.exit)) return;

  GrownAxis x, y, z;
  x.start(ray.origin.x, ray.dir.x, inv.x, g.origin.x, g.dims[0], span.enter, g);
  y.start(ray.origin.y, ray.dir.y, inv.y, g.origin.y, g.dims[1], span.enter, g);
  z.start(ray.origin.z, ray.dir.z, inv.z, g.origin.z, g.dims[2], span.enter, g);
  for (int k = z.lo; k <= z.hi; ++k)
    for (int j = y.lo; j <= y.hi; ++j)
      visitor.visit(cell_index(g, x.lo, j, k), cell_index(g, x.hi, j, k));

  for (;;) {
    const float t_enter = nan_ignoring_min(x.t_enter, nan_ignoring_min(y.t_enter, z.t_enter));
    if (!(t_enter <= span.exit) || visitor.done_before(t_enter)) return;
    // Indices left behind before the next one enters go first; on a tie the window grows first,
    // so a cell touched only at that instant is visited too.
    x.leave_before(t_enter);
    y.leave_before(t_enter);
    z.leave_before(t_enter);
    if (x.t_enter == t_enter) {
      const int i = x.enter();
      for (int k = z.lo; k <= z.hi; ++k)
        for (int j = y.lo; j <= y.hi; ++j) {
          const std::uint32_t cell = cell_index(g, i, j, k);
          visitor.visit(cell, cell);
        }
    } else if (y.t_enter == t_enter) {
      const int j = y.enter();
      for (int k = z.lo; k <= z.hi; ++k)
        visitor.visit(cell_index(g, x.lo, j, k), cell_index(g, x.hi, j, k));
    } else {
      const int k = z.enter();
      for (int j = y.lo; j <= y.hi; ++j)
        visitor.visit(cell_index(g, x.lo, j, k), cell_index(g, x.hi, j, k));
    }
  }
}

}  // namespace granray
