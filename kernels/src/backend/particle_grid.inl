// The uniform grid over the frame's particles (grid_view.h): how each sphere enters the cells, and
// the part that owns the grid's arrays and builds them. Part of the backend (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "granray/kernels/pixel_kernels.h"
#include "grid_clearance.inl"
#include "grid_layout.h"
#include "near_bounds.inl"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The grid lists each sphere once, in the cell of its centre, or (one larger than the geometry's
// centre_radius) in every cell its padded box overlaps (grid_view.h), built one of two ways, as
// the backend's Executor says:
// - by sorting (GPU): the cell keys and particle indices radix-sorted by cell (when every sphere is
//   listed once, exactly the bare hash + sort of the particles), cell offsets from each listed
//   cell's first key and suffix minima, the spheres gathered into cell order;
// - by counting (CPU): count each cell's references, scan the counts into cell offsets, then place
//   each reference by counting its cell's cursor down from the end.
// The GPU measured the sort faster at 10 M grains and in dilute gases (the placement's scattered
// writes), the CPU measured counting twice as fast (docs/benchmarks.md). Only the order within
// a cell differs, and the nearest hit does not depend on it (ties go to the lower id).

// Cells that list a sphere (0 for a broken particle); 64-bit, as it is summed.
struct ReferenceCount {
  GridGeometry geometry;
  const Vec4* spheres;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    return is_renderable(s) ? cell_count(listed_cells(geometry, s)) : 0u;
  }
};

struct SumU64 {
  GRANRAY_HD std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a + b; }
};

// Visits the cells of `r` in the order of their indices.
template <class Visit>
GRANRAY_HD_INLINE void for_each_cell(const GridGeometry& g, const CellRange& r, Visit visit) {
  for (int z = r.lo[2]; z <= r.hi[2]; ++z)
    for (int y = r.lo[1]; y <= r.hi[1]; ++y)
      for (int x = r.lo[0]; x <= r.hi[0]; ++x) visit(cell_index(g, x, y, z));
}

// One slot in each cell of `r` taken by counting the cell's cursor down, visit(slot) called on
// each. Where `r` spans at most two cells along each axis (every capsule of a packing, nearly
// every grain) all its slots are taken before any is visited: a visit's stores might alias the
// cursors, so in one loop each atomic would wait for the store before it, and here their round
// trips overlap instead.
template <class Visit>
GRANRAY_HD_INLINE void take_slots_in_cells(const GridGeometry& g, const CellRange& r,
                                           std::uint32_t* cursor, Visit visit) {
  const int nx = r.hi[0] - r.lo[0] + 1, ny = r.hi[1] - r.lo[1] + 1, nz = r.hi[2] - r.lo[2] + 1;
  if (nx > 2 || ny > 2 || nz > 2) {
    for_each_cell(g, r, [cursor, &visit](std::uint32_t cell) {
      visit(atomic_fetch_sub(cursor + cell, 1u) - 1u);
    });
    return;
  }
  std::uint32_t slot[8] = {};  // only the taken ones are read; set so that GCC sees it
  GRANRAY_UNROLL
  for (int i = 0; i < 8; ++i) {
    const int dx = i & 1, dy = (i >> 1) & 1, dz = i >> 2;
    if (dx < nx && dy < ny && dz < nz) {
      slot[i] =
          atomic_fetch_sub(cursor + cell_index(g, r.lo[0] + dx, r.lo[1] + dy, r.lo[2] + dz), 1u) -
          1u;
    }
  }
  GRANRAY_UNROLL
  for (int i = 0; i < 8; ++i) {
    const int dx = i & 1, dy = (i >> 1) & 1, dz = i >> 2;
    if (dx < nx && dy < ny && dz < nz) visit(slot[i]);
  }
}

// Counting: first each cell's number of references, then each reference placed.
struct CountCellReferences {
  GridGeometry geometry;
  const Vec4* spheres;
  std::uint32_t* counts;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    if (!is_renderable(s)) return;
    std::uint32_t* c = counts;
    for_each_cell(geometry, listed_cells(geometry, s),
                  [c](std::uint32_t cell) { atomic_fetch_add(c + cell, 1u); });
  }
};

