// The frame's contact network (contract 2g) as capsules: the pairs in this backend's memory, their
// statistics over the frame, their order by their grains' ids, one capsule and colour per pair in
// that order, and a grid that lists each capsule in the cells its box overlaps.
// Part of the backend (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "colormap_tables.h"
#include "granray/kernels/contact_capsules.h"
#include "granray/kernels/shading.h"
#include "grid_layout.h"
#include "particle_grid.inl"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The frame's pair values: the largest, their sum and how many pairs are drawable, the smallest.
struct PairCensus {
  float lo;
  float hi;
  double sum;
  std::uint64_t count;
  std::uint64_t top_id;     // the largest grain id of a drawable pair
  std::uint64_t bottom_id;  // the smallest
};

GRANRAY_HD_INLINE PairCensus empty_pair_census() {
  return {INFINITY, -INFINITY, 0.0, 0u, 0u, ~std::uint64_t{0}};
}

// A frame's pairs as the kernels read them: by index into the frame's grains, or given whole
// (both grains' spheres and ids per pair, ContactView::spheres). A pair is drawable when both
// grains are renderable (and, by index, are the frame's) and its value is a finite f >= 0; any
// other pair is left out (a broken particle never stops a frame).
struct PairSource {
  const Vec4* spheres;  // the frame's grains
  std::uint32_t particles;
  const std::uint64_t* ids;  // the grains' global ids; null: index + id_offset
  std::uint64_t id_offset;
  const std::uint32_t* first;
  const std::uint32_t* second;
  const float* value;
  const Vec4* pair_spheres;       // 2 per pair, or null: by index
  const std::uint64_t* pair_ids;  // 2 per pair, with pair_spheres

  GRANRAY_HD bool drawable(std::uint32_t k) const {
    const float f = value[k];
    if (!(is_finite(f) && f >= 0.0f)) return false;
    if (pair_spheres != nullptr) {
      return pair_ids[2 * k] != pair_ids[2 * k + 1] && is_renderable(pair_spheres[2 * k]) &&
             is_renderable(pair_spheres[2 * k + 1]);
    }
    const std::uint32_t i = first[k], j = second[k];
    return i < particles && j < particles && i != j && is_renderable(spheres[i]) &&
           is_renderable(spheres[j]);
  }
  // Grain `side` (0 or 1) of pair k, and its global id; only for a drawable pair (by index, an
  // index inside the frame).
  GRANRAY_HD Vec4 sphere(std::uint32_t k, int side) const {
    if (pair_spheres != nullptr) return pair_spheres[2 * k + side];
    return spheres[side == 0 ? first[k] : second[k]];
  }
  GRANRAY_HD std::uint64_t id(std::uint32_t k, int side) const {
    if (pair_ids != nullptr) return pair_ids[2 * k + side];
    const std::uint32_t i = side == 0 ? first[k] : second[k];
    if (i >= particles) return ~std::uint64_t{0};
    return ids != nullptr ? ids[i] : id_offset + i;
  }
};

// Pair k given whole (RankStages::copy_contacts_to_host): both grains' spheres and ids; a grain
// past the frame's gets a broken sphere and the id ~0, as PairSource::id gives it.
struct WholePair {
  PairSource pairs;
  Vec4* spheres;
  std::uint64_t* ids;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const std::uint32_t grain[2] = {pairs.first[k], pairs.second[k]};
    for (int side = 0; side < 2; ++side) {
      spheres[2 * k + side] =
          grain[side] < pairs.particles ? pairs.spheres[grain[side]] : Vec4{NAN, NAN, NAN, 0.0f};
      ids[2 * k + side] = pairs.id(k, side);
    }
  }
};

// The pair's smaller and larger grain id: the capsules are ordered by them, so that a capsule's
// index (the tie order of contract 2g, and its hit id) is the same on any number of ranks.
struct PairIdLow {
  PairSource pairs;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t k) const {
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return a < b ? a : b;
  }
};
struct PairIdHigh {
  PairSource pairs;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t k) const {
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return a < b ? b : a;
  }
};
// Both ids in one key of 2 * bits bits, the smaller above the larger, when each fits in `bits`
// bits: one sort then orders the pairs as the two stable sorts by the larger and then the smaller
// id do. A pair not drawn sorts last (its capsule is empty wherever it stands): its key has all
// 2 * bits bits set, which no drawn pair's has (its smaller id is below its larger).
struct PairIdKey {
  PairSource pairs;
  int bits;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t k) const {
    if (!pairs.drawable(k))
      return bits >= 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << (2 * bits)) - 1u;
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return a < b ? (a << bits) | b : (b << bits) | a;
  }
};

