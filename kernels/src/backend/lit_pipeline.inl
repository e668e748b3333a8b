// A lit frame's buffers and passes (contract 2a, kernels/lit_passes.h), for one backend.
#pragma once

#include "backend_prelude.inl"
#include "bounce_levels.inl"
#include "env_switches.h"
#include "granray/kernels/avx2_kernel.h"
#include "granray/kernels/lit_passes.h"
#include "granray/kernels/materials.h"
#include "granray/kernels/path_trace.h"
#include "material_setup.h"
#include "path_levels.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// Samples in one frame, as an index type: pixels x samples must stay addressable.
inline std::size_t lit_sample_count(const CameraFrame& camera, const LightingParams& lighting) {
  return static_cast<std::size_t>(camera.width) * static_cast<std::size_t>(camera.height) *
         static_cast<std::size_t>(lighting.side * lighting.side);
}

struct WidenCount {
  GRANRAY_HD std::uint64_t operator()(std::uint32_t n) const { return n; }
};

struct IsVisibleSurface {
  GRANRAY_HD bool operator()(const SurfaceSample& s) const { return s.t < INFINITY; }
};

// The way an environment variable asks a pass to go (the tests and benchmarks compare both ways
// in one process): `one` or `other`, else (unset) the backend's `default_other`; another word is
// refused by name.
inline bool asks_other_way(const char* variable, const char* one, const char* other,
                           bool default_other) {
  return detail::env_word(variable, {one, other}, default_other ? 1 : 0) == 1;
}

// Whether a frame's bounce pass goes level by level: on a backend where that pays
// (Executor::traces_bounces_by_level) when it is 2 or more bounces deep (one bounce depth first
// costs less: a single pass, no lists), unless GRANRAY_BOUNCE_PASS asks for "depth" or "level".
inline bool bounces_by_level(int bounces) {
  return asks_other_way("GRANRAY_BOUNCE_PASS", "depth", "level",
                        Executor::traces_bounces_by_level && bounces >= 2);
}

// Whether the path still goes level by level (path_levels.inl): where that pays
// (Executor::traces_paths_by_level), unless GRANRAY_PATH_PASS asks for "pixel" (each pixel's
// paths one after another in one pass) or "level".
inline bool paths_by_level() {
  return asks_other_way("GRANRAY_PATH_PASS", "pixel", "level", Executor::traces_paths_by_level);
}

class LitPipeline {
 public:
  explicit LitPipeline(detail::MemoryAccount& account)
      : surfaces_(account, "lit frame samples"),
        blocked_(account, "blocked secondary rays"),
        boxes_(account, "ranks' boxes"),
        slots_(account, "samples' materials"),
        mixes_(account, "samples' bounce mixes"),
        ray_counts_(account, "bounce rays per pixel"),
        path_sums_(account, "path sums per pixel"),
        material_params_(account, "materials"),
        grain_ranges_(account, "materials' grain ranges"),
        levels_(account),
        path_levels_(account) {}

  // Pass 1 into this pipeline's surfaces; with `materials` (contract 2e), each sample's material
  // slot too.
  template <class Tracer, class Walls>
  void find_surfaces(const Executor& exec, const Tracer& trace, const Walls& walls,
                     const CameraFrame& camera, const ColorSource& color, const Vec4* spheres,
                     const LightingParams& lighting, const MaterialTable* materials = nullptr) {
    const std::size_t samples = lit_sample_count(camera, lighting);
    surfaces_.resize(samples);
    FindSurfaces<Tracer, Walls> find{trace,         camera,           color, spheres,
                                     lighting.side, surfaces_.data(), walls};
    with_materials_ = materials != nullptr;
    if (with_materials_) {
      slots_.resize(samples);
      find.materials = materials->grains;
      find.slots = slots_.data();
    }
    exec.for_each_pixel(camera.width, camera.height, find);
  }

