// The columns along the light (kernels/light_columns.h) built in the backend's own memory by
// sorting, for the GPU's shadow rays: the CPU fills its columns in one pass over the spheres in
// depth order (light_columns.cpp), which a device does not do in parallel. Here every sphere's
// square of columns is emitted as (column, depth rank) pairs in depth order, and a stable sort by
// column leaves each column's entries in depth order: the same columns, entry for entry up to the
// order of equal depths, which no answer depends on (a column's answer is an "or").
#pragma once

#include "backend_prelude.inl"
#include "granray/kernels/light_columns.h"
#include "light_columns.h"
#include "particle_grid.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The largest coordinate (with its radius) and the largest radius of the grid's references.
struct ReferenceExtent {
  float largest;
  float radius;
};

struct ExtentOfReference {
  const Vec4* spheres;
  GRANRAY_HD ReferenceExtent operator()(std::uint32_t k) const {
    const Vec4 s = spheres[k];
    const float x = fabsf(s.x) + s.w, y = fabsf(s.y) + s.w, z = fabsf(s.z) + s.w;
    return {fmaxf(x, fmaxf(y, z)), s.w};
  }
};

struct WiderExtent {
  GRANRAY_HD ReferenceExtent operator()(ReferenceExtent a, ReferenceExtent b) const {
    return {fmaxf(a.largest, b.largest), fmaxf(a.radius, b.radius)};
  }
};

// Each sphere once: a grain larger than the grid's centre radius is listed in every cell its box
// overlaps, and is kept in the first of them (its box's lowest cell), found by the reference's
// place among the cells' offsets.
struct ListedFirstHere {
  GridView grid;
  std::uint32_t cells;
  GRANRAY_HD bool operator()(std::uint32_t k) const {
    const Vec4 s = grid.ref_spheres[k];
    if (listed_once(grid.geometry, s)) return true;
    // The cell whose range holds k: the last offset at or below k.
    std::uint32_t lo = 0, hi = cells;  // offsets[lo] <= k < offsets[hi]
    while (hi - lo > 1u) {
      const std::uint32_t mid = lo + (hi - lo) / 2u;
      if (grid.cell_offsets[mid] <= k) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const CellRange r = overlapped_cells(grid.geometry, s);
    return lo == cell_index(grid.geometry, r.lo[0], r.lo[1], r.lo[2]);
  }
};

// A kept reference across the light: (u, v) its centre's coordinates across, z along, w its
// padded radius.
struct ProjectAcrossLight {
  const Vec4* ref_spheres;
  const std::uint32_t* kept;  // null: every reference
  Vec3 across_u, across_v, dir;
  float pad;
  GRANRAY_HD Vec4 operator()(std::uint32_t k) const {
    const Vec4 s = ref_spheres[kept != nullptr ? kept[k] : k];
    const Vec3 c = center_of(s);
    return {dot(c, across_u), dot(c, across_v), dot(c, dir), s.w + pad};
  }
};

struct SpanOfProjection {
  GRANRAY_HD detail::SpanAcross operator()(Vec4 p) const {
    return {p.x - p.w, p.y - p.w, p.x + p.w, p.y + p.w};
  }
};

struct JoinSpans {
  GRANRAY_HD detail::SpanAcross operator()(detail::SpanAcross a, detail::SpanAcross b) const {
    return {fminf(a.u_lo, b.u_lo), fminf(a.v_lo, b.v_lo), fmaxf(a.u_hi, b.u_hi),
            fmaxf(a.v_hi, b.v_hi)};
  }
};

// How many columns across and along the squares reach, and their entries in all.
struct ColumnExtent {
  int columns_u, columns_v;
  std::uint64_t entries;
};

struct ExtentOfSquare {
  const Vec4* projected;
  float u0, v0, inv_cell;
  GRANRAY_HD ColumnExtent operator()(std::uint32_t k) const {
    const detail::ColumnSquare b = detail::column_square(projected[k], u0, v0, inv_cell);
    return {b.u1 + 1, b.v1 + 1, detail::square_columns(b)};
  }
};

struct JoinColumnExtents {
  GRANRAY_HD ColumnExtent operator()(ColumnExtent a, ColumnExtent b) const {
    return {a.columns_u > b.columns_u ? a.columns_u : b.columns_u,
            a.columns_v > b.columns_v ? a.columns_v : b.columns_v, a.entries + b.entries};
  }
};

struct DepthOf {
  GRANRAY_HD float operator()(Vec4 p) const { return p.z; }
};

// The entries of the sphere at depth rank r: its square's columns, in its scanned slots.
struct SquareEntries {
  const Vec4* projected;
  const std::uint32_t* by_depth;  // rank -> projected sphere
  float u0, v0, inv_cell;
  GRANRAY_HD std::uint32_t operator()(std::uint32_t r) const {
    return detail::square_columns(detail::column_square(projected[by_depth[r]], u0, v0, inv_cell));
  }
};

struct EmitSquare {
  const Vec4* projected;
  const std::uint32_t* by_depth;
  const std::uint32_t* starts;  // exclusive scan of SquareEntries
  float u0, v0, inv_cell;
  int columns_u;
  std::uint32_t* column;  // the entry's column
  std::uint32_t* rank;    // the entry's sphere, by its depth rank
  GRANRAY_HD void operator()(std::uint32_t r) const {
    const detail::ColumnSquare b = detail::column_square(projected[by_depth[r]], u0, v0, inv_cell);
    std::uint32_t e = starts[r];
    for (int cv = b.v0; cv <= b.v1; ++cv) {
      for (int cu = b.u0; cu <= b.u1; ++cu) {
        column[e] = static_cast<std::uint32_t>(cv) * static_cast<std::uint32_t>(columns_u) +
                    static_cast<std::uint32_t>(cu);
        rank[e] = r;
        ++e;
      }
    }
  }
};

// Entry e as the kernels read it: the grid's reference and its depth.
struct FillEntry {
  const std::uint32_t* rank;
  const std::uint32_t* by_depth;
  const std::uint32_t* kept;  // null: every reference
  const float* sorted_depth;  // by rank
  std::uint32_t* entries;
  float* depth;
  GRANRAY_HD void operator()(std::uint32_t e) const {
    const std::uint32_t r = rank[e];
    const std::uint32_t k = by_depth[r];
    entries[e] = kept != nullptr ? kept[k] : k;
    depth[e] = sorted_depth[r];
  }
};

class LightColumnLists {
 public:
  explicit LightColumnLists(detail::MemoryAccount& account)
      : kept_(account, "light columns' spheres"),
        projected_(account, "light columns' projections"),
        depth_keys_(account, "light columns' depths"),
        by_depth_(account, "light columns' depth order"),
        starts_(account, "light columns' slots"),
        column_(account, "light columns' keys"),
        rank_(account, "light columns' ranks"),
        offsets_(account, "light columns' offsets"),
        entries_(account, "light columns' entries"),
        depth_(account, "light columns' entry depths") {}

