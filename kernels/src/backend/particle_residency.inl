// Particle residency: the frame's particles in this backend's memory (in place when they are there
// already, else uploaded), their box, scalar range and category census, and the copy in which clip
// planes and the selection hide grains. Part of the backend (thrust_backend.inl).
#pragma once

#include <array>
#include <utility>

#include "backend_prelude.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

GRANRAY_HD_INLINE SceneBounds empty_bounds() {
  return {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0, 0.0, 0.0f};
}

struct BoundsOfSphere {
  const Vec4* spheres;
  GRANRAY_HD SceneBounds operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    if (!is_renderable(s)) {
      SceneBounds b = empty_bounds();
      b.skipped = 1;
      return b;
    }
    return {
        {s.x - s.w, s.y - s.w, s.z - s.w}, {s.x + s.w, s.y + s.w, s.z + s.w}, 1, 0, 2.0 * s.w, s.w};
  }
};

struct MergeBounds {
  GRANRAY_HD SceneBounds operator()(const SceneBounds& a, const SceneBounds& b) const {
    return {{nan_ignoring_min(a.lo.x, b.lo.x), nan_ignoring_min(a.lo.y, b.lo.y),
             nan_ignoring_min(a.lo.z, b.lo.z)},
            {nan_ignoring_max(a.hi.x, b.hi.x), nan_ignoring_max(a.hi.y, b.hi.y),
             nan_ignoring_max(a.hi.z, b.hi.z)},
            a.renderable + b.renderable,
            a.skipped + b.skipped,
            a.diameter_sum + b.diameter_sum,
            nan_ignoring_max(a.max_radius, b.max_radius)};
  }
};

struct ScalarRange {
  float lo, hi;
};

struct ScalarRangeOf {
  const Vec4* spheres;
  const float* scalar;
  GRANRAY_HD ScalarRange operator()(std::uint32_t i) const {
    if (!is_renderable(spheres[i]) || !is_finite(scalar[i])) return {INFINITY, -INFINITY};
    return {scalar[i], scalar[i]};
  }
};

struct MergeScalarRange {
  GRANRAY_HD ScalarRange operator()(const ScalarRange& a, const ScalarRange& b) const {
    return {nan_ignoring_min(a.lo, b.lo), nan_ignoring_max(a.hi, b.hi)};
  }
};

// contract 2d's census: which category values 0..255 the drawn grains take.
struct CategorySet {
  std::uint64_t words[kCategoryWords];
};

struct CategoryOf {
  const Vec4* spheres;
  const float* scalar;
  GRANRAY_HD CategorySet operator()(std::uint32_t i) const {
    CategorySet set{};
    const float s = scalar[i];
    if (!is_renderable(spheres[i]) || !(s > -1.0f && s < 64.0f * kCategoryWords)) return set;
    const auto k = static_cast<int>(floor(static_cast<double>(s) + 0.5));
    if (k >= 0 && k < 64 * kCategoryWords) set.words[k / 64] = std::uint64_t{1} << (k % 64);
    return set;
  }
};

struct JoinCategorySets {
  GRANRAY_HD CategorySet operator()(const CategorySet& a, const CategorySet& b) const {
    CategorySet set;
    for (int w = 0; w < kCategoryWords; ++w) set.words[w] = a.words[w] | b.words[w];
    return set;
  }
};

// A grain beyond a clip plane (contract 2c) or outside the selection (contract 2d) made
// unrenderable (radius NaN) in a copy that the structures and the rays read: the caller's array
// stays as it is.
struct HideSphere {
  const Vec4* spheres;
  const ClipPlane* planes;
  int count;
  const float* select;  // null: no selection
  float lo, hi;
  GRANRAY_HD Vec4 operator()(std::uint32_t i) const {
    Vec4 s = spheres[i];
    if (clipped_by(planes, count, center_of(s))) s.w = NAN;
    if (select != nullptr && !(select[i] >= lo && select[i] <= hi)) s.w = NAN;
    return s;
  }
};

// A frame's particles as the kernels read them.
struct ResidentParticles {
  const Vec4* spheres;
  const std::uint64_t* ids;
  const float* scalar;
  std::uint32_t count;
  const float* select = nullptr;  // contract 2d selection values; null: `scalar`
  // contract 2e material values per field slot (ParticleView::material_values); null: `scalar`
  std::array<const float*, kMaterialFields> material{};