  // The bounce pass (contract 2e, kernels/materials.h) over this pipeline's surfaces, after pass 1
  // found them with materials.
  // `count`: also each pixel's bounce rays and their secondary rays (bounce_rays).
  template <class Scene, class Occluder>
  void trace_bounces(const Executor& exec, const Scene& scene, const Occluder& occluded,
                     const CameraFrame& camera, const ShadingParams& shading,
                     const LightingParams& lighting, bool count) {
    const std::size_t samples = lit_sample_count(camera, lighting);
    mixes_.resize(samples);
    if (count) ray_counts_.resize(std::size_t(camera.width) * std::size_t(camera.height));
    if (bounces_by_level(scene.table.bounces) &&
        levels_.trace(exec, scene, occluded, camera, shading, lighting, surfaces_.data(),
                      slots_.data(), samples, mixes_.data(),
                      count ? ray_counts_.data() : nullptr)) {
      return;
    }
    exec.for_each_pixel(camera.width, camera.height,
                        TraceBounces<Scene, Occluder>{
                            scene, occluded, camera, shading, lighting, surfaces_.data(),
                            slots_.data(), mixes_.data(), count ? ray_counts_.data() : nullptr});
  }

  // The frame's materials (contract 2e) in this backend's memory, as the kernels read them. They
  // travel only when they change (an upload waits for the device).
  MaterialTable upload_materials(const Executor& exec, const detail::MaterialSetup& setup) {
    if (!same_bytes(setup.params, uploaded_params_)) {
      exec.upload(material_params_, setup.params.data(), setup.params.size());
      uploaded_params_ = setup.params;
    }
    if (!same_bytes(setup.ranges, uploaded_ranges_)) {
      exec.upload(grain_ranges_, setup.ranges.data(), setup.ranges.size());
      uploaded_ranges_ = setup.ranges;
    }
    return {material_params_.data(),
            {grain_ranges_.data(), static_cast<int>(setup.ranges.size())},
            setup.bounces};
  }

  // The path-traced still (kernels/path_trace.h): paths [first, first + count) of every pixel
  // added to its sum, level by level where the backend takes that way (path_levels.inl), else in
  // one pass; with `avx2`, by the one pass's kernel compiled for it (avx2_kernel.h).
  template <class Scene, class Occluder, class CameraTracer>
  void trace_paths(const Executor& exec, const Scene& scene, const Occluder& occluded,
                   const CameraTracer& camera_tracer, const CameraFrame& camera,
                   const ShadingParams& shading, const PathParams& path, float wall_offset,
                   int first, int count, std::size_t pixels, bool avx2) {
    path_sums_.resize(pixels);
    if (paths_by_level()) {
      path_levels_.trace(exec, scene, occluded, camera_tracer, camera, shading, path, wall_offset,
                         first, count, path_sums_.data());
      return;
    }
    const TracePaths<Scene, Occluder, CameraTracer> paths{
        scene, occluded,    camera_tracer, camera, shading,
        path,  wall_offset, first,         count,  path_sums_.data()};
#if GRANRAY_AVX2_CODE
    if (avx2) {
      exec.for_each_pixel(camera.width, camera.height, Avx2Kernel<decltype(paths)>{paths});
      return;
    }
#endif
    exec.for_each_pixel(camera.width, camera.height, paths);
  }

  // The path still's level lists given back (PathLevels::release).
  void release_path_lists() { path_levels_.release(); }
  // The still's parts traced again in halves for want of memory (PathLevels::parts_retried).
  std::uint64_t path_parts_retried() const { return path_levels_.parts_retried(); }

  void finish_paths(const Executor& exec, const CameraFrame& camera, int samples,
                    Rgb8* pixels) const {
    exec.for_each_pixel(camera.width, camera.height,
                        FinishPaths{camera, samples, path_sums_.data(), pixels});
  }

  // The rays the last counted bounce pass traced.
  std::uint64_t bounce_rays(const Executor& exec, const CameraFrame& camera) const {
    const std::size_t n = std::size_t(camera.width) * std::size_t(camera.height);
    return thrust::transform_reduce(exec.policy(), ray_counts_.data(), ray_counts_.data() + n,
                                    WidenCount{}, std::uint64_t{0}, thrust::plus<std::uint64_t>());
  }

  // Pass 1 across ranks by halo (lit_across_ranks.inl): spheres from `owned` on are other
  // ranks', and only one rank keeps the walls' samples.
  template <class Tracer, class Walls>
  void find_own_surfaces(const Executor& exec, const Tracer& trace, const Walls& walls,
                         const CameraFrame& camera, const ColorSource& color, const Vec4* spheres,
                         const LightingParams& lighting, std::uint32_t owned, bool keep_walls) {
    surfaces_.resize(lit_sample_count(camera, lighting));
    FindSurfaces<Tracer, Walls> find{trace,         camera,           color, spheres,
                                     lighting.side, surfaces_.data(), walls};
    find.owned = owned;
    find.keep_walls = keep_walls;
    with_materials_ = false;
    exec.for_each_pixel(camera.width, camera.height, find);
  }