// The pairs by their smaller grain id without a sort (ContactScene::order_by_buckets): one bucket
// per id from the frame's smallest, and one past them for the pairs not drawn. Each pair takes the
// next place in its bucket; the order inside a bucket is then made the stable sort's.
struct PairBucket {
  PairSource pairs;
  std::uint64_t bottom_id;
  std::uint32_t undrawn;  // the bucket of the pairs not drawn
  GRANRAY_HD std::uint32_t operator()(std::uint32_t k) const {
    if (!pairs.drawable(k)) return undrawn;
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return static_cast<std::uint32_t>((a < b ? a : b) - bottom_id);
  }
};

struct CountInBucket {
  PairBucket bucket_of;
  std::uint32_t* counts;
  std::uint32_t* place;  // each pair's place in its bucket, in no particular order
  GRANRAY_HD void operator()(std::uint32_t k) const {
    place[k] = atomic_fetch_add(counts + bucket_of(k), 1u);
  }
};

struct PlaceInBucket {
  PairBucket bucket_of;
  const std::uint32_t* offsets;
  const std::uint32_t* place;
  std::uint32_t* order;
  std::uint64_t* high;  // the larger grain id of each placed pair
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const std::uint32_t at = offsets[bucket_of(k)] + place[k];
    order[at] = k;
    high[at] = PairIdHigh{bucket_of.pairs}(k);  // read only for pairs drawn
  }
};

// Bucket b's pairs by the larger id, then as given: what the stable sorts leave there. Insertion,
// since a grain has a few contacts (buckets of more than kMostPairsSortedInABucket take the sort).
struct SortBucket {
  const std::uint32_t* offsets;
  std::uint32_t* order;
  std::uint64_t* high;
  GRANRAY_HD void operator()(std::uint32_t b) const {
    const std::uint32_t first = offsets[b], end = offsets[b + 1];
    for (std::uint32_t i = first + 1; i < end; ++i) {
      const std::uint32_t k = order[i];
      const std::uint64_t h = high[i];
      std::uint32_t j = i;
      for (; j > first && (high[j - 1] > h || (high[j - 1] == h && order[j - 1] > k)); --j) {
        order[j] = order[j - 1];
        high[j] = high[j - 1];
      }
      order[j] = k;
      high[j] = h;
    }
  }
};

struct CensusOfPair {
  PairSource pairs;
  GRANRAY_HD PairCensus operator()(std::uint32_t k) const {
    if (!pairs.drawable(k)) return empty_pair_census();
    const float f = pairs.value[k];
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return {f, f, static_cast<double>(f), 1u, a < b ? b : a, a < b ? a : b};
  }
};

struct MergeCensus {
  GRANRAY_HD PairCensus operator()(const PairCensus& a, const PairCensus& b) const {
    return {a.lo < b.lo ? a.lo : b.lo,
            a.hi > b.hi ? a.hi : b.hi,
            a.sum + b.sum,
            a.count + b.count,
            a.top_id > b.top_id ? a.top_id : b.top_id,
            a.bottom_id < b.bottom_id ? a.bottom_id : b.bottom_id};
  }
};

// Capsule k, of pair order[k]: its capsule (radius 0 when it is not drawn) and its colour.
struct MakeCapsule {
  PairSource pairs;
  const std::uint32_t* order;
  float width;
  bool scale_by_force;
  float f_max;
  float at_least;  // threshold * the frame's mean value
  const Vec3* table;
  float lo;
  float inv_span;
  Capsule* capsules;
  Vec3* colors;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    Capsule c{{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.0f};
    Vec3 color{0.0f, 0.0f, 0.0f};
    const std::uint32_t pair = order[k];
    if (pairs.drawable(pair) && pairs.value[pair] >= at_least) {
      const float f = pairs.value[pair];
      // From the grain of the smaller id to the other: a pair listed either way, or twice, makes
      // the same capsule bit for bit.
      const int low = pairs.id(pair, 1) < pairs.id(pair, 0) ? 1 : 0;
      const Vec4 p = pairs.sphere(pair, low);
      const Vec4 q = pairs.sphere(pair, 1 - low);
      const float r_min = p.w < q.w ? p.w : q.w;
      const float share = scale_by_force ? (f_max > 0.0f ? sqrtf(f / f_max) : 0.0f) : 1.0f;
      c = {center_of(p), center_of(q), width * r_min * share};
      if (c.radius > 0.0f) {
        const float s = nan_ignoring_min(nan_ignoring_max((f - lo) * inv_span, 0.0f), 1.0f);
        color = table[nearest_of_255(s)];
      }
    }
    capsules[k] = c;
    colors[k] = color;
  }
};