struct PlaceReferences {
  GridGeometry geometry;
  const Vec4* spheres;
  std::uint32_t* cursor;  // each cell's end on entry, its start when every reference is placed
  Vec4* ref_spheres;
  std::uint32_t* ref_index;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    if (!is_renderable(s)) return;
    const PlaceReferences& p = *this;
    take_slots_in_cells(geometry, listed_cells(geometry, s), cursor,
                        [&p, &s, i](std::uint32_t slot) {
                          p.ref_spheres[slot] = s;
                          p.ref_index[slot] = i;
                        });
  }
};

// Sorting: each sphere writes its (cell, particle) pairs into the slots its scanned count gives.
struct EmitReferences {
  GridGeometry geometry;
  const Vec4* spheres;
  const std::uint64_t* ends;  // inclusive scan of the reference counts
  std::uint32_t* keys;
  std::uint32_t* values;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    if (!is_renderable(s)) return;
    const CellRange r = listed_cells(geometry, s);
    auto k = static_cast<std::uint32_t>(ends[i] - cell_count(r));
    const EmitReferences& e = *this;
    for_each_cell(geometry, r, [&e, &k, i](std::uint32_t cell) {
      e.keys[k] = cell;
      e.values[k] = i;
      ++k;
    });
  }
};

// After the sort, the first reference of each listed cell: offsets[key] = its position. A
// suffix minimum then gives each empty cell the start of the next listed one.
struct MarkCellStarts {
  const std::uint32_t* keys;
  std::uint32_t cells;
  std::uint32_t* offsets;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const std::uint32_t key = keys[k];
    if (key < cells && (k == 0 || keys[k - 1] != key)) offsets[key] = k;
  }
};

// The bare hash of a sphere's centre (the benchmark's baseline).
struct CentreCellKey {
  GridGeometry geometry;
  const Vec4* spheres;
  GRANRAY_HD std::uint32_t operator()(std::uint32_t i) const {
    return centre_cell(geometry, spheres[i]);
  }
};

// The key of a sphere listed once: its centre's cell, or `cells` for a broken particle.
struct ListedOnceKey {
  GridGeometry geometry;
  const Vec4* spheres;
  std::uint32_t cells;
  GRANRAY_HD std::uint32_t operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    return is_renderable(s) ? centre_cell(geometry, s) : cells;
  }
};

// The coarse grid's cells that hold a particle's centre flagged (occupancy_geometry): a store, not
// an atomic add per grain, which a gas's scattered centres made slow (on the 2-core machine a 1
// M-grain gas then builds its grid in 43.7-44.5 ms, as the tree without the estimate did in
// 43.6-69.1 ms).
struct FlagOccupied {
  GridGeometry coarse;
  const Vec4* spheres;
  std::uint8_t* flags;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    if (is_renderable(s)) set_flag(flags + centre_cell(coarse, s));
  }
};

struct WidenMark {
  GRANRAY_HD std::uint64_t operator()(std::uint8_t mark) const { return mark; }
};

// Grains filling more of their box than this leave no empty space worth leaping over, nor cells
// to size by what they occupy: the dense box (0.6 filled) gets no estimate of its occupied share;
// a drum (0.22), a heap (0.12), a pour or a gas (0.01) do (docs/benchmarks.md).
constexpr double kFullestBedEstimated = 0.4;

// Bits a radix sort needs for cell indices below `cells`.
inline int key_bits(std::uint64_t cells) {
  int bits = 1;
  while (bits < 32 && (std::uint64_t{1} << bits) < cells) ++bits;
  return bits;
}

class ParticleGrid {
 public:
  // `ends` is scratch for the references' scanned counts, shared with the screen tiles: a frame
  // builds one structure at a time.
  ParticleGrid(detail::MemoryAccount& account, Array<std::uint64_t>& ends)
      : ends_(ends),
        keys_(account, "grid reference keys"),
        values_(account, "grid references"),
        keys_sorted_(account, "sorted grid reference keys"),
        values_sorted_(account, "sorted grid references"),
        cell_offsets_(account, "grid cell offsets"),
        ref_spheres_(account, "particles in cell order"),
        clearance_(account),
        near_bounds_(account) {}

