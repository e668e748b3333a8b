// The frame's contact network (contract 2g) as capsules: the pairs in this backend's memory (their
// reading and statistics: contact_pairs.inl), one capsule, colour and key per pair (as given
// where the grains' ids make the keys, else in their order by those ids: contact_order.inl), and
// a grid that lists each capsule in the cells its box overlaps, or once, in its midpoint's cell.
// Part of the backend (thrust_backend.inl).
#pragma once

#include <algorithm>
#include <vector>

#include "backend_prelude.inl"
#include "colormap_tables.h"
#include "contact_order.inl"
#include "contact_pairs.inl"
#include "env_switches.h"
#include "granray/kernels/contact_capsules.h"
#include "granray/kernels/shading.h"
#include "granray/kernels/walls.h"
#include "grid_layout.h"
#include "particle_grid.inl"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// How the capsules' grid lists a capsule: in every cell its box overlaps (`boxes`), or once, in
// the cell of its segment's midpoint, where its bounding sphere is no larger than a cell
// (`midpoints`; the walk then grows its cells by the largest such sphere's radius, as the grains'
// grid does for grains). GRANRAY_CAPSULE_LISTING picks one (docs/configuration.md). Since capsules
// are cut back to the lens their grains make (capsule_outside_spheres), the midpoints built the
// H200's lit 1 M-grain bed 1.2x faster and cast it faster on the mean of four grid shifts, but on
// the 2-core machine they cast the heap a tenth and the pour a third slower than the boxes, so the
// boxes stay the default until the GPU has measured the suite (docs/benchmarks-log.md, "Capsules
// cut back into the lens").
enum class CapsuleListing { boxes, midpoints };

inline CapsuleListing capsule_listing() {
  return detail::env_word("GRANRAY_CAPSULE_LISTING", {"boxes", "midpoints"}, 0) == 1
             ? CapsuleListing::midpoints
             : CapsuleListing::boxes;
}

// Cells per drawn capsule in the capsules' grid, by listing (GRANRAY_CELLS_PER_CAPSULE sets
// another, for the benchmarks): on the H200's lit 1 M-grain bed, one a capsule cast the midpoints
// fastest on the mean of four grid shifts (two: 8 % slower, at the same build), two the boxes
// (before the cut into the lens, one was 10 % slower for a build 10 % faster, half a cell 20 %
// slower) (docs/benchmarks-log.md).
constexpr double kCellsPerCapsuleByMidpoint = 1.0;
constexpr double kCellsPerCapsuleByBox = 2.0;

inline double cells_per_capsule(CapsuleListing listing) {
  return detail::env_number(
      "GRANRAY_CELLS_PER_CAPSULE", 0.125, 64.0, false,
      listing == CapsuleListing::midpoints ? kCellsPerCapsuleByMidpoint : kCellsPerCapsuleByBox);
}

// How far the capsules' grid's lower corner is moved out along each axis
// (GRANRAY_CAPSULE_GRID_SHIFT, for the benchmarks): on a lattice of grains the walks' speed depends
// on where the cells' faces fall between its rows (on the 2-core machine the 100,000-grain bed's
// lit cast ranged 90-130 ms over shifts of a cell), so two builds are compared over several shifts.
inline float capsule_grid_shift() {
  return static_cast<float>(detail::env_number("GRANRAY_CAPSULE_GRID_SHIFT", 0.0, 1e6, false, 0.0));
}

// The sphere about a capsule's segment's midpoint that holds the whole capsule.
GRANRAY_HD_INLINE Vec4 capsule_listing_sphere(const Capsule& c) {
  const Vec3 mid = (c.a + c.b) * 0.5f;
  const Vec3 half = (c.b - c.a) * 0.5f;
  return {mid.x, mid.y, mid.z, sqrtf(dot(half, half)) + c.radius};
}

