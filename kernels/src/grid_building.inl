// The grid's listing functors (how each sphere enters the cells), for one backend. Included by
// backend_impl.inl inside namespace granray::GRANRAY_BACKEND_NAMESPACE.

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
    for_each_cell(geometry, listed_cells(geometry, s), [&p, &s, i](std::uint32_t cell) {
      const std::uint32_t slot = atomic_fetch_sub(p.cursor + cell, 1u) - 1u;
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