  // The grid over `r`. With `same_particles` (a later band of the frame whose grid this is) the
  // grid built last is kept when it was built for these particles and box. A template, so that
  // only the backend's own way is compiled (the CPU has no radix sort here).
  // `known_share`: the grains' occupied share, when the frame estimated it already
  // (estimate_near_bounds).
  template <class E>
  detail::GridLayout build(const E& exec, const ResidentParticles& r, const SceneBounds& bounds,
                           bool same_particles = false, GridCells cells = GridCells::centres,
                           detail::CellSizing sizing = detail::CellSizing::by_occupied_volume,
                           std::optional<double> known_share = std::nullopt) {
    if (same_particles && keeps(r, bounds) && kept_->cells == cells && kept_->sizing == sizing) {
      return kept_->layout;
    }
    kept_.reset();  // the arrays are about to change
    ++generation_;
    // One estimate for both: cells sized by it (where the sizing asks) and clearance.
    const double share = known_share ? *known_share : occupied_share(exec, r, bounds);
    share_ = share;
    detail::GridLayout layout;
    if constexpr (E::lists_by_sorting) {
      layout = sort_grid(exec, r, bounds, cells, share, sizing);
    } else {
      layout = count_grid(exec, r, bounds, cells, share, sizing);
    }
    pad_ref_spheres(exec, layout.references);
    clearance_.measure(exec, layout.geometry, cell_offsets_.data(), share);
    kept_ = Kept{r.spheres, r.count, bounds, cells, sizing, layout};
    return layout;
  }

  // The grains' occupied share of their box (1 for a bed that fills it), and whether their grid
  // would start its primary rays at their near bounds (with_tracer): where it would, the CPU's
  // automatic method takes the grid over the screen tiles. The share then serves the build.
  struct NearBoundsEstimate {
    double share;
    bool casts_from_near_bounds;
  };
  // With `same_particles` the grid kept for these particles answers (the estimate's flags would
  // overwrite its clearance); otherwise the grid kept is dropped, for the same reason.
  template <class E>
  NearBoundsEstimate estimate_near_bounds(const E& exec, const ResidentParticles& r,
                                          const SceneBounds& bounds, bool same_particles) {
    double share = share_;
    if (!(same_particles && keeps(r, bounds))) {
      kept_.reset();
      share = occupied_share(exec, r, bounds);
    }
    return {share, casts_from_near_bounds<E>(share)};
  }

  // Whether a grid over grains that occupy the share `share` of their box starts its primary rays
  // at their near bounds: one with clearance, over grains that occupy at most the backend's
  // most_share_with_near_bounds.
  template <class E>
  static bool casts_from_near_bounds(double share) {
    return share <= kMostShareWithClearance && share <= E::most_share_with_near_bounds;
  }

  // use(tracer) with the tracer of the primary rays from `camera` over the grid built from `r`.
  // A grid with clearance leaves much of its box empty: where its grains occupy at most the
  // backend's most_share_with_near_bounds of their box, its rays start at their pixels' near
  // bounds (NearBoundTracer), leaping where the backend casts by a tracer of their own
  // (LeapingGridTracer's walk); else they walk from the eye, by LeapingGridTracer or GridTracer.
  // A grid without: PlainGridTracer where the backend casts by it, GridTracer otherwise.
  template <class E, class Use>
  void with_tracer(const E& exec, const detail::GridLayout& layout, const IdMap& id_of,
                   const ResidentParticles& r, const CameraFrame& camera, Use use) {
    const GridView grid = view(layout);
    if (grid.clearance != nullptr && casts_from_near_bounds<E>(share_)) {
      if constexpr (E::casts_by_leaping_tracer) {
        use(near_bound_tracer<GridWalk::leaping>(exec, grid, id_of, r, camera));
      } else {
        use(near_bound_tracer<GridWalk::any>(exec, grid, id_of, r, camera));
      }
      return;
    }
    if constexpr (E::casts_by_leaping_tracer) {
      if (grid.clearance != nullptr) {
        use(LeapingGridTracer{grid, id_of});
      } else {
        use(PlainGridTracer{grid, id_of});
      }
    } else {
      use(GridTracer{grid, id_of});
    }
  }

