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

GRANRAY_HD_INLINE Interval clip_to_box(const Ray& ray, Vec3 lo, Vec3 hi, float t_min, float t_max) {
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
    float t0 = (l - o) / d;
    float t1 = (h - o) / d;
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

// One axis of a 3D-DDA walk. walk_cells keeps three as named locals, not arrays indexed by the
// axis that steps: indexed arrays went to the stack on the CPU (and force local memory on the
// GPU); named ones stay in registers. The arithmetic is the same either way.
struct DdaAxis {
  float origin;  // ray origin
  float dir;
  float lo;  // grid origin
  int dim;
  int cell;
  int step;
  float t_next;  // where the ray crosses into the next cell along this axis

  GRANRAY_HD void start(float o, float d, float grid_lo, int n, float t_enter,
                        const GridGeometry& grid) {
    origin = o;
    dir = d;
    lo = grid_lo;
    dim = n;
    const float p = o + d * t_enter;
    cell = clamp_cell((p - lo) * grid.inv_cell_size, n);
    step = d > 0.0f ? 1 : (d < 0.0f ? -1 : 0);
    t_next = step == 0 ? INFINITY : boundary_t(grid.cell_size);
  }
  GRANRAY_HD float boundary_t(float cell_size) const {
    const int boundary = cell + (step > 0 ? 1 : 0);
    return (lo + static_cast<float>(boundary) * cell_size - origin) / dir;
  }
  // Steps into the next cell; false when that leaves the grid.
  GRANRAY_HD bool advance(float& t, float cell_size) {
    cell += step;
    if (cell < 0 || cell >= dim) return false;
    t = nan_ignoring_max(t, t_next);
    t_next = boundary_t(cell_size);
    return true;
  }
};

// 3D-DDA (Amanatides & Woo 1987; seed 002): visits the cells that the ray crosses inside
// [t_min, t_max], front to back. visit(cell, t_cell_enter, t_cell_exit) returns true to stop.
// Cell boundaries are recomputed from the cell index at each step rather than accumulated, so the
// error stays at one rounding however long the walk.
template <class Visitor>
GRANRAY_HD void walk_cells(const GridGeometry& g, const Ray& ray, float t_min, float t_max,
                           Visitor&& visit) {
  const Vec3 hi = {g.origin.x + g.cell_size * static_cast<float>(g.dims[0]),
                   g.origin.y + g.cell_size * static_cast<float>(g.dims[1]),
                   g.origin.z + g.cell_size * static_cast<float>(g.dims[2])};
  const Interval span = clip_to_box(ray, g.origin, hi, t_min, t_max);
  if (!(span.enter <= span.exit)) return;

  DdaAxis x, y, z;
  x.start(ray.origin.x, ray.dir.x, g.origin.x, g.dims[0], span.enter, g);
  y.start(ray.origin.y, ray.dir.y, g.origin.y, g.dims[1], span.enter, g);
  z.start(ray.origin.z, ray.dir.z, g.origin.z, g.dims[2], span.enter, g);

  float t = span.enter;
  for (;;) {
    int axis = 0;
    float t_axis = x.t_next;
    if (y.t_next < t_axis) {
      axis = 1;
      t_axis = y.t_next;
    }
    if (z.t_next < t_axis) {
      axis = 2;
      t_axis = z.t_next;
    }
    const float t_leave = nan_ignoring_min(t_axis, span.exit);
    if (visit(cell_index(g, x.cell, y.cell, z.cell), t, t_leave)) return;
    if (t_leave >= span.exit) return;
    const bool inside = axis == 0   ? x.advance(t, g.cell_size)
                        : axis == 1 ? y.advance(t, g.cell_size)
                                    : z.advance(t, g.cell_size);
    if (!inside) return;
  }
}

}  // namespace granray
