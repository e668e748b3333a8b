// An unlit frame (contract 2): one primary ray per pixel through the frame's primary structure,
// shaded where it hits.
#pragma once

#include "backend_parts.inl"
#include "backend_prelude.inl"
#include "frame_buffers.inl"
#include "frame_setup.inl"
#include "granray/kernels/pixel_kernels.h"
#include "grid_layout.h"
#include "particle_residency.inl"
#include "screen_tile_lists.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

inline void cast_unlit(BackendParts& parts, const Executor& exec, const FrameSetup& f,
                       const FrameTarget& target, const RenderSettings& settings,
                       const RenderOptions& options, FrameStats& stats) {
  const ResidentParticles& r = f.r;
  const SceneBounds& bounds = f.bounds;
  const CameraSetup& camera = f.camera;
  const IdMap& id_of = f.id_of;
  const std::uint64_t pixel_count = image_pixels(settings);
  // Stage times from the executor's marks: CUDA events on the GPU, the clock on the CPU.
  exec.mark(0);
  const PrimaryMethod primary = primary_method(parts, exec, f, options);
  RenderMethod method = primary.method;
  if (method == RenderMethod::tiles) {
    const std::uint64_t most = tile_entry_cap(options, pixel_count);
    const std::optional<TileLists> lists = parts.tiles.build(exec, r, camera.frame, most);
    if (lists) {
      exec.mark(1);
      stats.cells = screen_tile_count(camera.frame);
      stats.grid_references = lists->entries;
      parts.walls.with_all(options, [&](auto walls) {
        exec.for_each_pixel(
            window_width(settings), window_height(settings),
            RenderPixel<TileTracer, decltype(walls)>{{lists->view, id_of}, target, walls});
      });
    } else {
      method = RenderMethod::grid;
    }
  }
  if (method == RenderMethod::grid) {
    const detail::GridLayout layout =
        parts.grid.build(exec, r, bounds, options.same_particles, GridCells::centres,
                         detail::CellSizing::by_occupied_volume, primary.occupied_share);
    exec.mark(1);
    stats.cells = layout.cells;
    stats.grid_references = layout.references;
    parts.grid.with_tracer(exec, layout, id_of, r, camera.frame, [&](auto tracer) {
      parts.walls.with_all(options, [&](auto walls) {
        exec.for_each_pixel(window_width(settings), window_height(settings),
                            RenderPixel<decltype(tracer), decltype(walls)>{tracer, target, walls});
      });
    });
  } else if (method == RenderMethod::brute_force) {
    exec.mark(1);
    parts.walls.with_all(options, [&](auto walls) {
      exec.for_each_pixel(window_width(settings), window_height(settings),
                          RenderPixel<BruteForceTracer, decltype(walls)>{
                              {r.spheres, r.count, id_of}, target, walls});
    });
  }
  stats.method = method;
  exec.mark(2);
  exec.synchronize();
  stats.grid_ms = exec.elapsed_ms(0, 1);
  stats.render_ms = exec.elapsed_ms(1, 2);
  stats.primary_ms = stats.render_ms;
}

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