  // use(tracer) with a tracer that starts each camera ray of the path still from `camera` at its
  // pixel's near bound (NearBoundTracer), for a grid with clearance over grains that occupy at
  // most the backend's most_share_with_path_near_bounds of their box. Returns false, calling
  // nothing, for any other grid. `eight_wide` as GridWalkTracer's.
  template <class E, class Use>
  bool with_near_bound_tracer(const E& exec, const detail::GridLayout& layout, const IdMap& id_of,
                              const ResidentParticles& r, const CameraFrame& camera,
                              bool eight_wide, Use use) {
    const GridView grid = view(layout);
    if (grid.clearance == nullptr || !(share_ <= *E::most_share_with_path_near_bounds)) {
      return false;
    }
    use(near_bound_tracer<GridWalk::any>(exec, grid, id_of, r, camera, eight_wide));
    return true;
  }

  // The tracer that starts each primary ray from `camera` at its pixel's near bound over `grid`.
  template <GridWalk Walk, class E>
  NearBoundTracer<Walk> near_bound_tracer(const E& exec, const GridView& grid, const IdMap& id_of,
                                          const ResidentParticles& r, const CameraFrame& camera,
                                          bool eight_wide = false) {
    return {{grid, id_of, eight_wide}, near_bounds_.build(exec, r, camera)};
  }

  // Changes whenever the grid's arrays do: structures built from a grid of the same generation
  // (the light's columns) still describe it.
  std::uint64_t generation() const { return generation_; }

  GridView view(const detail::GridLayout& layout) const {
    const GridGeometry& g = layout.geometry;
    GridView v{g, cell_offsets_.data(), ref_spheres_.data(), ref_index_};
    clearance_.show_in(v);
    return v;
  }

  // The built grid in host memory (Renderer::build_grid, for the tests).
  HostGrid download(const Executor& exec, const detail::GridLayout& layout) const {
    HostGrid grid;
    grid.geometry = layout.geometry;
    grid.cell_offsets.resize(layout.cells + 1);
    grid.ref_spheres.resize(layout.references + kSphereBatchPad);
    grid.ref_index.resize(layout.references);
    exec.download(cell_offsets_.data(), grid.cell_offsets.data(), layout.cells + 1);
    exec.download(ref_spheres_.data(), grid.ref_spheres.data(),
                  layout.references + kSphereBatchPad);
    exec.download(ref_index_, grid.ref_index.data(), layout.references);
    clearance_.download(exec, grid.clearance);
    return grid;
  }

  // The bare cell hash + sort of the particles' centres that the benchmarks set the build
  // against, in ms.
  double time_hash_sort(const Executor& exec, const ResidentParticles& r,
                        const SceneBounds& bounds) {
    const GridGeometry g =
        detail::choose_grid_layout(bounds, [](const GridGeometry&) { return 0; }).geometry;
    kept_.reset();  // the keys and values below are the grid's arrays
    ++generation_;
    keys_.resize(r.count);
    values_.resize(r.count);
    auto policy = exec.policy();
    exec.mark(0);
    thrust::transform(policy, Index(0), Index(r.count), keys_.data(), CentreCellKey{g, r.spheres});
    thrust::sequence(policy, values_.data(), values_.data() + r.count);
    thrust::sort_by_key(policy, keys_.data(), keys_.data() + r.count, values_.data());
    exec.mark(1);
    exec.synchronize();
    return exec.elapsed_ms(0, 1);
  }

 private:
  // What the grid's arrays hold now.
  struct Kept {
    const Vec4* spheres;
    std::uint32_t count;
    SceneBounds bounds;
    GridCells cells;
    detail::CellSizing sizing;
    detail::GridLayout layout;
  };

  // Empty spheres after the last reference: the CPU tests a cell's spheres four or eight at a time
  // and reads up to seven past the list's end (kernels/sphere_batch.h).
  template <class E>
  void pad_ref_spheres(const E& exec, std::uint64_t references) {
    thrust::fill_n(exec.policy(), ref_spheres_.data() + references, kSphereBatchPad, Vec4{});
  }