  // What the materials of each field slot select grains by (MaterialField::scalar).
  std::array<const float*, kMaterialFields> material_values() const {
    std::array<const float*, kMaterialFields> values{};
    for (int k = 0; k < kMaterialFields; ++k) {
      values[k] = material[k] != nullptr ? material[k] : scalar;
    }
    return values;
  }
};

inline SceneBounds reduce_bounds(const Executor& exec, const ResidentParticles& r) {
  if (r.count == 0) return empty_bounds();
  return thrust::transform_reduce(exec.policy(), Index(0), Index(r.count),
                                  BoundsOfSphere{r.spheres}, empty_bounds(), MergeBounds{});
}

// Min and max of the renderable particles' finite scalars; lo > hi when there are none.
inline ScalarRange scalar_range(const Executor& exec, const ResidentParticles& r) {
  if (r.scalar == nullptr || r.count == 0) return {INFINITY, -INFINITY};
  return thrust::transform_reduce(exec.policy(), Index(0), Index(r.count),
                                  ScalarRangeOf{r.spheres, r.scalar},
                                  ScalarRange{INFINITY, -INFINITY}, MergeScalarRange{});
}

// contract 2d: the category values of the grains this frame draws (hidden ones are not renderable
// in `r`), when the settings ask for the census.
inline void take_category_census(const Executor& exec, const ResidentParticles& r,
                                 const RenderSettings& settings, FrameStats& stats) {
  if (!settings.category_census || !settings.color || settings.color->palette.empty() ||
      r.scalar == nullptr || r.count == 0) {
    return;
  }
  const CategorySet set =
      thrust::transform_reduce(exec.policy(), Index(0), Index(r.count),
                               CategoryOf{r.spheres, r.scalar}, CategorySet{}, JoinCategorySets{});
  std::copy(set.words, set.words + kCategoryWords, stats.categories.begin());
}

// The particles of a view, in whichever memory they are, copied into host arrays (the gather of a
// frame lit on one rank); ids counted from the view's offset when it has none.
inline void copy_particles_to_host(const Executor& exec, const ParticleView& view,
                                   HostParticles& out) {
  const std::size_t n = view.count;
  if (n > 0 && view.xyzr == nullptr) {
    throw Error("granray: particle view holds " + std::to_string(n) + " particles but no data");
  }
  const bool on_host = view.space == MemorySpace::host;
  if (!on_host && view.space != Executor::native_space) {
    throw DeviceError(std::string("granray ") + Executor::name +
                      " backend cannot read particles held in device memory");
  }
  const auto take = [&](const auto* from, auto& into) {
    into.resize(n);
    if (n == 0) return;
    if (on_host) {
      std::copy_n(from, n, into.data());
    } else {
      exec.download(from, into.data(), n);
    }
  };
  take(view.xyzr, out.xyzr);
  const auto take_optional = [&](const float* from, std::vector<float>& into) {
    if (from != nullptr) {
      take(from, into);
    } else {
      into.clear();
    }
  };
  take_optional(view.scalar, out.scalar);
  take_optional(view.select_scalar, out.select);
  for (int k = 0; k < kMaterialFields; ++k) take_optional(view.material_values[k], out.material[k]);
  if (view.ids != nullptr) {
    take(view.ids, out.ids);
  } else {
    out.ids.resize(n);
    for (std::size_t i = 0; i < n; ++i) out.ids[i] = view.id_offset + i;
  }
}

class ParticleResidency {
  // One upload buffer per material field slot (Array has no default constructor).
  template <std::size_t... Slot>
  static std::array<Array<float>, sizeof...(Slot)> material_uploads(detail::MemoryAccount& account,
                                                                    std::index_sequence<Slot...>) {
    return {((void)Slot, Array<float>(account, "particle material value upload"))...};
  }

 public:
  explicit ParticleResidency(detail::MemoryAccount& account)
      : staged_spheres_(account, "particle upload"),
        staged_ids_(account, "particle id upload"),
        staged_scalar_(account, "particle scalar upload"),
        staged_select_(account, "particle selection upload"),
        staged_material_(material_uploads(account, std::make_index_sequence<kMaterialFields>())),
        hidden_(account, "particles after the clip planes and selection") {}