// A capsule's box, as BoundsOfSphere gives a grain's (its thickness in place of a diameter, and its
// bounding sphere's radius as the largest radius, which a grid of midpoints reaches by), so that
// the capsules' box and census size their grid as the grains' do.
GRANRAY_HD_INLINE SceneBounds capsule_bounds(const Capsule& c) {
  if (!(c.radius > 0.0f)) return empty_bounds();  // a pair not drawn
  const float r = c.radius;
  return {{nan_ignoring_min(c.a.x, c.b.x) - r, nan_ignoring_min(c.a.y, c.b.y) - r,
           nan_ignoring_min(c.a.z, c.b.z) - r},
          {nan_ignoring_max(c.a.x, c.b.x) + r, nan_ignoring_max(c.a.y, c.b.y) + r,
           nan_ignoring_max(c.a.z, c.b.z) + r},
          1,
          0,
          2.0 * r,
          capsule_listing_sphere(c).w};
}

// Which grains hide the parts of capsules inside them (capsule_outside_spheres): where the frame
// draws its grains (2g's `grains`) and selects none away, a grain that no clip plane removes and
// inside which no primary ray starts (the eye, the lens of a path-traced still, or the plane of
// an orthographic view, with a margin). Rays that start elsewhere start outside every drawn grain:
// on a surface, offset outward. `planes` in this backend's memory.
struct GrainsHidingCapsules {
  bool on = false;
  const ClipPlane* planes = nullptr;
  int plane_count = 0;
  Vec3 eye{0.0f, 0.0f, 0.0f};
  Vec3 w{0.0f, 0.0f, 1.0f};  // the view's axis (CameraFrame::w)
  bool orthographic = false;
  float aperture = 0.0f;  // the lens's radius (0: a pinhole)

  GRANRAY_HD bool hides_inside(Vec4 grain) const {
    if (!on) return false;
    const Vec3 centre = center_of(grain);
    if (plane_count > 0 && clipped_by(planes, plane_count, centre)) return false;
    const Vec3 from_eye = centre - eye;
    const float clear = grain.w * 1.01f + aperture;
    if (orthographic) {
      const float along = dot(from_eye, w);
      return !(along * along <= clear * clear);
    }
    return !(dot(from_eye, from_eye) <= clear * clear);
  }
  // The same but for where the planes are: Kept::serves compares those by value.
  bool same_as(const GrainsHidingCapsules& o) const {
    return on == o.on &&
           (!on || (plane_count == o.plane_count && eye.x == o.eye.x && eye.y == o.eye.y &&
                    eye.z == o.eye.z && w.x == o.w.x && w.y == o.w.y && w.z == o.w.z &&
                    orthographic == o.orthographic && aperture == o.aperture));
  }
};

