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

  // The next slab; false when the walk is over: past the grid or t_max, or
  // `until.done_before(t)` says that nothing entered at t or later can matter.
  template <class Until>
  GRANRAY_HD_PIXEL_INLINE bool next(Until& until, CellSlab& slab) {
    const float t_enter = nan_ignoring_min(x_.t_enter, nan_ignoring_min(y_.t_enter, z_.t_enter));
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

 private:
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
template <class Taker>
GRANRAY_HD bool walk_listed_spheres_between(const GridView& grid, const Ray& ray, float t_min,
                                            float t_max, Taker& taker) {
  const GridGeometry& g = grid.geometry;
  GrownCellWalk walk;
  CellSlab s;
  if (!walk.start(g, ray, t_min, t_max, s)) return false;
  int j = s.j_first, k = s.k_first;  // the slab's next run
  std::uint32_t ref = 0, end = 0;    // the run's listed spheres not yet taken
  for (;;) {
    if (ref < end) {
      if (taker.take(ref)) return true;
      ++ref;
    } else {
      if (k > s.k_last) {
        if (!walk.next(taker, s)) return false;
        j = s.j_first;
        k = s.k_first;
      }
      fetch_run(grid, s, j, k, ref, end);
    }
  }
}

// One axis of the walk over a grid's bricks (GridView::bricks): the brick the ray is in along
// this axis and when it crosses into the next one, from the brick's index at each step (not
// accumulated), as GrownAxis does for cells.
struct BrickAxis {
  float from_origin;  // when the ray crosses the grid's origin plane on this axis
  float per_brick;
  int dim;
  int step;
  int index;
  float t_next;  // INFINITY: the ray stays in this axis's last brick

  GRANRAY_HD void start(float o, float d, float inv, float grid_origin, float size, float inv_size,
                        int n, float t0) {
    dim = n;
    step = d > 0.0f ? 1 : (d < 0.0f ? -1 : 0);
    index = clamp_cell((o + d * t0 - grid_origin) * inv_size, n);
    from_origin = (grid_origin - o) * inv;
    per_brick = size * inv;
    schedule();
  }
  GRANRAY_HD void schedule() {
    t_next = INFINITY;
    if (step > 0 && index + 1 < dim)
      t_next = from_origin + static_cast<float>(index + 1) * per_brick;
    if (step < 0 && index > 0) t_next = from_origin + static_cast<float>(index) * per_brick;
  }
  GRANRAY_HD void advance() {
    index += step;
    schedule();
  }
};

// A 3D-DDA over the grid's bricks (Amanatides & Woo again, one level up): the brick the ray is
// in, when it entered it and when it leaves it.
class BrickWalk {
 public:
  // False when the ray crosses the grid nowhere during [t_min, t_max].
  GRANRAY_HD bool start(const GridView& grid, const Ray& ray, float t_min, float t_max) {
    const GridGeometry& g = grid.geometry;
    const Vec3 inv = reciprocal(ray.dir);
    const Interval span = clip_to_box(ray, inv, g.origin, grid_far_corner(g), t_min, t_max);
    if (!(span.enter <= span.exit)) return false;
    const float size = g.cell_size * static_cast<float>(kBrickCells);
    const float inv_size = g.inv_cell_size * (1.0f / static_cast<float>(kBrickCells));
    x_.start(ray.origin.x, ray.dir.x, inv.x, g.origin.x, size, inv_size, grid.brick_dims[0],
             span.enter);
    y_.start(ray.origin.y, ray.dir.y, inv.y, g.origin.y, size, inv_size, grid.brick_dims[1],
             span.enter);
    z_.start(ray.origin.z, ray.dir.z, inv.z, g.origin.z, size, inv_size, grid.brick_dims[2],
             span.enter);
    marks_ = grid.bricks;
    row_ = grid.brick_dims[0];
    layer_ = grid.brick_dims[0] * grid.brick_dims[1];
    entered_ = span.enter;
    exit_ = span.exit;
    schedule();
    return true;
  }
  GRANRAY_HD bool marked() const {
    return marks_[static_cast<std::uint32_t>(z_.index) * static_cast<std::uint32_t>(layer_) +
                  static_cast<std::uint32_t>(y_.index) * static_cast<std::uint32_t>(row_) +
                  static_cast<std::uint32_t>(x_.index)] != 0;
  }
  GRANRAY_HD float entered() const { return entered_; }
  GRANRAY_HD float leaves() const { return leaves_; }
  // Into the next brick; false when the ray leaves the grid (or its span) first. Bricks met only
  // at an edge or corner are entered for no time, one axis at a time.
  GRANRAY_HD bool advance() {
    const float t = leaves();
    if (!(t <= exit_)) return false;
    if (x_.t_next == t) {
      x_.advance();
    } else if (y_.t_next == t) {
      y_.advance();
    } else {
      z_.advance();
    }
    // A start rounded into the brick before the true one leaves it "before" it was entered.
    entered_ = nan_ignoring_max(entered_, t);
    schedule();
    return true;
  }

 private:
  // When the ray leaves the brick it is in: the walk over cells asks at every slab.
  GRANRAY_HD void schedule() {
    leaves_ = nan_ignoring_min(x_.t_next, nan_ignoring_min(y_.t_next, z_.t_next));
  }

  BrickAxis x_, y_, z_;
  const std::uint8_t* marks_;
  int row_, layer_;
  float entered_;
  float leaves_;
  float exit_;
};

// A walk's visitor or taker kept to the ray's stretch inside marked bricks: the walk is ended
// (`left`) when its next cells are entered in an unmarked brick, whose grown neighbourhood lists
// nothing. The bricks follow the walk as it goes.
template <class Inner>
struct WithinMarkedBricks {
  Inner& inner;
  BrickWalk& bricks;
  bool left = false;

  GRANRAY_HD bool done_before(float t) {
    if (inner.done_before(t)) return true;
    while (t > bricks.leaves()) {
      if (!bricks.advance()) return true;  // past the grid: nothing more
      if (!bricks.marked()) {
        left = true;
        return true;
      }
    }
    return false;
  }
  GRANRAY_HD void visit(std::uint32_t first_cell, std::uint32_t last_cell) {
    inner.visit(first_cell, last_cell);
  }
  GRANRAY_HD bool take(std::uint32_t k) { return inner.take(k); }
};

// walk_listed_spheres_between's flat loop with the bricks as a third kind of turn: a turn tests
// one listed sphere, or fetches the next run of cells inside a marked stretch, or steps one brick
// outside them, so that lanes in empty space and lanes among grains advance in the same turns
// (a loop over bricks around the flat loop made the H200's heap cast 2x slower). The grid must
// have bricks. Meets the same listing cells as the walk without them, in the same order.
template <class Taker>
GRANRAY_HD void walk_listed_spheres_skipping(const GridView& grid, const Ray& ray, float t_min,
                                             float t_max, Taker& taker) {
  const GridGeometry& g = grid.geometry;
  BrickWalk bricks;
  if (!bricks.start(grid, ray, t_min, t_max)) return;
  WithinMarkedBricks<Taker> within{taker, bricks};
  GrownCellWalk walk;
  CellSlab s{0, 0, 0, 0, 0, 0};
  bool in_stretch = false;
  int j = 0, k = 1;                // the slab's next run; none before the first slab
  std::uint32_t ref = 0, end = 0;  // the run's listed spheres not yet taken
  for (;;) {
    if (ref < end) {
      if (taker.take(ref)) return;
      ++ref;
    } else if (in_stretch) {
      if (k > s.k_last) {
        if (!walk.next(within, s)) {
          if (!within.left) return;
          in_stretch = false;  // the bricks stand at an unmarked one
          continue;
        }
        j = s.j_first;
        k = s.k_first;
      }
      fetch_run(grid, s, j, k, ref, end);
    } else if (bricks.marked()) {
      const float from = bricks.entered();
      if (taker.done_before(from) || !walk.start(g, ray, from, t_max, s)) return;
      within.left = false;
      in_stretch = true;
      j = s.j_first;
      k = s.k_first;
    } else if (taker.done_before(bricks.entered()) || !bricks.advance()) {
      return;
    }
  }
}

// walk_listed_spheres_between over [t_min, t_max], skipping empty space where the grid has
// bricks (on the host; the GPU's primary rays skip in a kernel of their own).
template <class Taker>
GRANRAY_HD void walk_listed_spheres(const GridView& grid, const Ray& ray, float t_min, float t_max,
                                    Taker& taker) {
#if defined(__CUDA_ARCH__)
  // Device code walks every cell here: the bricks' turns cost more than they saved on an H200's
  // heap, and their registers would slow every walk. SkippingGridTracer takes them where they pay.
  walk_listed_spheres_between(grid, ray, t_min, t_max, taker);
#else
  if (grid.bricks == nullptr) {
    walk_listed_spheres_between(grid, ray, t_min, t_max, taker);
  } else {
    walk_listed_spheres_skipping(grid, ray, t_min, t_max, taker);
  }
#endif
}

// walk_grown_cells over a built grid, skipping empty space where it has bricks (on the host, as
// walk_listed_spheres): the cells' walk over each stretch of the ray inside marked bricks, front
// to back, the stretches between passed brick by brick.
template <class Visitor>
GRANRAY_HD void walk_grown_cells(const GridView& grid, const Ray& ray, float t_min, float t_max,
                                 Visitor& visitor) {
#if defined(__CUDA_ARCH__)
  walk_grown_cells(grid.geometry, ray, t_min, t_max, visitor);
#else
  if (grid.bricks == nullptr) {
    walk_grown_cells(grid.geometry, ray, t_min, t_max, visitor);
    return;
  }
  BrickWalk bricks;
  if (!bricks.start(grid, ray, t_min, t_max)) return;
  for (;;) {
    while (!bricks.marked()) {
      if (visitor.done_before(bricks.entered()) || !bricks.advance()) return;
    }
    WithinMarkedBricks<Visitor> within{visitor, bricks};
    walk_grown_cells(grid.geometry, ray, bricks.entered(), t_max, within);
    if (!within.left) return;
  }
#endif
}

}  // namespace granray