  const SurfaceSample* surfaces() const { return surfaces_.data(); }
  std::uint32_t* blocked() { return blocked_.data(); }
  const RankBox* upload_boxes(const Executor& exec, const std::vector<RankBox>& boxes) {
    exec.upload(boxes_, boxes.data(), boxes.size());
    return boxes_.data();
  }

  // Pass 2 over this pipeline's surfaces, against one occluder's spheres; `forward` after each
  // visible sample's bits (NoForward: nothing).
  template <class Occluder, class Forward = NoForward>
  void find_blockers(const Executor& exec, const Occluder& occluded, const CameraFrame& camera,
                     const ShadingParams& shading, const LightingParams& lighting,
                     const Forward& forward = {}) {
    blocked_.resize(lit_sample_count(camera, lighting) *
                    static_cast<std::size_t>(lighting.mask_words));
    const FindBlockers<Occluder, Forward> find{occluded,         camera,          shading, lighting,
                                               surfaces_.data(), blocked_.data(), forward};
    if constexpr (Occluder::gathers_nearby) {
      const int block = gather_block(lighting.side * lighting.side);
      exec.for_each_pixel((camera.width + block - 1) / block, (camera.height + block - 1) / block,
                          FindBlockersInBlocks<Occluder, Forward>{find, block});
    } else {
      exec.for_each_pixel(camera.width, camera.height, find);
    }
  }

  // Pass 3 into `pixels`; without pass 2 (no secondary rays) nothing is blocked. With `depth`,
  // each pixel's first sample's depth and id into `depth` and `hit_id` in the same pass.
  template <class Walls>
  void shade(const Executor& exec, const CameraFrame& camera, const ShadingParams& shading,
             const LightingParams& lighting, bool with_blocked, const Walls& walls, Rgb8* pixels,
             float* depth = nullptr, std::uint64_t* hit_id = nullptr) const {
    exec.for_each_pixel(camera.width, camera.height,
                        ShadeSurfaces<Walls>{{camera, shading, lighting, surfaces_.data(),
                                              with_blocked ? blocked_.data() : nullptr, walls,
                                              with_materials_ ? mixes_.data() : nullptr},
                                             pixels,
                                             depth,
                                             hit_id});
  }

  // Each pixel's first sample as its depth and id (RenderOptions::with_hits).
  void first_sample_hits(const Executor& exec, const CameraFrame& camera,
                         const LightingParams& lighting, float* depth,
                         std::uint64_t* hit_id) const {
    exec.for_each_pixel(
        camera.width, camera.height,
        FirstSampleHits{camera, lighting.side * lighting.side, surfaces_.data(), depth, hit_id});
  }

  // Samples that show a sphere: each casts the frame's secondary rays.
  std::uint64_t visible_samples(const Executor& exec, std::size_t count) const {
    return static_cast<std::uint64_t>(thrust::count_if(
        exec.policy(), surfaces_.data(), surfaces_.data() + count, IsVisibleSurface{}));
  }

 private:
  // Equal vectors of plain records (no padding); two empty ones are equal (memcmp may not be
  // given their null data).
  template <class T>
  static bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
  }

  Array<SurfaceSample> surfaces_;
  Array<std::uint32_t> blocked_;
  Array<RankBox> boxes_;
  Array<std::uint8_t> slots_;        // per sample, with materials
  Array<Vec4> mixes_;                // per sample, after the bounce pass
  Array<std::uint32_t> ray_counts_;  // per pixel, when the bounce pass counts its rays
  Array<Vec3> path_sums_;            // per pixel, the path-traced still's running sums
  Array<MaterialParams> material_params_;
  Array<GrainRange> grain_ranges_;
  std::vector<MaterialParams> uploaded_params_;  // what material_params_ holds
  std::vector<GrainRange> uploaded_ranges_;
  bool with_materials_ = false;
  BounceLevels levels_;
  PathLevels path_levels_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