// Capsule k, of pair order[k] (pair k where there is no order): its capsule (radius 0 when it is
// not drawn or its grains hide it whole), its colour and its key (CapsuleView::keys), written in
// place; its box is returned for the network's box, so that the capsules are read once less.
struct MakeCapsule {
  PairSource pairs;
  const std::uint32_t* order;  // null: the grains' ids make the keys (packed_capsule_key)
  float width;
  bool scale_by_force;
  float f_max;
  float at_least;  // threshold * the frame's mean value
  const Vec3* table;
  float lo;
  float inv_span;
  GrainsHidingCapsules hiding;
  Capsule* capsules;
  Vec3* colors;
  std::uint64_t* keys;
  GRANRAY_HD SceneBounds operator()(std::uint32_t k) const {
    Capsule c{{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.0f};
    Vec3 color{0.0f, 0.0f, 0.0f};
    std::uint64_t key = k;
    const std::uint32_t pair = order != nullptr ? order[k] : k;
    bool hidden = false;
    if (pairs.drawable(pair) && pairs.value[pair] >= at_least) {
      const float f = pairs.value[pair];
      // From the grain of the smaller id to the other: a pair listed either way, or twice, makes
      // the same capsule bit for bit.
      const std::uint64_t id0 = pairs.id(pair, 0), id1 = pairs.id(pair, 1);
      const int low = id1 < id0 ? 1 : 0;
      if (order == nullptr)
        key = low == 0 ? packed_capsule_key(id0, id1) : packed_capsule_key(id1, id0);
      const Vec4 p = pairs.sphere(pair, low);
      const Vec4 q = pairs.sphere(pair, 1 - low);
      const float r_min = p.w < q.w ? p.w : q.w;
      const float share = scale_by_force ? (f_max > 0.0f ? sqrtf(f / f_max) : 0.0f) : 1.0f;
      c = {center_of(p), center_of(q), width * r_min * share};
      if (c.radius > 0.0f) {
        c = capsule_outside_spheres(c, p.w, q.w, hiding.hides_inside(p), hiding.hides_inside(q));
        hidden = !(c.radius > 0.0f);
        const float s = nan_ignoring_min(nan_ignoring_max((f - lo) * inv_span, 0.0f), 1.0f);
        color = table[nearest_of_255(s)];
      }
    }
    capsules[k] = c;
    colors[k] = color;
    keys[k] = key;
    if (!hidden) return capsule_bounds(c);
    // Drawn, but hidden whole by its grains: counted among the frame's drawn pairs
    // (ContactScene::build), in no cell and in no box.
    SceneBounds counted = empty_bounds();
    counted.skipped = 1;
    return counted;
  }
};

// The cells that list capsule c: its midpoint's, where g lists its bounding sphere once, else
// those that its box (grown by the listing pad) overlaps. Only for a drawn capsule.
GRANRAY_HD_INLINE CellRange capsule_cells(const GridGeometry& g, const Capsule& c) {
  const Vec4 around = capsule_listing_sphere(c);
  if (listed_once(g, around)) return centre_cells(g, around);
  const float reach = c.radius + kCellListingPad * g.cell_size;
  const float a[3] = {c.a.x, c.a.y, c.a.z}, b[3] = {c.b.x, c.b.y, c.b.z};
  const float o[3] = {g.origin.x, g.origin.y, g.origin.z};
  CellRange range;
  for (int k = 0; k < 3; ++k) {
    const float lo = a[k] < b[k] ? a[k] : b[k], hi = a[k] < b[k] ? b[k] : a[k];
    range.lo[k] = clamp_cell((lo - reach - o[k]) * g.inv_cell_size, g.dims[k]);
    range.hi[k] = clamp_cell((hi + reach - o[k]) * g.inv_cell_size, g.dims[k]);
  }
  return range;
}

// Counting, then placing, as the CPU's grid of grains does: each cell's references, scanned into
// offsets, then each capsule placed by counting its cells' cursors down. The order inside a cell
// does not matter: equal distances go to the smaller index.
struct CountCapsuleCells {
  GridGeometry geometry;
  const Capsule* capsules;
  std::uint32_t* counts;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const Capsule c = capsules[k];
    if (!(c.radius > 0.0f)) return;
    std::uint32_t* n = counts;
    for_each_cell(geometry, capsule_cells(geometry, c),
                  [n](std::uint32_t cell) { atomic_fetch_add(n + cell, 1u); });
  }
};

// A sum of counts that stops at 2^32 - 1 (associative, so a scan may take it).
struct SaturatingSum {
  static constexpr std::uint32_t kMost = 0xffffffffu;
  GRANRAY_HD std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    return a > kMost - b ? kMost : a + b;
  }
};

struct PlaceCapsules {
  GridGeometry geometry;
  const Capsule* capsules;
  std::uint32_t* cursor;  // each cell's end on entry, its start when every capsule is placed
  std::uint32_t* ref_index;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const Capsule c = capsules[k];
    if (!(c.radius > 0.0f)) return;
    std::uint32_t* refs = ref_index;
    take_slots_in_cells(geometry, capsule_cells(geometry, c), cursor,
                        [refs, k](std::uint32_t slot) { refs[slot] = k; });
  }
};

// What a frame's network came to (FrameStats' contact fields).
struct ContactCensus {
  std::uint64_t drawn = 0;
  std::uint64_t skipped = 0;
  double ms = 0.0;  // the build, waited for
  float lo = 0.0f;
  float hi = 0.0f;
};

class ContactScene {
 public:
  explicit ContactScene(detail::MemoryAccount& account)
      : first_(account, "contact pair upload"),
        second_(account, "contact pair upload"),
        value_(account, "contact value upload"),
        pair_spheres_(account, "contact grains upload"),
        pair_ids_(account, "contact grain ids upload"),
        whole_spheres_(account, "contact grains to gather"),
        whole_ids_(account, "contact grain ids to gather"),
        order_(account),
        capsules_(account, "contact capsules"),
        colors_(account, "contact capsule colours"),
        keys_(account, "contact capsule keys"),
        table_(account, "contact colormap"),
        cell_offsets_(account, "contact grid cell ends, then offsets"),
        refs_(account, "contact grid references") {}