  // As detail::LightColumns::build (light_columns.h): columns along the unit direction `dir`
  // over the grid's `references` for up to `rays` shadow rays, none when they would not repay
  // their build (fewer than `least_rays_per_reference` rays a reference) or not fit; kept as they
  // are when asked again for the same grid generation and direction.
  template <class E>
  void build(const E& exec, const GridView& grid, std::uint64_t cells, std::uint64_t references,
             Vec3 dir, std::uint64_t rays, std::uint64_t grid_generation,
             std::uint64_t least_rays_per_reference) {
    if (asked_.again(grid_generation, dir)) return;
    view_ = LightColumnsView{};
    if (!detail::ColumnLayout::repays(references, rays, least_rays_per_reference)) return;
    auto policy = exec.policy();
    const auto n = static_cast<std::uint32_t>(references);
    const ReferenceExtent extent =
        thrust::transform_reduce(policy, Index(0), Index(n), ExtentOfReference{grid.ref_spheres},
                                 ReferenceExtent{0.0f, 0.0f}, WiderExtent{});
    detail::ColumnLayout layout;
    if (!layout.start(dir, extent.largest, extent.radius, grid.geometry.cell_size)) return;
    const LightColumnsView& frame = layout.view();

    const std::uint32_t* kept = nullptr;
    std::uint32_t m = n;
    if (extent.radius > grid.geometry.centre_radius) {
      kept_.resize(n);
      m = static_cast<std::uint32_t>(
          thrust::copy_if(policy, Index(0), Index(n), kept_.data(),
                          ListedFirstHere{grid, static_cast<std::uint32_t>(cells)}) -
          kept_.data());
      kept = kept_.data();
    }
    projected_.resize(m);
    thrust::transform(policy, Index(0), Index(m), projected_.data(),
                      ProjectAcrossLight{grid.ref_spheres, kept, frame.across_u, frame.across_v,
                                         dir, layout.pad()});
    const detail::SpanAcross span = thrust::transform_reduce(
        policy, projected_.data(), projected_.data() + m, SpanOfProjection{},
        detail::SpanAcross{INFINITY, INFINITY, -INFINITY, -INFINITY}, JoinSpans{});
    if (!layout.place(span, m)) return;
    const ColumnExtent columns_extent = thrust::transform_reduce(
        policy, Index(0), Index(m),
        ExtentOfSquare{projected_.data(), frame.u0, frame.v0, frame.inv_cell},
        ColumnExtent{0, 0, 0}, JoinColumnExtents{});
    const std::uint64_t total = columns_extent.entries;
    if (!layout.fits(columns_extent.columns_u, columns_extent.columns_v, total)) return;
    LightColumnsView v = frame;
    const std::uint64_t columns = static_cast<std::uint64_t>(v.columns_u) * v.columns_v;

    // The spheres in order of depth along the light.
    depth_keys_.resize(m);
    by_depth_.resize(m);
    thrust::transform(policy, projected_.data(), projected_.data() + m, depth_keys_.data(),
                      DepthOf{});
    thrust::sequence(policy, by_depth_.data(), by_depth_.data() + m);
    thrust::stable_sort_by_key(policy, depth_keys_.data(), depth_keys_.data() + m,
                               by_depth_.data());
    // Their squares' entries, emitted in that order, then sorted stably by column: each
    // column's entries stay in depth order.
    starts_.resize(m);
    thrust::transform_exclusive_scan(
        policy, Index(0), Index(m), starts_.data(),
        SquareEntries{projected_.data(), by_depth_.data(), v.u0, v.v0, v.inv_cell}, 0u,
        thrust::plus<std::uint32_t>());
    const auto entries = static_cast<std::uint32_t>(total);
    column_.resize(entries);
    rank_.resize(entries);
    thrust::for_each_n(policy, Index(0), m,
                       EmitSquare{projected_.data(), by_depth_.data(), starts_.data(), v.u0, v.v0,
                                  v.inv_cell, v.columns_u, column_.data(), rank_.data()});
    thrust::stable_sort_by_key(policy, column_.data(), column_.data() + entries, rank_.data());
    // Offsets as the grid's: each listed column's first entry, then suffix minima.
    const auto column_count = static_cast<std::uint32_t>(columns);
    offsets_.resize(std::size_t{column_count} + 1);
    std::uint32_t* offsets = offsets_.data();
    thrust::fill_n(policy, offsets, std::size_t{column_count} + 1, entries);
    thrust::for_each_n(policy, Index(0), entries,
                       MarkCellStarts{column_.data(), column_count, offsets});
    const auto from_end = thrust::make_reverse_iterator(offsets + column_count + 1);
    thrust::inclusive_scan(policy, from_end, from_end + (std::size_t{column_count} + 1), from_end,
                           thrust::minimum<std::uint32_t>());
    entries_.resize(entries);
    depth_.resize(entries);
    thrust::for_each_n(policy, Index(0), entries,
                       FillEntry{rank_.data(), by_depth_.data(), kept, depth_keys_.data(),
                                 entries_.data(), depth_.data()});
    v.offsets = offsets;
    v.depth = depth_.data();
    v.entries = entries_.data();
    v.entry_count = entries;
    view_ = v;
  }

  const LightColumnsView& view() const { return view_; }

 private:
  detail::ColumnsAsked asked_;
  LightColumnsView view_{};
  Array<std::uint32_t> kept_;
  Array<Vec4> projected_;
  Array<float> depth_keys_;
  Array<std::uint32_t> by_depth_;
  Array<std::uint32_t> starts_;
  Array<std::uint32_t> column_;
  Array<std::uint32_t> rank_;
  Array<std::uint32_t> offsets_;
  Array<std::uint32_t> entries_;
  Array<float> depth_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