// Capsule k's box, as BoundsOfSphere gives a grain's (its thickness in place of a diameter), so
// that the capsules' box and census size their grid as the grains' do.
struct BoundsOfCapsule {
  const Capsule* capsules;
  GRANRAY_HD SceneBounds operator()(std::uint32_t k) const {
    const Capsule c = capsules[k];
    if (!(c.radius > 0.0f)) return empty_bounds();  // a pair not drawn
    const float r = c.radius;
    return {{nan_ignoring_min(c.a.x, c.b.x) - r, nan_ignoring_min(c.a.y, c.b.y) - r,
             nan_ignoring_min(c.a.z, c.b.z) - r},
            {nan_ignoring_max(c.a.x, c.b.x) + r, nan_ignoring_max(c.a.y, c.b.y) + r,
             nan_ignoring_max(c.a.z, c.b.z) + r},
            1,
            0,
            2.0 * r,
            r};
  }
};

// The cells that capsule c's box (grown by the listing pad) overlaps; none for a pair not drawn.
GRANRAY_HD_INLINE CellRange capsule_cells(const GridGeometry& g, const Capsule& c) {
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

// How many cells each drawn capsule's box overlaps (64-bit: they are summed).
struct CapsuleCellCount {
  GridGeometry geometry;
  const Capsule* capsules;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t k) const {
    const Capsule c = capsules[k];
    return c.radius > 0.0f ? cell_count(capsule_cells(geometry, c)) : 0u;
  }
};

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

struct PlaceCapsules {
  GridGeometry geometry;
  const Capsule* capsules;
  std::uint32_t* cursor;  // each cell's end on entry, its start when every capsule is placed
  std::uint32_t* ref_index;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const Capsule c = capsules[k];
    if (!(c.radius > 0.0f)) return;
    std::uint32_t* at = cursor;
    std::uint32_t* refs = ref_index;
    for_each_cell(geometry, capsule_cells(geometry, c), [at, refs, k](std::uint32_t cell) {
      refs[atomic_fetch_sub(at + cell, 1u) - 1u] = k;
    });
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
  // Buckets of the bucketed order at most, per pair (the ids' span); and pairs in one bucket at
  // most (its insertion sort is one thread's).
  static constexpr std::uint64_t kMostBucketsPerPair = 4;
  static constexpr std::uint32_t kMostPairsSortedInABucket = 64;

 public:
  explicit ContactScene(detail::MemoryAccount& account)
      : first_(account, "contact pair upload"),
        second_(account, "contact pair upload"),
        value_(account, "contact value upload"),
        pair_spheres_(account, "contact grains upload"),
        pair_ids_(account, "contact grain ids upload"),
        whole_spheres_(account, "contact grains to gather"),
        whole_ids_(account, "contact grain ids to gather"),
        order_(account, "contact pairs by id"),
        keys_(account, "contact pair id keys"),
        sorted_keys_(account, "sorted contact pair id keys"),
        sorted_order_(account, "contact pairs by id, sorted"),
        bucket_offsets_(account, "contact pairs per grain id"),
        place_(account, "contact pair places"),
        capsules_(account, "contact capsules"),
        colors_(account, "contact capsule colours"),
        table_(account, "contact colormap"),
        cell_counts_(account, "contact grid cell counts"),
        cell_offsets_(account, "contact grid cell offsets"),
        refs_(account, "contact grid references") {}