  // The share of the box that a bed leaving most of it empty occupies: the share of a coarse
  // grid's cells that hold a centre (detail::occupancy_geometry); 1 for a bed that fills its box,
  // which skips the estimate.
  template <class E>
  double occupied_share(const E& exec, const ResidentParticles& r, const SceneBounds& bounds) {
    if (bounds.renderable == 0 || !leaves_box_mostly_empty(bounds)) return 1.0;
    const GridGeometry coarse = detail::occupancy_geometry(bounds);
    const std::size_t cells = std::size_t(coarse.dims[0]) * coarse.dims[1] * coarse.dims[2];
    auto policy = exec.policy();
    std::uint8_t* flags = clearance_.scratch(cells);  // measure() writes the field over them
    thrust::fill_n(policy, flags, cells, std::uint8_t{0});
    thrust::for_each_n(policy, Index(0), r.count, FlagOccupied{coarse, r.spheres, flags});
    const std::uint64_t occupied = thrust::transform_reduce(
        policy, flags, flags + cells, WidenMark{}, std::uint64_t{0}, SumU64{});
    return static_cast<double>(occupied) / static_cast<double>(cells);
  }

  // Beds that get an estimate of their occupied share (kFullestBedEstimated).
  static bool leaves_box_mostly_empty(const SceneBounds& b) {
    return solid_fraction(b) < kFullestBedEstimated;
  }

  // About how much of the grains' box they fill: their count times the volume of a grain of
  // the mean diameter, over the box's (each side at least that diameter).
  static double solid_fraction(const SceneBounds& b) {
    if (b.renderable == 0) return 0.0;
    const double d = b.diameter_sum / static_cast<double>(b.renderable);
    const double volume = std::max(double(b.hi.x) - b.lo.x, d) *
                          std::max(double(b.hi.y) - b.lo.y, d) *
                          std::max(double(b.hi.z) - b.lo.z, d);
    return static_cast<double>(b.renderable) * (3.14159265358979 / 6.0) * d * d * d / volume;
  }

  // Whether the grid kept was built for these particles in this box.
  bool keeps(const ResidentParticles& r, const SceneBounds& bounds) const {
    return kept_ && kept_->spheres == r.spheres && kept_->count == r.count &&
           same_box(kept_->bounds, bounds);
  }

  static bool same_box(const SceneBounds& a, const SceneBounds& b) {
    return a.lo.x == b.lo.x && a.lo.y == b.lo.y && a.lo.z == b.lo.z && a.hi.x == b.hi.x &&
           a.hi.y == b.hi.y && a.hi.z == b.hi.z && a.renderable == b.renderable &&
           a.max_radius == b.max_radius && a.diameter_sum == b.diameter_sum;
  }

