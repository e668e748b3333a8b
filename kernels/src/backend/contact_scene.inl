// The frame's contact network (contract 2g) as capsules: the pairs in this backend's memory, their
// statistics over the frame, their order by their grains' ids, one capsule and colour per pair in
// that order, and a grid that lists each capsule in the cells its bounding sphere's box overlaps.
// Part of the backend (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "colormap_tables.h"
#include "granray/kernels/contact_capsules.h"
#include "granray/kernels/shading.h"
#include "particle_grid.inl"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The frame's pair values: the largest, their sum and how many pairs are drawable, the smallest.
struct PairCensus {
  float lo;
  float hi;
  double sum;
  std::uint64_t count;
};

GRANRAY_HD_INLINE PairCensus empty_pair_census() { return {INFINITY, -INFINITY, 0.0, 0u}; }

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

struct CensusOfPair {
  PairSource pairs;
  GRANRAY_HD PairCensus operator()(std::uint32_t k) const {
    if (!pairs.drawable(k)) return empty_pair_census();
    const float f = pairs.value[k];
    return {f, f, static_cast<double>(f), 1u};
  }
};

struct MergeCensus {
  GRANRAY_HD PairCensus operator()(const PairCensus& a, const PairCensus& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.sum + b.sum, a.count + b.count};
  }
};

// Capsule k, of pair order[k]: its capsule (radius 0 when it is not drawn), its colour, and its
// bounding sphere for the grid (unrenderable when not drawn).
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
  Vec4* bounding;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    Capsule c{{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.0f};
    Vec4 sphere{0.0f, 0.0f, 0.0f, 0.0f};
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
        const Vec3 mid = (c.a + c.b) * 0.5f;
        sphere = {mid.x, mid.y, mid.z, 0.5f * sqrtf(dot(c.b - c.a, c.b - c.a)) + c.radius};
        const float s = nan_ignoring_min(nan_ignoring_max((f - lo) * inv_span, 0.0f), 1.0f);
        color = table[nearest_of_255(s)];
      }
    }
    capsules[k] = c;
    colors[k] = color;
    bounding[k] = sphere;
  }
};

// What a frame's network came to (FrameStats' contact fields).
struct ContactCensus {
  std::uint64_t drawn = 0;
  std::uint64_t skipped = 0;
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
        order_(account, "contact pairs by id"),
        keys_(account, "contact pair id keys"),
        capsules_(account, "contact capsules"),
        colors_(account, "contact capsule colours"),
        bounding_(account, "contact capsule bounding spheres"),
        table_(account, "contact colormap"),
        ends_(account, "contact grid reference offsets"),
        grid_(account, ends_) {}

  // The capsules of `view`'s pairs between the grains `all` (every grain, clipped or not: clip
  // planes and selection leave the network whole), or none when the frame draws no network.
  CapsuleView build(const Executor& exec, const ResidentParticles& all, const ParticleView& view,
                    const RenderSettings& settings, bool linear, ContactCensus& stats) {
    const ContactView& pairs = view.contacts;
    if (!settings.contacts || pairs.count == 0) return none();
    const ContactSettings& c = *settings.contacts;
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
    if (c.colormap < 0 || c.colormap >= detail::kColormapCount) {
      throw ConfigError("granray: contact colormap index " + std::to_string(c.colormap) +
                        " out of range");
    }
    const auto n = static_cast<std::uint32_t>(pairs.count);
    const bool whole = pairs.spheres != nullptr;
    const PairSource source{all.spheres,
                            all.count,
                            all.ids,
                            view.id_offset,
                            whole ? nullptr : resident(exec, first_, pairs.first, view),
                            whole ? nullptr : resident(exec, second_, pairs.second, view),
                            resident(exec, value_, pairs.value, view),
                            whole ? resident(exec, pair_spheres_, pairs.spheres, view, 2) : nullptr,
                            whole ? resident(exec, pair_ids_, pairs.ids, view, 2) : nullptr};
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
    // The pairs by their grains' ids, the larger then (stable) the smaller.
    order_.resize(n);
    keys_.resize(n);
    thrust::sequence(policy, order_.data(), order_.data() + n);
    thrust::transform(policy, Index(0), Index(n), keys_.data(), PairIdHigh{source});
    thrust::stable_sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
    thrust::transform(policy, order_.data(), order_.data() + n, keys_.data(), PairIdLow{source});
    thrust::stable_sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
    capsules_.resize(n);
    colors_.resize(n);
    bounding_.resize(n);
    const float span = hi > lo ? hi - lo : 1.0f;
    thrust::for_each_n(policy, Index(0), n,
                       MakeCapsule{source, order_.data(), c.width, c.scale_by_force, census.hi,
                                   c.threshold * mean, table_.data(), lo, 1.0f / span,
                                   capsules_.data(), colors_.data(), bounding_.data()});
    const ResidentParticles spheres{bounding_.data(), nullptr, nullptr, n};
    const SceneBounds bounds = reduce_bounds(exec, spheres);
    stats.drawn = bounds.renderable;
    if (bounds.renderable == 0) return none();
    const detail::GridLayout layout =
        grid_.build(exec, spheres, bounds, false, GridCells::overlaps);
    return {grid_.view(layout), capsules_.data(), colors_.data(), n, linear};
  }

 private:
  static CapsuleView none() { return {{}, nullptr, nullptr, 0u, false}; }

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
  Array<std::uint32_t> order_;
  Array<std::uint64_t> keys_;
  Array<Capsule> capsules_;
  Array<Vec3> colors_;
  Array<Vec4> bounding_;
  Array<Vec3> table_;
  int uploaded_colormap_ = -1;
  Array<std::uint64_t> ends_;
  ParticleGrid grid_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