  // The capsules of `view`'s pairs between the grains `all` (every grain, clipped or not: clip
  // planes and selection leave the network whole), or none when the frame draws no network. With
  // `same_particles` (a later view or band of the frame built last) the last build serves.
  // `all_bounds`: the bounds of `all`.
  CapsuleView build(const Executor& exec, const ResidentParticles& all,
                    const SceneBounds& all_bounds, const ParticleView& view,
                    const RenderSettings& settings, const GrainsHidingCapsules& hiding, bool linear,
                    bool same_particles, ContactCensus& stats) {
    const ContactView& pairs = view.contacts;
    if (!settings.contacts || pairs.count == 0) return none();
    const ContactSettings& c = *settings.contacts;
    if (same_particles && kept_ && kept_->serves(pairs, all, c, hiding, settings.clip, linear)) {
      stats = kept_->census;
      stats.ms = 0.0;  // nothing built
      return kept_->view;
    }
    kept_.reset();
    check_pairs(pairs);
    if (c.colormap < 0 || c.colormap >= detail::kColormapCount) {
      throw ConfigError("granray: contact colormap index " + std::to_string(c.colormap) +
                        " out of range");
    }
    const auto n = static_cast<std::uint32_t>(pairs.count);
    const PairSource source =
        pair_source(exec, all, view, all_bounds.skipped == 0 && all_bounds.renderable == all.count);
    // The build's time starts when the pairs are in this backend's memory, as the grains' grid's
    // does: an in-situ code's pairs are there already.
    exec.synchronize();
    const auto start = std::chrono::steady_clock::now();
    auto policy = exec.policy();
    const PairCensus census = thrust::transform_reduce(
        policy, Index(0), Index(n), CensusOfPair{source}, empty_pair_census(), MergeCensus{});
    stats.skipped = n - census.count;
    if (census.count == 0) return none();
    const float mean = static_cast<float>(census.sum / static_cast<double>(census.count));
    float lo = c.lo, hi = c.hi;
    if (c.auto_range) {
      lo = census.lo;
      hi = census.hi;
    }
    stats.lo = lo;
    stats.hi = hi;
    if (c.colormap != uploaded_colormap_) {
      exec.upload(table_, detail::kColormapTables[c.colormap], detail::kColormapSize);
      uploaded_colormap_ = c.colormap;
    }
    // Ids that fit make each capsule's key themselves; wider ones put the pairs in order.
    const std::uint32_t* order =
        census.top_id <= kMostPackedGrainId ? nullptr : order_.by_ids(exec, source, n, census);
    capsules_.resize(n);
    colors_.resize(n);
    keys_.resize(n);
    const float span = hi > lo ? hi - lo : 1.0f;
    const SceneBounds bounds = thrust::transform_reduce(
        policy, Index(0), Index(n),
        MakeCapsule{source, order, c.width, c.scale_by_force, census.hi, c.threshold * mean,
                    table_.data(), lo, 1.0f / span, hiding, capsules_.data(), colors_.data(),
                    keys_.data()},
        empty_bounds(), MergeBounds{});
    // A capsule hidden whole by its grains (capsule_outside_spheres) is drawn, and counts so, but
    // comes back as `skipped`: no cell lists it.
    stats.drawn = bounds.renderable + bounds.skipped;
    if (bounds.renderable == 0) return none();
    const GridView grid = build_grid(exec, bounds, n);
    // The build's time for the statistics: a frame with a network waits for it here.
    exec.synchronize();
    stats.ms = ms_since(start);
    const CapsuleView built{grid, capsules_.data(), colors_.data(), keys_.data(), n, linear};
    kept_ = Kept{pairs, all.spheres, all.count, c, hiding, settings.clip, linear, built, stats};
    return built;
  }