  // The particles in this backend's memory: in place when they already are, else uploaded; with
  // `same_particles` (a later view or band of the frame the previous call drew, unchanged) the
  // previous upload serves.
  ResidentParticles resident(const Executor& exec, const ParticleView& view,
                             bool same_particles = false) {
    if (same_particles && uploaded_ && uploaded_->matches(view)) return uploaded_->resident;
    uploaded_.reset();
    if (view.count > std::numeric_limits<std::uint32_t>::max() - 1) {
      throw Error("granray: " + std::to_string(view.count) +
                  " particles in one frame exceed the 32-bit index range; split them over ranks");
    }
    const auto n = static_cast<std::uint32_t>(view.count);
    if (n > 0 && view.xyzr == nullptr) {
      throw Error("granray: particle view holds " + std::to_string(n) + " particles but no data");
    }
    if (view.space == Executor::native_space || n == 0) {
      return {view.xyzr, view.ids, view.scalar, n, view.select_scalar, view.material_values};
    }
    if (view.space != MemorySpace::host) {
      throw DeviceError(std::string("granray ") + Executor::name +
                        " backend cannot read particles held in device memory");
    }
    exec.upload(staged_spheres_, view.xyzr, n);
    const std::uint64_t* ids = nullptr;
    if (view.ids != nullptr) {
      exec.upload(staged_ids_, view.ids, n);
      ids = staged_ids_.data();
    }
    const auto upload_optional = [&](Array<float>& staged, const float* values) -> const float* {
      if (values == nullptr) return nullptr;
      exec.upload(staged, values, n);
      return staged.data();
    };
    ResidentParticles staged{staged_spheres_.data(),
                             ids,
                             upload_optional(staged_scalar_, view.scalar),
                             n,
                             upload_optional(staged_select_, view.select_scalar),
                             {}};
    for (int k = 0; k < kMaterialFields; ++k) {
      staged.material[k] = upload_optional(staged_material_[k], view.material_values[k]);
    }
    uploaded_ = Uploaded{view, staged};
    return staged;
  }

  // The box of `all`, measured again unless `same_particles` and these are the particles
  // measured last: every view of a frame (contract 2f) would otherwise wait for the same reduction.
  SceneBounds bounds(const Executor& exec, const ResidentParticles& all, bool same_particles) {
    if (!(same_particles && measured_ && measured_->spheres == all.spheres &&
          measured_->count == all.count)) {
      measured_ = Measured{all.spheres, all.count, reduce_bounds(exec, all)};
    }
    return measured_->bounds;
  }

  // `all` with every grain made unrenderable (contract 2g: grains = false).
  ResidentParticles hide_all(const Executor& exec, const ResidentParticles& all) {
    hidden_.resize(all.count);
    thrust::fill_n(exec.policy(), hidden_.data(), all.count, Vec4{0.0f, 0.0f, 0.0f, 0.0f});
    ResidentParticles shown = all;
    shown.spheres = hidden_.data();
    return shown;
  }

  // `all` with the grains beyond a clip plane or outside the selection window made unrenderable.
  ResidentParticles hide(const Executor& exec, const ResidentParticles& all,
                         const ClipPlane* planes, int plane_count, const float* select,
                         SelectRange window) {
    hidden_.resize(all.count);
    thrust::transform(exec.policy(), Index(0), Index(all.count), hidden_.data(),
                      HideSphere{all.spheres, planes, plane_count, select, window.lo, window.hi});
    ResidentParticles shown = all;
    shown.spheres = hidden_.data();
    return shown;
  }

 private:
  struct Uploaded {
    ParticleView view;
    ResidentParticles resident;
    bool matches(const ParticleView& v) const {
      return v.space == view.space && v.xyzr == view.xyzr && v.ids == view.ids &&
             v.scalar == view.scalar && v.select_scalar == view.select_scalar &&
             v.material_values == view.material_values && v.count == view.count;
    }
  };
  struct Measured {
    const Vec4* spheres;
    std::uint32_t count;
    SceneBounds bounds;
  };
  std::optional<Uploaded> uploaded_;
  std::optional<Measured> measured_;
  Array<Vec4> staged_spheres_;
  Array<std::uint64_t> staged_ids_;
  Array<float> staged_scalar_;
  Array<float> staged_select_;
  std::array<Array<float>, kMaterialFields> staged_material_;  // one per field slot
  Array<Vec4> hidden_;  // the particles, those clipped or not selected made unrenderable
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
