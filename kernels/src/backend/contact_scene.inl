// The frame's contact network (contract 2g) as capsules: the pairs in this backend's memory, their
// statistics over the frame, one capsule and colour per pair, and a grid that lists each capsule
// in the cells its bounding sphere's box overlaps. Part of the backend (thrust_backend.inl).
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

// A pair is drawable when both indices name renderable grains of the frame and its value is a
// finite f >= 0; any other pair is left out (a broken particle never stops a frame).
struct DrawablePair {
  const Vec4* spheres;
  std::uint32_t particles;
  const std::uint32_t* first;
  const std::uint32_t* second;
  const float* value;
  GRANRAY_HD bool operator()(std::uint32_t k) const {
    const std::uint32_t i = first[k], j = second[k];
    const float f = value[k];
    return i < particles && j < particles && i != j && is_renderable(spheres[i]) &&
           is_renderable(spheres[j]) && is_finite(f) && f >= 0.0f;
  }
};

struct CensusOfPair {
  DrawablePair drawable;
  GRANRAY_HD PairCensus operator()(std::uint32_t k) const {
    if (!drawable(k)) return empty_pair_census();
    const float f = drawable.value[k];
    return {f, f, static_cast<double>(f), 1u};
  }
};

struct MergeCensus {
  GRANRAY_HD PairCensus operator()(const PairCensus& a, const PairCensus& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.sum + b.sum, a.count + b.count};
  }
};

// Pair k's capsule (radius 0 when it is not drawn), its colour, and its bounding sphere for the
// grid (unrenderable when not drawn).
struct MakeCapsule {
  DrawablePair drawable;
  const std::uint64_t* ids;  // the grains' global ids; null: their indices order them
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
    if (drawable(k) && drawable.value[k] >= at_least) {
      const float f = drawable.value[k];
      // From the grain of the smaller id to the other: a pair listed either way, or twice, makes
      // the same capsule bit for bit.
      std::uint32_t i = drawable.first[k], j = drawable.second[k];
      if (ids != nullptr ? ids[j] < ids[i] : j < i) {
        const std::uint32_t swap = i;
        i = j;
        j = swap;
      }
      const Vec4 p = drawable.spheres[i];
      const Vec4 q = drawable.spheres[j];
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
    if (pairs.first == nullptr || pairs.second == nullptr || pairs.value == nullptr) {
      throw Error("granray: the frame's contact view holds " + std::to_string(pairs.count) +
                  " pairs but not both indices and a value for each");
    }
    if (c.colormap < 0 || c.colormap >= detail::kColormapCount) {
      throw ConfigError("granray: contact colormap index " + std::to_string(c.colormap) +
                        " out of range");
    }
    const auto n = static_cast<std::uint32_t>(pairs.count);
    const DrawablePair drawable{all.spheres, all.count, resident(exec, first_, pairs.first, view),
                                resident(exec, second_, pairs.second, view),
                                resident(exec, value_, pairs.value, view)};
    auto policy = exec.policy();
    const PairCensus census = thrust::transform_reduce(
        policy, Index(0), Index(n), CensusOfPair{drawable}, empty_pair_census(), MergeCensus{});
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
    capsules_.resize(n);
    colors_.resize(n);
    bounding_.resize(n);
    const float span = hi > lo ? hi - lo : 1.0f;
    thrust::for_each_n(policy, Index(0), n,
                       MakeCapsule{drawable, all.ids, c.width, c.scale_by_force, census.hi,
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

  // The pairs' array in this backend's memory: in place, or uploaded.
  template <class T>
  static const T* resident(const Executor& exec, Array<T>& staged, const T* values,
                           const ParticleView& view) {
    if (view.space == Executor::native_space) return values;
    if (view.space != MemorySpace::host) {
      throw DeviceError(std::string("granray ") + Executor::name +
                        " backend cannot read contact pairs held in device memory");
    }
    exec.upload(staged, values, view.contacts.count);
    return staged.data();
  }

  Array<std::uint32_t> first_;
  Array<std::uint32_t> second_;
  Array<float> value_;
  Array<Capsule> capsules_;
  Array<Vec3> colors_;
  Array<Vec4> bounding_;
  Array<Vec3> table_;
  int uploaded_colormap_ = -1;
  Array<std::uint64_t> ends_;
  ParticleGrid grid_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
