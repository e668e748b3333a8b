// The path-traced still (contract 2e, renderer = "path", kernels/path_trace.h) from the backend's
// parts: the grid (or every sphere for the reference), the opaque walls and the frame's materials;
// paths added to each pixel's sum in batches, then the mean quantised.
#pragma once

#include "backend_parts.inl"
#include "backend_prelude.inl"
#include "frame_setup.inl"
#include "granray/kernels/avx2_kernel.h"
#include "granray/kernels/path_trace.h"
#include "granray/kernels/pixel_kernels.h"
#include "lit_frame.inl"
#include "material_setup.h"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// [insitu.path] as the kernels read it; ConfigError for values out of range.
inline PathParams make_path_params(const RenderSettings& settings, const CameraSetup& camera) {
  const PathSettings& p = settings.path;
  if (p.samples < 1 || p.samples > kMaxPathSamples) {
    throw ConfigError("granray: path samples must be in 1.." + std::to_string(kMaxPathSamples));
  }
  if (!(p.sun_radius >= 0.0f && p.sun_radius < 90.0f)) {
    throw ConfigError("granray: path sun_radius must be in [0, 90) degrees");
  }
  if (!(p.sun_intensity >= 0.0f) || !std::isfinite(p.sun_intensity)) {
    throw ConfigError("granray: path sun_intensity must be finite and >= 0");
  }
  if (!(p.aperture >= 0.0f) || !std::isfinite(p.aperture) || !(p.focus_distance >= 0.0f) ||
      !std::isfinite(p.focus_distance)) {
    throw ConfigError("granray: path aperture and focus_distance must be finite and >= 0");
  }
  PathParams out{};
  out.samples = p.samples;
  out.bounces = std::max(1, settings.shading.bounces);
  const double radius = double(p.sun_radius) * M_PI / 180.0;
  out.cos_sun = radius > 0.0 ? static_cast<float>(std::cos(radius)) : 1.0f;
  const double sin2 = std::sin(radius) * std::sin(radius);
  // Uniform directions in the cone, each weighted by its solid angle over the disc's irradiance
  // share: 2 (1 - cos) / sin^2, which tends to 1 as the sun shrinks.
  out.sun_scale = radius > 0.0 ? static_cast<float>(2.0 * (1.0 - std::cos(radius)) / sin2) : 1.0f;
  out.sun_radiance = radius > 0.0 ? static_cast<float>(p.sun_intensity / sin2) : 0.0f;
  out.sun_intensity = p.sun_intensity;
  out.aperture = p.aperture;
  const Vec3 to_target = camera.resolved.target - camera.resolved.eye;
  out.focus_distance =
      p.focus_distance > 0.0f ? p.focus_distance : std::sqrt(dot(to_target, to_target));
  return out;
}

inline void render_path(BackendParts& parts, const Executor& exec, const FrameSetup& f,
                        const FrameTarget& target, const RenderSettings& settings,
                        const RenderOptions& options, FrameStats& stats) {
  const LightingParams lighting = make_lighting_params(settings.shading, f.scene);
  const PathParams path = make_path_params(settings, f.camera);
  const MaterialTable table = parts.lit.upload_materials(
      exec, detail::make_material_setup(settings, f.r.material_values()));
  const CameraFrame& cam = f.camera.frame;
  exec.mark(0);
  // The structures of a lit frame whose bounce rays need the grid; one sample per pixel for the
  // depth and ids that compositing reads.
  LightingParams one = lighting;
  one.side = 1;
  const LitStructures s =
      build_lit_structures(parts, exec, f, options, one,
                           {/*bounces=*/true, Executor::path_grid_cells, /*keep_tiles=*/true});
  exec.mark(1);
  const std::size_t pixels = std::size_t(cam.width) * std::size_t(cam.height);
  // The CPU's kernel compiled for AVX2, where the CPU has it: its grid walks test eight grains at
  // a time (SphereBatch8).
#if GRANRAY_AVX2_CODE
  const bool avx2 = Executor::gathers_nearby_spheres && avx2_kernels_on();
#else
  const bool avx2 = false;
#endif
  const int batch = std::max(1, std::min(path.samples, std::max(1, path.samples / 16)));
  // The level lists serve every batch of the still, and are given back after it, or when it fails.
  struct GiveBackPathLists {
    LitPipeline& lit;
    ~GiveBackPathLists() { lit.release_path_lists(); }
  } give_back_lists{parts.lit};
  const auto trace = [&](const auto& scene, const auto& occluder, const auto& camera_tracer) {
    for (int first = 0; first < path.samples; first += batch) {
      const int count = std::min(batch, path.samples - first);
      parts.lit.trace_paths(exec, scene, occluder, camera_tracer, cam, target.shading, path,
                            lighting.wall_offset, first, count, pixels, avx2);
      if (options.path_progress) {
        exec.synchronize();
        options.path_progress(first + count, path.samples);
      }
    }
  };
  // Under a point sun every shadow ray of the still has the light's direction, so the shadow
  // rays read the light's columns, as a lit frame's do (light_columns.h). Their walks took a
  // fifteenth of the still on the CPU, a third of the pour's on the H200 (docs/benchmarks-log.md).
  LightColumnsView columns{};
  if (s.layout && path.cos_sun >= 1.0f && path.sun_intensity > 0.0f &&
      target.shading.light.parallel()) {
    columns = light_columns_along(parts, exec, *s.layout, target.shading.light.direction,
                                  std::uint64_t(pixels) * std::uint64_t(path.samples));
  }
  with_bounce_scene(
      parts, f, s, options, target, table, true,
      [&](const auto& scene, const auto& occluder) {
        // A pinhole camera's rays start where grains may first show: at their pixels' near
        // bounds where the grid has clearance and the backend takes them for the still
        // (most_share_with_path_near_bounds) and the tiles were not asked for, else through the
        // screen tiles where they are the primary method (the CPU's: a sixth of the still went
        // to the walks from the eye; docs/benchmarks-log.md).
        if (!(path.aperture > 0.0f)) {
          if constexpr (Executor::most_share_with_path_near_bounds.has_value()) {
            if (s.layout && options.method != RenderMethod::tiles &&
                parts.grid.with_near_bound_tracer(
                    exec, *s.layout, f.id_of, f.r, cam, avx2, [&](auto tracer) {
                      trace(scene, occluder, CameraRays<decltype(tracer)>{tracer});
                    })) {
              return;
            }
          }
          if constexpr (Executor::fastest_method == RenderMethod::tiles) {
            if (s.lists) {
              trace(scene, occluder, CameraRays<TileTracer>{TileTracer{s.lists->view, f.id_of}});
              return;
            }
          }
        }
        trace(scene, occluder, NoCameraTracer{});
      },
      &columns, avx2);
  exec.mark(2);
  stats.light_column_entries = columns.entry_count;
  stats.path_parts_retried = parts.lit.path_parts_retried();
  parts.lit.finish_paths(exec, cam, path.samples, target.rgb);
  if (target.depth != nullptr) {
    cast_surfaces(parts, exec, f, s, options, target.color, one);
    parts.lit.first_sample_hits(exec, cam, one, target.depth, target.hit_id);
  }
  exec.mark(3);
  exec.synchronize();
  record_structures(s, stats);
  stats.grid_ms = exec.elapsed_ms(0, 1);
  stats.primary_ms = exec.elapsed_ms(1, 2);
  stats.render_ms = exec.elapsed_ms(1, 3);
}

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