  template <class E>
  detail::GridLayout sort_grid(const E& exec, const ResidentParticles& r, const SceneBounds& bounds,
                               GridCells cells_kind, double share, detail::CellSizing sizing) {
    auto policy = exec.policy();
    const std::uint32_t n = r.count;
    // Unless every sphere is listed once, one fused pass counts each sphere's cells and scans
    // them; the last entry is the total. The last geometry tried is the one kept, so its scan is
    // what EmitReferences reads.
    bool scanned = false;
    const detail::GridLayout layout = detail::choose_grid_layout(
        bounds,
        [&](const GridGeometry& g) {
          scanned = !detail::lists_every_sphere_once(bounds, g);
          if (!scanned) return bounds.renderable;
          ends_.resize(n);
          thrust::transform_inclusive_scan(policy, Index(0), Index(n), ends_.data(),
                                           ReferenceCount{g, r.spheres}, SumU64{});
          std::uint64_t total = 0;
          exec.download(ends_.data() + (n - 1), &total, 1);
          return total;
        },
        cells_kind, share, 1.0, sizing);
    const GridGeometry& g = layout.geometry;
    const auto total = static_cast<std::uint32_t>(layout.references);
    const auto cells = static_cast<std::uint32_t>(layout.cells);
    // Listed once, every particle gets a key (broken ones `cells`, sorted after the rest).
    const std::uint32_t keyed = scanned ? total : n;
    keys_.resize(keyed);
    values_.resize(keyed);
    if (scanned) {
      thrust::for_each_n(policy, Index(0), n,
                         EmitReferences{g, r.spheres, ends_.data(), keys_.data(), values_.data()});
    } else {
      thrust::transform(policy, Index(0), Index(n), keys_.data(),
                        ListedOnceKey{g, r.spheres, cells});
      thrust::sequence(policy, values_.data(), values_.data() + n);
    }
    keys_sorted_.resize(keyed);
    values_sorted_.resize(keyed);
    std::uint32_t* sorted_keys = nullptr;
    std::tie(sorted_keys, ref_index_) =
        exec.sort_pairs(keys_.data(), values_.data(), keys_sorted_.data(), values_sorted_.data(),
                        keyed, key_bits(std::uint64_t{cells} + 1));
    // Offsets by marking each listed cell's start and taking suffix minima: every thread does
    // the same work, where filling each run of empty cells from its end left one thread writing a
    // whole empty layer (1.1 ms of a 10 M-grain build).
    cell_offsets_.resize(std::size_t{cells} + 1);
    std::uint32_t* offsets = cell_offsets_.data();
    thrust::fill_n(policy, offsets, std::size_t{cells} + 1, total);
    thrust::for_each_n(policy, Index(0), keyed, MarkCellStarts{sorted_keys, cells, offsets});
    const auto from_end = thrust::make_reverse_iterator(offsets + cells + 1);
    thrust::inclusive_scan(policy, from_end, from_end + (std::size_t{cells} + 1), from_end,
                           thrust::minimum<std::uint32_t>());
    ref_spheres_.resize(std::size_t{total} + kSphereBatchPad);
    thrust::gather(policy, ref_index_, ref_index_ + total, r.spheres, ref_spheres_.data());
    return layout;
  }

  template <class E>
  detail::GridLayout count_grid(const E& exec, const ResidentParticles& r,
                                const SceneBounds& bounds, GridCells cells_kind, double share,
                                detail::CellSizing sizing) {
    auto policy = exec.policy();
    const std::uint32_t n = r.count;
    // The total in 64 bits decides the geometry (a huge one must not wrap to a small one).
    const detail::GridLayout layout = detail::choose_grid_layout(
        bounds,
        [&](const GridGeometry& g) {
          if (detail::lists_every_sphere_once(bounds, g)) return bounds.renderable;
          return thrust::transform_reduce(policy, Index(0), Index(n), ReferenceCount{g, r.spheres},
                                          std::uint64_t{0}, SumU64{});
        },
        cells_kind, share, 1.0, sizing);
    const GridGeometry& g = layout.geometry;
    const auto total = static_cast<std::uint32_t>(layout.references);
    const auto cells = static_cast<std::size_t>(layout.cells);
    // Each cell's count, scanned in place into its end (the entry past the last cell, counted
    // by none, into the total); the placement counts the ends down to the cells' starts, so the
    // offsets need no copy of their own.
    cell_offsets_.resize(cells + 1);
    std::uint32_t* offsets = cell_offsets_.data();
    thrust::fill_n(policy, offsets, cells + 1, 0u);
    thrust::for_each_n(policy, Index(0), n, CountCellReferences{g, r.spheres, offsets});
    thrust::inclusive_scan(policy, offsets, offsets + cells + 1, offsets);
    ref_spheres_.resize(std::size_t{total} + kSphereBatchPad);
    values_.resize(total);
    ref_index_ = values_.data();
    thrust::for_each_n(policy, Index(0), n,
                       PlaceReferences{g, r.spheres, offsets, ref_spheres_.data(), ref_index_});
    return layout;
  }

  Array<std::uint64_t>& ends_;
  Array<std::uint32_t> keys_;
  Array<std::uint32_t> values_;
  Array<std::uint32_t> keys_sorted_;
  Array<std::uint32_t> values_sorted_;
  // The grid's references (particle indices) in cell order: values_ or values_sorted_.
  std::uint32_t* ref_index_ = nullptr;
  Array<std::uint32_t> cell_offsets_;
  Array<Vec4> ref_spheres_;
  GridClearance clearance_;
  NearBounds near_bounds_;
  double share_ = 1.0;  // the occupied share the last grid was built for
  std::optional<Kept> kept_;
  std::uint64_t generation_ = 0;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