  // The pairs of `view` given whole in host memory (RankStages::copy_contacts_to_host): pairs
  // given whole are copied as they are; pairs by index into the grains `all` become both grains'
  // spheres and ids here, in one pass, and travel once.
  void copy_whole_to_host(const Executor& exec, const ResidentParticles& all,
                          const ParticleView& view, HostPairs& out) {
    const ContactView& pairs = view.contacts;
    out.spheres.resize(2 * pairs.count);
    out.ids.resize(2 * pairs.count);
    out.value.resize(pairs.count);
    if (pairs.count == 0) return;
    check_pairs(pairs);
    const std::size_t n = pairs.count;
    if (pairs.spheres != nullptr && (pairs.on_host || view.space == MemorySpace::host)) {
      // Whole and on the host already (granray-render's pairs): copied, not sent to a device and
      // back.
      std::copy_n(pairs.spheres, 2 * n, out.spheres.data());
      std::copy_n(pairs.ids, 2 * n, out.ids.data());
      std::copy_n(pairs.value, n, out.value.data());
      return;
    }
    const PairSource source = pair_source(exec, all, view, false);
    const Vec4* spheres = source.pair_spheres;
    const std::uint64_t* ids = source.pair_ids;
    if (spheres == nullptr) {
      whole_spheres_.resize(2 * n);
      whole_ids_.resize(2 * n);
      thrust::for_each_n(exec.policy(), Index(0), static_cast<std::uint32_t>(n),
                         WholePair{source, whole_spheres_.data(), whole_ids_.data()});
      spheres = whole_spheres_.data();
      ids = whole_ids_.data();
    }
    exec.download(spheres, out.spheres.data(), 2 * n);
    exec.download(ids, out.ids.data(), 2 * n);
    exec.download(source.value, out.value.data(), n);
  }

 private:
  static CapsuleView none() { return {{}, nullptr, nullptr, nullptr, 0u, false}; }

  // A frame's pairs as contract 2g takes them: fewer than 2^32 - 1, each with a value and both
  // grains (by index, or given whole).
  static void check_pairs(const ContactView& pairs) {
    if (pairs.count > std::numeric_limits<std::uint32_t>::max() - 1) {
      throw Error("granray: " + std::to_string(pairs.count) +
                  " contact pairs in one frame exceed the 32-bit index range");
    }
    const bool by_index = pairs.first != nullptr && pairs.second != nullptr;
    const bool given_whole = pairs.spheres != nullptr && pairs.ids != nullptr;
    if (pairs.value == nullptr || !(by_index || given_whole)) {
      throw Error("granray: the frame's contact view holds " + std::to_string(pairs.count) +
                  " pairs but not both grains (indices, or spheres and ids) and a value for each");
    }
  }

  // The pairs of `view` between the grains `all`, in this backend's memory; `grains_renderable`:
  // every grain of `all` is (PairSource).
  PairSource pair_source(const Executor& exec, const ResidentParticles& all,
                         const ParticleView& view, bool grains_renderable) {
    const ContactView& pairs = view.contacts;
    const bool whole = pairs.spheres != nullptr;
    return {all.spheres,
            all.count,
            grains_renderable,
            all.ids,
            view.id_offset,
            whole ? nullptr : resident(exec, first_, pairs.first, view),
            whole ? nullptr : resident(exec, second_, pairs.second, view),
            resident(exec, value_, pairs.value, view),
            whole ? resident(exec, pair_spheres_, pairs.spheres, view, 2) : nullptr,
            whole ? resident(exec, pair_ids_, pairs.ids, view, 2) : nullptr};
  }

  // What the arrays hold now, and what they were built from.
  struct Kept {
    ContactView pairs;
    const Vec4* spheres;
    std::uint32_t count;
    ContactSettings settings;
    GrainsHidingCapsules hiding;
    std::vector<ClipPlane> clip;  // the planes `hiding` read
    bool linear;
    CapsuleView view;
    ContactCensus census;

    bool serves(const ContactView& p, const ResidentParticles& all, const ContactSettings& c,
                const GrainsHidingCapsules& h, const std::vector<ClipPlane>& planes,
                bool reference) const {
      const ContactSettings& k = settings;
      return hiding.same_as(h) && (!h.on || same_clip_planes(clip, planes)) &&
             p.first == pairs.first && p.second == pairs.second && p.value == pairs.value &&
             p.count == pairs.count && p.spheres == pairs.spheres && p.ids == pairs.ids &&
             p.on_host == pairs.on_host && all.spheres == spheres && all.count == count &&
             reference == linear && c.width == k.width && c.scale_by_force == k.scale_by_force &&
             c.colormap == k.colormap && c.auto_range == k.auto_range && c.lo == k.lo &&
             c.hi == k.hi && c.threshold == k.threshold;
    }
  };

