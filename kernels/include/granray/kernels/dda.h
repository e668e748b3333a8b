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
// accumulated, so the error stays at a few roundings however long the walk. GrownCellWalk
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
    lower = (grid_origin - g.reach - o) * inv;
    upper = (grid_origin + g.cell_size + g.reach - o) * inv;
    per_cell = g.cell_size * inv;
    restart(o + d * t0 - grid_origin, g);
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
  // The window of the ray's point p (relative to the grid's origin on this axis), from the
  // ray's terms: how a walk starts, and starts again after a leap without a division.
  GRANRAY_HD void restart(float p, const GridGeometry& g) {
    lo = clamp_cell((p - g.reach) * g.inv_cell_size, dim);
    hi = clamp_cell((p + g.reach) * g.inv_cell_size, dim);
    schedule();
  }
  // When the ray leaves the cells [c - w, c + w] on this axis (INFINITY when it runs along it):
  // the plane of index c + w + 1 or c - w, from the ray's terms (reach_cells: reach / cell size).
  GRANRAY_HD float leaves_cells(int c, int w, float reach_cells) const {
    if (step == 0) return INFINITY;
    const int plane = step > 0 ? c + w + 1 : c - w;
    return lower + (static_cast<float>(plane) + reach_cells) * per_cell;
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

// The cells [i_first, i_last] x [j_first, j_last] x [k_first, k_last]: a run along x for each
// (j, k).
struct CellSlab {
  int i_first, i_last, j_first, j_last, k_first, k_last;
};

// The walk behind the grid's traversal (a 3D-DDA, Amanatides & Woo 1987, seed 002, over cells
// grown by the grid's reach): visits, front to back by where the ray enters their grown box,
// every cell whose grown box the ray crosses inside the grid during [t_min, t_max], each once.
// A cell becomes due when the last of its three indices enters its axis's window, so each event
// brings one slab of the windows' product. Held as an iterator over those slabs, so that a
// caller may hand out their runs one at a time between its own work (walk_listed_spheres) as
// well as whole (walk_grown_cells).
class GrownCellWalk {
 public:
  // The first slab; false when the ray crosses no grown cell inside the grid during
  // [t_min, t_max].
  GRANRAY_HD_PIXEL_INLINE bool start(const GridGeometry& g, const Ray& ray, float t_min,
                                     float t_max, CellSlab& slab) {
    // The reciprocal direction once for the clip and the three axes (they are not always inlined
    // together, and the CPU would divide twice).
    const Vec3 inv = reciprocal(ray.dir);
    const Interval span = clip_to_box(ray, inv, g.origin, grid_far_corner(g), t_min, t_max);
    if (!(span.enter <= span.exit)) return false;
    exit_ = span.exit;
    x_.start(ray.origin.x, ray.dir.x, inv.x, g.origin.x, g.dims[0], span.enter, g);
    y_.start(ray.origin.y, ray.dir.y, inv.y, g.origin.y, g.dims[1], span.enter, g);
    z_.start(ray.origin.z, ray.dir.z, inv.z, g.origin.z, g.dims[2], span.enter, g);
    slab = {x_.lo, x_.hi, y_.lo, y_.hi, z_.lo, z_.hi};
    return true;
  }

  // When the next slab's cells are entered: past the grid's exit (or INFINITY) when none is left.
  GRANRAY_HD float next_entry() const {
    return nan_ignoring_min(x_.t_enter, nan_ignoring_min(y_.t_enter, z_.t_enter));
  }

  // The next slab; false when the walk is over: past the grid or t_max, or
  // `until.done_before(t)` says that nothing entered at t or later can matter.
  template <class Until>
  GRANRAY_HD_PIXEL_INLINE bool next(Until& until, CellSlab& slab) {
    const float t_enter = next_entry();
    if (!(t_enter <= exit_) || until.done_before(t_enter)) return false;
    // Indices left behind before the next one enters go first; on a tie the window grows first,
    // so a cell touched only at that instant is visited too.
    x_.leave_before(t_enter);
    y_.leave_before(t_enter);
    z_.leave_before(t_enter);
    if (x_.t_enter == t_enter) {
      const int i = x_.enter();
      slab = {i, i, y_.lo, y_.hi, z_.lo, z_.hi};
    } else if (y_.t_enter == t_enter) {
      const int j = y_.enter();
      slab = {x_.lo, x_.hi, j, j, z_.lo, z_.hi};
    } else {
      const int k = z_.enter();
      slab = {x_.lo, x_.hi, y_.lo, y_.hi, k, k};
    }
    return true;
  }

  // The next slab, as next() gives it; but after a slab that listed nothing (`listed` false) in
  // a grid with clearance, the first slab where the walk starts again beyond the clear cube
  // about the ray's point (leap_from), when there is one. Nothing passed lists a sphere, and no
  // listing cell's grown box is met twice (a ray cannot leave a convex box and enter it again),
  // so the listing cells met, and their order, are next()'s.
  template <class Until>
  GRANRAY_HD_PIXEL_INLINE bool next_or_leap(const GridView& grid, const Ray& ray, bool listed,
                                            Until& until, CellSlab& slab) {
    if (!listed) {
      const float t = next_entry();
      if (t <= exit_) {
        const float to = leap_from(grid, ray, t);
        if (to > t) return !until.done_before(to) && restart(grid.geometry, ray, to, slab);
      }
    }
    return next(until, slab);
  }

 private:
  // Where the walk may start again (restart) after a slab that listed nothing, the next slab
  // being entered at t (GridView::clearance): where the ray leaves the cube of cells about the
  // cell of its point at t that no listing cell's grown box meets; t itself where its block's
  // clearance leaves no such cube. Nothing the walk would meet in between lists a sphere. The
  // cube keeps a cell of margin beyond the reach, so the rounding of the point's cell, and of
  // where the ray leaves the cube, cannot carry the walk past a grown box it would enter.
  GRANRAY_HD float leap_from(const GridView& grid, const Ray& ray, float t) const {
    const GridGeometry& g = grid.geometry;
    const int i =
        clamp_cell((ray.origin.x + ray.dir.x * t - g.origin.x) * g.inv_cell_size, g.dims[0]);
    const int j =
        clamp_cell((ray.origin.y + ray.dir.y * t - g.origin.y) * g.inv_cell_size, g.dims[1]);
    const int k =
        clamp_cell((ray.origin.z + ray.dir.z * t - g.origin.z) * g.inv_cell_size, g.dims[2]);
    const int half = cell_clearance(clearance_of_cell(grid, i, j, k)) - leap_margin_cells(g);
    if (half < 1) return t;  // the cube is the cell's neighbours at least: its rounding is inside
    const float reach_cells = g.reach * g.inv_cell_size;
    const float leaves = nan_ignoring_min(x_.leaves_cells(i, half, reach_cells),
                                          nan_ignoring_min(y_.leaves_cells(j, half, reach_cells),
                                                           z_.leaves_cells(k, half, reach_cells)));
    return nan_ignoring_max(t, leaves);
  }

  // The walk again from time t, after a leap: the first slab holds every cell whose grown box
  // holds the ray's point at t. False when t lies past the grid or t_max.
  GRANRAY_HD bool restart(const GridGeometry& g, const Ray& ray, float t, CellSlab& slab) {
    if (!(t <= exit_)) return false;
    x_.restart(ray.origin.x + ray.dir.x * t - g.origin.x, g);
    y_.restart(ray.origin.y + ray.dir.y * t - g.origin.y, g);
    z_.restart(ray.origin.z + ray.dir.z * t - g.origin.z, g);
    slab = {x_.lo, x_.hi, y_.lo, y_.hi, z_.lo, z_.hi};
    return true;
  }

  // Three named axes, not an array indexed by axis (GrownAxis says why).
  GrownAxis x_, y_, z_;
  float exit_;
};

// The walk for a visitor, which offers
//   bool done_before(float t): true when nothing the walk has yet to visit can matter, the next
//                              cell's grown box being entered at t;
//   void visit(first, last):   cells first..last, one run along x (consecutive indices).
template <class Visitor>
GRANRAY_HD void walk_grown_cells(const GridGeometry& g, const Ray& ray, float t_min, float t_max,
                                 Visitor& visitor) {
  GrownCellWalk walk;
  CellSlab s;
  if (!walk.start(g, ray, t_min, t_max, s)) return;
  do {
    for (int k = s.k_first; k <= s.k_last; ++k)
      for (int j = s.j_first; j <= s.j_last; ++j)
        visitor.visit(cell_index(g, s.i_first, j, k), cell_index(g, s.i_last, j, k));
  } while (walk.next(visitor, s));
}

// The listed references [ref, end) of slab s's run (j, k) along x, and the slab's next run.
GRANRAY_HD_INLINE void fetch_run(const GridView& grid, const CellSlab& s, int& j, int& k,
                                 std::uint32_t& ref, std::uint32_t& end) {
  ref = grid.cell_offsets[cell_index(grid.geometry, s.i_first, j, k)];
  end = grid.cell_offsets[cell_index(grid.geometry, s.i_last, j, k) + 1];
  if (++j > s.j_last) {
    j = s.j_first;
    ++k;
  }
}

// The spheres that the walk's cells list during [t_min, t_max], in one flat loop (Aila & Laine
// 2009's "if-if"): each turn either offers one listed sphere to the taker or takes the walk's next
// run of cells, so the lanes of a warp that are testing spheres and those that are walking advance
// in the same turn. Nested loops (a run's spheres inside the walk's slabs) keep a warp's lanes
// waiting on its longest run at each level. The taker offers done_before(t) as a visitor does and
//   bool take(k): weighs listed sphere k (ref_spheres[k]); true ends the walk.
// A turn does one or the other, and the test's branch keeps its exit even where no taker ends
// the walk: on an H200 (docs/benchmarks.md), a turn that fetches a run and then tests its first
// sphere was 2 % slower, and the loop without that exit ran the bounce pass as slowly as
// walk_grown_cells (1.11 ms against 1.07). True when the taker ended the walk.
//
// With `Leaps` (a grid with clearance), after a slab that listed nothing the walk leaps over the
// clear space ahead (GrownCellWalk::next_or_leap) instead of stepping cell by cell through it:
// one more kind of turn, taken where a run would be fetched, meeting the same listing cells.
template <bool Leaps, class Taker>
GRANRAY_HD bool walk_listed_spheres_flat(const GridView& grid, const Ray& ray, float t_min,
                                         float t_max, Taker& taker) {
  const GridGeometry& g = grid.geometry;
  GrownCellWalk walk;
  CellSlab s;
  if (!walk.start(g, ray, t_min, t_max, s)) return false;
  int j = s.j_first, k = s.k_first;      // the slab's next run
  std::uint32_t ref = 0, end = 0;        // the run's listed spheres not yet taken
  [[maybe_unused]] bool listed = false;  // Leaps: the slab's runs so far listed a sphere
  for (;;) {
    if (ref < end) {
      if (taker.take(ref)) return true;
      ++ref;
    } else {
      if (k > s.k_last) {
        if constexpr (Leaps) {
          if (!walk.next_or_leap(grid, ray, listed, taker, s)) return false;
          listed = false;
        } else if (!walk.next(taker, s)) {
          return false;
        }
        j = s.j_first;
        k = s.k_first;
      }
      fetch_run(grid, s, j, k, ref, end);
      if constexpr (Leaps) listed = listed || ref < end;
    }
  }
}

// The flat loop over every cell, whatever clearance the grid has.
template <class Taker>
GRANRAY_HD bool walk_listed_spheres_between(const GridView& grid, const Ray& ray, float t_min,
                                            float t_max, Taker& taker) {
  return walk_listed_spheres_flat<false>(grid, ray, t_min, t_max, taker);
}

// The flat loop leaping over empty space; the grid must have clearance.
template <class Taker>
GRANRAY_HD bool walk_listed_spheres_leaping(const GridView& grid, const Ray& ray, float t_min,
                                            float t_max, Taker& taker) {
  return walk_listed_spheres_flat<true>(grid, ray, t_min, t_max, taker);
}

// Whether the device's walks other than the primary rays' leap (GridView::clearance); the primary
// rays leap in a tracer of their own (LeapingGridTracer). On an H200 the lit casts of the pour,
// the hopper and the heap ran 1.34x, 1.12x and 1.06x faster so, those of grids without clearance
// within 1 % (docs/benchmarks-log.md); 0 keeps the device's other walks to the plain loop.
#ifndef GRANRAY_DEVICE_WALKS_LEAP
#define GRANRAY_DEVICE_WALKS_LEAP 1
#endif

// walk_listed_spheres_between over [t_min, t_max], leaping over empty space where the grid has
// clearance (on the host; on the device where GRANRAY_DEVICE_WALKS_LEAP says).
template <class Taker>
GRANRAY_HD void walk_listed_spheres(const GridView& grid, const Ray& ray, float t_min, float t_max,
                                    Taker& taker) {
#if defined(__CUDA_ARCH__) && !GRANRAY_DEVICE_WALKS_LEAP
  walk_listed_spheres_between(grid, ray, t_min, t_max, taker);
#else
  if (grid.clearance == nullptr) {
    walk_listed_spheres_between(grid, ray, t_min, t_max, taker);
  } else {
    walk_listed_spheres_leaping(grid, ray, t_min, t_max, taker);
  }
#endif
}

// walk_grown_cells over a built grid, leaping over empty space where it has clearance (on the
// host, and on the device as walk_listed_spheres): GrownCellWalk::next_or_leap after each slab.
template <class Visitor>
GRANRAY_HD void walk_grown_cells(const GridView& grid, const Ray& ray, float t_min, float t_max,
                                 Visitor& visitor) {
  const GridGeometry& g = grid.geometry;
#if defined(__CUDA_ARCH__) && !GRANRAY_DEVICE_WALKS_LEAP
  walk_grown_cells(g, ray, t_min, t_max, visitor);
#else
  if (grid.clearance == nullptr) {
    walk_grown_cells(g, ray, t_min, t_max, visitor);
    return;
  }
  GrownCellWalk walk;
  CellSlab s;
  if (!walk.start(g, ray, t_min, t_max, s)) return;
  for (;;) {
    bool listed = false;
    for (int k = s.k_first; k <= s.k_last; ++k) {
      for (int j = s.j_first; j <= s.j_last; ++j) {
        const std::uint32_t first = cell_index(g, s.i_first, j, k);
        const std::uint32_t last = cell_index(g, s.i_last, j, k);
        listed = listed || grid.cell_offsets[first] != grid.cell_offsets[last + 1];
        visitor.visit(first, last);
      }
    }
    if (!walk.next_or_leap(grid, ray, listed, visitor, s)) return;
  }
#endif
}

}  // namespace granray
