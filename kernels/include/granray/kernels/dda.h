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

  int cell[3];
  int step[3];
  float t_next[3];
  for (int a = 0; a < 3; ++a) {
    const float o = component(ray.origin, a);
    const float d = component(ray.dir, a);
    const float lo = component(g.origin, a);
    const float p = o + d * span.enter;
    cell[a] = clamp_cell((p - lo) * g.inv_cell_size, g.dims[a]);
    step[a] = d > 0.0f ? 1 : (d < 0.0f ? -1 : 0);
    if (step[a] == 0) {
      t_next[a] = INFINITY;
    } else {
      const int boundary = cell[a] + (step[a] > 0 ? 1 : 0);
      t_next[a] = (lo + static_cast<float>(boundary) * g.cell_size - o) / d;
    }
  }

  float t = span.enter;
  for (;;) {
    int axis = 0;
    if (t_next[1] < t_next[axis]) axis = 1;
    if (t_next[2] < t_next[axis]) axis = 2;
    const float t_leave = nan_ignoring_min(t_next[axis], span.exit);
    if (visit(cell_index(g, cell[0], cell[1], cell[2]), t, t_leave)) return;
    if (t_leave >= span.exit) return;
    cell[axis] += step[axis];
    if (cell[axis] < 0 || cell[axis] >= g.dims[axis]) return;
    t = nan_ignoring_max(t, t_next[axis]);
    const int boundary = cell[axis] + (step[axis] > 0 ? 1 : 0);
    t_next[axis] = (component(g.origin, axis) + static_cast<float>(boundary) * g.cell_size -
                    component(ray.origin, axis)) /
                   component(ray.dir, axis);
  }
}

}  // namespace granray