  // The capsules of `view`'s pairs between the grains `all` (every grain, clipped or not: clip
  // planes and selection leave the network whole), or none when the frame draws no network. With
  // `same_particles` (a later view or band of the frame built last) the last build serves.
  CapsuleView build(const Executor& exec, const ResidentParticles& all, const ParticleView& view,
                    const RenderSettings& settings, bool linear, bool same_particles,
                    ContactCensus& stats) {
    const ContactView& pairs = view.contacts;
    if (!settings.contacts || pairs.count == 0) return none();
    const ContactSettings& c = *settings.contacts;
    if (same_particles && kept_ && kept_->serves(pairs, all, c, linear)) {
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
    const PairSource source = pair_source(exec, all, view);
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
    const std::uint32_t* order = order_by_ids(exec, source, n, census);
    capsules_.resize(n);
    colors_.resize(n);
    const float span = hi > lo ? hi - lo : 1.0f;
    thrust::for_each_n(
        policy, Index(0), n,
        MakeCapsule{source, order, c.width, c.scale_by_force, census.hi, c.threshold * mean,
                    table_.data(), lo, 1.0f / span, capsules_.data(), colors_.data()});
    const SceneBounds bounds =
        thrust::transform_reduce(policy, Index(0), Index(n), BoundsOfCapsule{capsules_.data()},
                                 empty_bounds(), MergeBounds{});
    stats.drawn = bounds.renderable;
    if (bounds.renderable == 0) return none();
    const GridView grid = build_grid(exec, bounds, n);
    // The build's time for the statistics: a frame with a network waits for it here.
    exec.synchronize();
    stats.ms = ms_since(start);
    const CapsuleView built{grid, capsules_.data(), colors_.data(), n, linear};
    kept_ = Kept{pairs, all.spheres, all.count, c, linear, built, stats};
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
    const auto n = static_cast<std::uint32_t>(pairs.count);
    const PairSource source = pair_source(exec, all, view);
    const Vec4* spheres = source.pair_spheres;
    const std::uint64_t* ids = source.pair_ids;
    if (spheres == nullptr) {
      whole_spheres_.resize(2 * std::size_t{n});
      whole_ids_.resize(2 * std::size_t{n});
      thrust::for_each_n(exec.policy(), Index(0), n,
                         WholePair{source, whole_spheres_.data(), whole_ids_.data()});
      spheres = whole_spheres_.data();
      ids = whole_ids_.data();
    }
    exec.download(spheres, out.spheres.data(), 2 * std::size_t{n});
    exec.download(ids, out.ids.data(), 2 * std::size_t{n});
    exec.download(source.value, out.value.data(), n);
  }

 private:
  static CapsuleView none() { return {{}, nullptr, nullptr, 0u, false}; }

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

  // The pairs of `view` between the grains `all`, in this backend's memory.
  PairSource pair_source(const Executor& exec, const ResidentParticles& all,
                         const ParticleView& view) {
    const ContactView& pairs = view.contacts;
    const bool whole = pairs.spheres != nullptr;
    return {all.spheres,
            all.count,
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
    bool linear;
    CapsuleView view;
    ContactCensus census;

    bool serves(const ContactView& p, const ResidentParticles& all, const ContactSettings& c,
                bool reference) const {
      const ContactSettings& k = settings;
      return p.first == pairs.first && p.second == pairs.second && p.value == pairs.value &&
             p.count == pairs.count && p.spheres == pairs.spheres && p.ids == pairs.ids &&
             p.on_host == pairs.on_host && all.spheres == spheres && all.count == count &&
             reference == linear && c.width == k.width && c.scale_by_force == k.scale_by_force &&
             c.colormap == k.colormap && c.auto_range == k.auto_range && c.lo == k.lo &&
             c.hi == k.hi && c.threshold == k.threshold;
    }
  };

  // The pairs by their grains' ids, the smaller then the larger, ties in the order given (the
  // sorts are stable). Where the ids span at most a few per pair (any frame whose grains are
  // numbered from some id on), by buckets of the smaller id, without a sort. Else ids below 2^32
  // make one 64-bit key of both and one sort, radix on the GPU; larger ids, two stable sorts.
  template <class E>
  const std::uint32_t* order_by_ids(const E& exec, const PairSource& source, std::uint32_t n,
                                    const PairCensus& census) {
    const std::uint64_t span = census.top_id - census.bottom_id;
    if (span < kMostBucketsPerPair * std::uint64_t{n} + 1024u && span < 0xffff0000u) {
      const std::uint32_t* order = order_by_buckets(exec, source, n, census);
      if (order != nullptr) return order;
    }
    auto policy = exec.policy();
    order_.resize(n);
    keys_.resize(n);
    thrust::sequence(policy, order_.data(), order_.data() + n);
    const int bits = id_bits(census.top_id);
    if (bits > 32) {
      thrust::transform(policy, Index(0), Index(n), keys_.data(), PairIdHigh{source});
      thrust::stable_sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
      thrust::transform(policy, order_.data(), order_.data() + n, keys_.data(), PairIdLow{source});
      thrust::stable_sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
      return order_.data();
    }
    thrust::transform(policy, Index(0), Index(n), keys_.data(), PairIdKey{source, bits});
    if constexpr (E::lists_by_sorting) {
      sorted_keys_.resize(n);
      sorted_order_.resize(n);
      return exec
          .sort_pairs(keys_.data(), order_.data(), sorted_keys_.data(), sorted_order_.data(), n,
                      2 * bits)
          .second;
    } else {
      thrust::stable_sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
      return order_.data();
    }
  }

  // order_by_ids by buckets: count each smaller id's pairs, scan, place, and sort each bucket
  // in place. Null when a bucket holds more than kMostPairsSortedInABucket pairs (a grain that
  // touches that many is no packing's: the sort then serves).
  template <class E>
  const std::uint32_t* order_by_buckets(const E& exec, const PairSource& source, std::uint32_t n,
                                        const PairCensus& census) {
    auto policy = exec.policy();
    const auto undrawn = static_cast<std::uint32_t>(census.top_id - census.bottom_id + 1u);
    const std::size_t buckets = std::size_t{undrawn} + 1u;
    const PairBucket bucket_of{source, census.bottom_id, undrawn};
    bucket_offsets_.resize(buckets + 1);
    place_.resize(n);
    thrust::fill_n(policy, bucket_offsets_.data(), buckets + 1, 0u);
    thrust::for_each_n(policy, Index(0), n,
                       CountInBucket{bucket_of, bucket_offsets_.data(), place_.data()});
    const std::uint32_t fullest =
        thrust::reduce(policy, bucket_offsets_.data(), bucket_offsets_.data() + undrawn, 0u,
                       thrust::maximum<std::uint32_t>());
    if (fullest > kMostPairsSortedInABucket) return nullptr;
    thrust::exclusive_scan(policy, bucket_offsets_.data(), bucket_offsets_.data() + buckets + 1,
                           bucket_offsets_.data());
    order_.resize(n);
    keys_.resize(n);
    thrust::for_each_n(policy, Index(0), n,
                       PlaceInBucket{bucket_of, bucket_offsets_.data(), place_.data(),
                                     order_.data(), keys_.data()});
    // The pairs not drawn stay as placed: their capsules are empty, whatever their order.
    thrust::for_each_n(policy, Index(0), undrawn,
                       SortBucket{bucket_offsets_.data(), order_.data(), keys_.data()});
    return order_.data();
  }

  // Bits that hold every id up to `top`.
  static int id_bits(std::uint64_t top) {
    int bits = 1;
    while (bits < 64 && (top >> bits) != 0) ++bits;
    return bits;
  }

  // A uniform grid over the capsules' box, sized as the grains' grid is (about one cell per
  // capsule, coarser where long capsules would list too many), each capsule listed in the cells
  // its own box overlaps: a thin capsule along a row of grains then sits in a few cells, where its
  // bounding sphere's box would fill a block of them (and every ray through the block would test
  // it). The walk grows the cells by the listing pad only (GridCells::overlaps).
  GridView build_grid(const Executor& exec, const SceneBounds& bounds, std::uint32_t n) {
    auto policy = exec.policy();
    const detail::GridLayout layout = detail::choose_grid_layout(
        bounds,
        [&](const GridGeometry& g) {
          return thrust::transform_reduce(policy, Index(0), Index(n),
                                          CapsuleCellCount{g, capsules_.data()}, std::uint64_t{0},
                                          SumU64{});
        },
        GridCells::overlaps);
    const GridGeometry& g = layout.geometry;
    const std::uint64_t refs = layout.references;
    const auto cells = static_cast<std::size_t>(g.dims[0]) * g.dims[1] * g.dims[2];
    cell_counts_.resize(cells);
    thrust::fill_n(policy, cell_counts_.data(), cells, 0u);
    thrust::for_each_n(policy, Index(0), n,
                       CountCapsuleCells{g, capsules_.data(), cell_counts_.data()});
    cell_offsets_.resize(cells + 1);
    thrust::fill_n(policy, cell_offsets_.data(), 1, 0u);
    thrust::inclusive_scan(policy, cell_counts_.data(), cell_counts_.data() + cells,
                           cell_offsets_.data() + 1);
    thrust::copy_n(policy, cell_offsets_.data() + 1, cells, cell_counts_.data());
    refs_.resize(refs);
    thrust::for_each_n(policy, Index(0), n,
                       PlaceCapsules{g, capsules_.data(), cell_counts_.data(), refs_.data()});
    return {g, cell_offsets_.data(), nullptr, refs_.data()};
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
  Array<std::uint32_t> order_;
  Array<std::uint64_t> keys_;
  Array<std::uint64_t> sorted_keys_;
  Array<std::uint32_t> sorted_order_;
  Array<std::uint32_t> bucket_offsets_;  // each bucket's count, then its start
  Array<std::uint32_t> place_;           // each pair's place in its bucket
  Array<Capsule> capsules_;
  Array<Vec3> colors_;
  Array<Vec3> table_;
  int uploaded_colormap_ = -1;
  Array<std::uint32_t> cell_counts_;  // each cell's count, then its cursor
  Array<std::uint32_t> cell_offsets_;
  Array<std::uint32_t> refs_;  // the capsules in cell order
  std::optional<Kept> kept_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