  // A uniform grid over the capsules' box, sized as the grains' grid is (cells_per_capsule cells a
  // capsule, coarser where long capsules would list too many), each capsule listed in the cells
  // its own box overlaps: a thin capsule along a row of grains then sits in a few cells, where its
  // bounding sphere's box would fill a block of them (that walk grows the cells by the listing pad
  // only, GridCells::overlaps). With `midpoints`, a capsule whose bounding sphere fits in a cell is
  // listed once, in its midpoint's cell, and the walk grows the cells by the largest such sphere
  // (GridCells::centres).
  GridView build_grid(const Executor& exec, SceneBounds bounds, std::uint32_t n) {
    const float shift = capsule_grid_shift();
    const CapsuleListing listing = capsule_listing();
    bounds.lo = bounds.lo - Vec3{shift, shift, shift};
    // The layout's count of references is the count into the cells itself: its last call is
    // with the geometry it takes, so the cells' ends are then scanned and ready.
    const detail::GridLayout layout = detail::choose_grid_layout(
        bounds, [&](const GridGeometry& g) { return count_into_cells(exec, g, n); },
        listing == CapsuleListing::midpoints ? GridCells::centres : GridCells::overlaps, 1.0,
        cells_per_capsule(listing));
    const GridGeometry& g = layout.geometry;
    refs_.resize(layout.references);
    // Each capsule counts its cells' cursors down from their ends, which leaves each cell's start
    // there: the cursors become the offsets, the last (past every cell) the total.
    thrust::for_each_n(exec.policy(), Index(0), n,
                       PlaceCapsules{g, capsules_.data(), cell_offsets_.data(), refs_.data()});
    return {g, cell_offsets_.data(), nullptr, refs_.data()};
  }

  // Each cell's end under geometry g (its count of the capsules listed there, scanned), one entry
  // past the last cell holding the total; the total is returned, in 64 bits (a layout that lists
  // too many is refused and made coarser).
  std::uint64_t count_into_cells(const Executor& exec, const GridGeometry& g, std::uint32_t n) {
    auto policy = exec.policy();
    const auto cells = static_cast<std::size_t>(g.dims[0]) * g.dims[1] * g.dims[2];
    cell_offsets_.resize(cells + 1);
    std::uint32_t* ends = cell_offsets_.data();
    thrust::fill_n(policy, ends, cells + 1, 0u);
    thrust::for_each_n(policy, Index(0), n, CountCapsuleCells{g, capsules_.data(), ends});
    // Sums that stop at 2^32 - 1 cannot wrap to a small total: a layout that reaches it lists
    // more than 32-bit references can hold, and is refused.
    thrust::inclusive_scan(policy, ends, ends + cells + 1, ends, SaturatingSum{});
    std::uint32_t total = 0;
    exec.download(ends + cells, &total, 1);
    return total == SaturatingSum::kMost ? std::uint64_t{SaturatingSum::kMost} + 1u : total;
  }

  // The pairs' array (`per_pair` entries a pair) in this backend's memory: in place, or uploaded.
  template <class T>
  static const T* resident(const Executor& exec, Array<T>& staged, const T* values,
                           const ParticleView& view, std::size_t per_pair = 1) {
    const MemorySpace space = view.contacts.on_host ? MemorySpace::host : view.space;
    if (space == Executor::native_space) return values;
    if (space != MemorySpace::host) {
      throw DeviceError(std::string("granray ") + Executor::name +
                        " backend cannot read contact pairs held in device memory");
    }
    exec.upload(staged, values, view.contacts.count * per_pair);
    return staged.data();
  }

  Array<std::uint32_t> first_;
  Array<std::uint32_t> second_;
  Array<float> value_;
  Array<Vec4> pair_spheres_;
  Array<std::uint64_t> pair_ids_;
  Array<Vec4> whole_spheres_;  // pairs by index given whole, for the gather across ranks
  Array<std::uint64_t> whole_ids_;
  ContactOrder order_;
  Array<Capsule> capsules_;
  Array<Vec3> colors_;
  Array<std::uint64_t> keys_;
  Array<Vec3> table_;
  int uploaded_colormap_ = -1;
  Array<std::uint32_t> cell_offsets_;  // each cell's count, its end, its cursor, then its start
  Array<std::uint32_t> refs_;          // the capsules in cell order
  std::optional<Kept> kept_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
