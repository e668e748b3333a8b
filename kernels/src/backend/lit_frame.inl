// A lit frame (contract 2a) from the backend's parts: which structures it builds and its three
// passes (across ranks: lit_across_ranks.inl). The kernels are in kernels/lit_passes.h, the buffers
// in lit_pipeline.inl.
#pragma once

#include "backend_parts.inl"
#include "backend_prelude.inl"
#include "env_switches.h"
#include "frame_setup.inl"
#include "granray/kernels/lit_passes.h"
#include "granray/kernels/materials.h"
#include "granray/kernels/pixel_kernels.h"
#include "grid_layout.h"
#include "lit_pipeline.inl"
#include "material_setup.h"
#include "screen_tile_lists.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The structures of a lit frame: the primary method's, and the grid for secondary rays (the
// brute-force reference tests every sphere for those too).
struct LitStructures {
  RenderMethod method;
  std::optional<TileLists> lists;
  std::optional<detail::GridLayout> layout;
};

// What a lit frame asks of its structures besides its lighting.
struct LitStructureNeeds {
  bool bounces = false;  // rays that bounce (materials, the path still) walk the grid
  GridCells cells = GridCells::centres;  // how the grid lists the grains (grid_layout.h)
  // The automatic method stays the backend's fastest (primary_method): the path still's camera
  // rays (unless they start at their near bounds) and the frames across ranks, whose grid walks
  // start at the eye.
  bool keep_tiles = false;
};

// How the grids of rays that bounce size their cells: as the backend says
// (Executor::bounce_cell_sizing), or as GRANRAY_BOUNCE_CELLS asks for the benchmarks and tests:
// `box`, `frames` (as the frames' grids) or `fine` (detail::CellSizing). No pixel depends on it.
inline detail::CellSizing bounce_cell_sizing() {
  constexpr detail::CellSizing sizings[] = {
      Executor::bounce_cell_sizing, detail::CellSizing::by_box,
      detail::CellSizing::by_occupied_volume, detail::CellSizing::finely_by_occupied_volume};
  return sizings[detail::env_word("GRANRAY_BOUNCE_CELLS", {"backend", "box", "frames", "fine"}, 0)];
}

// The primary method's structure, and the grid for secondary and bounce rays when the frame has
// any and the method is not brute force. One grid serves both when the method is the grid.
inline LitStructures build_lit_structures(BackendParts& parts, const Executor& exec,
                                          const FrameSetup& f, const RenderOptions& options,
                                          const LightingParams& lighting,
                                          const LitStructureNeeds& needs) {
  const bool bounces = needs.bounces;
  const PrimaryMethod primary = primary_method(parts, exec, f, options, needs.keep_tiles);
  LitStructures s{primary.method, std::nullopt, std::nullopt};
  if (s.method == RenderMethod::tiles) {
    s.lists = parts.tiles.build(
        exec, f.r, f.camera.frame,
        tile_entry_cap(options, f.camera.frame.width * std::uint64_t(f.camera.frame.height)));
    if (!s.lists) s.method = RenderMethod::grid;
  }
  const bool grid_for_surfaces = s.method == RenderMethod::grid;
  // Bounce rays (contract 2e) start anywhere: they walk the grid, like secondary rays.
  const bool grid_for_blockers =
      (has_secondary_rays(lighting) || bounces) && s.method != RenderMethod::brute_force;
  if (grid_for_surfaces || grid_for_blockers) {
    s.layout =
        parts.grid.build(exec, f.r, f.bounds, options.same_particles, needs.cells,
                         bounces ? bounce_cell_sizing() : detail::CellSizing::by_occupied_volume,
                         primary.occupied_share);
  }
  return s;
}

inline void cast_surfaces(BackendParts& parts, const Executor& exec, const FrameSetup& f,
                          const LitStructures& s, const RenderOptions& options,
                          const ColorSource& color, const LightingParams& lighting,
                          const MaterialTable* materials = nullptr) {
  const CameraFrame& cam = f.camera.frame;
  parts.walls.with_opaque(options, [&](auto walls) {
    if (s.method == RenderMethod::tiles) {
      parts.lit.find_surfaces(exec, TileTracer{s.lists->view, f.id_of}, walls, cam, color,
                              f.r.spheres, lighting, materials);
    } else if (s.method == RenderMethod::grid) {
      parts.grid.with_tracer(exec, *s.layout, f.id_of, f.r, cam, [&](auto tracer) {
        parts.lit.find_surfaces(exec, tracer, walls, cam, color, f.r.spheres, lighting, materials);
      });
    } else {
      parts.lit.find_surfaces(exec, BruteForceTracer{f.r.spheres, f.r.count, f.id_of}, walls, cam,
                              color, f.r.spheres, lighting, materials);
    }
  });
}

// `use(occluder)` with the frame's occluder for secondary rays: `spheres`, with the opaque walls
// when the frame has any.
template <class Occluder, class Use>
inline void with_wall_occluder(BackendParts& parts, const RenderOptions& options,
                               const Occluder& spheres, Use&& use) {
  parts.walls.with_opaque(options, [&](auto walls) {
    if constexpr (decltype(walls)::present) {
      use(WithWalls<Occluder>{spheres, walls});
    } else {
      use(spheres);
    }
  });
}

template <class Occluder, class Forward>
inline void find_blockers_with_walls(BackendParts& parts, const Executor& exec, const FrameSetup& f,
                                     const RenderOptions& options, const Occluder& spheres,
                                     const ShadingParams& shading, const LightingParams& lighting,
                                     const Forward& forward) {
  with_wall_occluder(parts, options, spheres, [&](const auto& occluder) {
    parts.lit.find_blockers(exec, occluder, f.camera.frame, shading, lighting, forward);
  });
}

// Pass 2; `forward` after each visible sample's bits (across ranks: ForwardTargets). Returns the
// entries of the columns along the light its shadow rays read (0: they walked).
template <class Forward = NoForward>
inline std::uint64_t cast_blockers(BackendParts& parts, const Executor& exec, const FrameSetup& f,
                                   const LitStructures& s, const RenderOptions& options,
                                   const ShadingParams& shading, const LightingParams& lighting,
                                   const Forward& forward = {}) {
  if (s.layout) {
    // The shadow rays read columns along the light (light_columns.h), built once for the grid:
    // a band of the whole width (a poster's, or a gathered frame's across ranks) weighs the build
    // against the whole image's rays, since the frame's later bands reuse them.
    const GridView grid = parts.grid.view(*s.layout);
    LightColumnsView columns{};
    if (lighting.shadows && shading.light.parallel()) {
      const CameraFrame& c = f.camera.frame;
      const std::uint64_t rays = c.width == c.full_width
                                     ? std::uint64_t(c.full_width) * std::uint64_t(c.full_height) *
                                           std::uint64_t(lighting.side * lighting.side)
                                     : lit_sample_count(c, lighting);
      columns = light_columns_along(parts, exec, *s.layout, shading.light.direction, rays);
    }
    if constexpr (Executor::gathers_nearby_spheres) {
      find_blockers_with_walls(parts, exec, f, options,
                               NearbySphereOccluder{{grid, f.id_of}, columns}, shading, lighting,
                               forward);
    } else {
      find_blockers_with_walls(parts, exec, f, options, ColumnOccluder{{grid, f.id_of}, columns},
                               shading, lighting, forward);
    }
    return columns.entry_count;
  } else {  // brute force, or no secondary rays (then no occluder is asked)
    find_blockers_with_walls(parts, exec, f, options,
                             BruteForceOccluder{f.r.spheres, f.r.count, f.id_of}, shading, lighting,
                             forward);
    return 0;
  }
}

// The scene that bounce rays (contract 2e) see, through the grid or, for the brute-force reference,
// against every sphere, with the walls a bounce ray meets, and its occluder for their hits'
// secondary rays: `trace(scene, occluder)`. With `camera_walls` the scene's primary rays (a
// path's camera ray) meet the walls the camera shows (WallScene::with_bounce_walls). With
// `columns` built, shadow rays along the light read them instead of walking;
// `eight_wide` for a kernel that runs as Avx2Kernel (NearestListedHit).
template <class Trace>
void with_bounce_scene(BackendParts& parts, const FrameSetup& f, const LitStructures& s,
                       const RenderOptions& options, const FrameTarget& target,
                       const MaterialTable& table, bool camera_walls, Trace&& trace,
                       const LightColumnsView* columns = nullptr, bool eight_wide = false) {
  const auto trace_with = [&](const auto& tracer, const auto& spheres_occluder) {
    parts.walls.with_bounce_walls(options, [&](auto walls) {
      using Scene = BounceScene<std::decay_t<decltype(tracer)>, decltype(walls)>;
      auto primary = walls;
      if constexpr (decltype(walls)::present) {
        if (camera_walls) primary.opaque = parts.walls.shown_opaque();
      }
      const Scene scene{tracer, walls, target.color, f.r.spheres, table, primary};
      with_wall_occluder(parts, options, spheres_occluder,
                         [&](const auto& occluder) { trace(scene, occluder); });
    });
  };
  if (s.layout) {
    const GridView grid = parts.grid.view(*s.layout);
    if constexpr (Executor::gathers_nearby_spheres) {
      if (columns != nullptr && columns->entries != nullptr) {
        trace_with(GridTracer{grid, f.id_of, eight_wide},
                   NearbySphereOccluder{{grid, f.id_of}, *columns});
        return;
      }
      trace_with(GridTracer{grid, f.id_of, eight_wide}, GridOccluder{grid, f.id_of});
    } else {
      // One occluder type whether or not the frame has columns: one kernel to compile.
      trace_with(
          GridTracer{grid, f.id_of, eight_wide},
          ColumnOccluder{{grid, f.id_of}, columns != nullptr ? *columns : LightColumnsView{}});
    }
  } else {
    trace_with(BruteForceTracer{f.r.spheres, f.r.count, f.id_of},
               BruteForceOccluder{f.r.spheres, f.r.count, f.id_of});
  }
}

// The bounce pass (contract 2e): bounce rays and their hits' secondary rays.
inline void cast_bounces(BackendParts& parts, const Executor& exec, const FrameSetup& f,
                         const LitStructures& s, const RenderOptions& options,
                         const FrameTarget& target, const LightingParams& lighting,
                         const MaterialTable& table) {
  const CameraFrame& cam = f.camera.frame;
  with_bounce_scene(parts, f, s, options, target, table, false,
                    [&](const auto& scene, const auto& occluder) {
                      parts.lit.trace_bounces(exec, scene, occluder, cam, target.shading, lighting,
                                              options.count_rays);
                    });
}

inline void record_structures(const LitStructures& s, FrameStats& stats) {
  stats.method = s.method;
  if (s.lists) {
    stats.cells = s.lists->view.tiles.columns * std::uint64_t(s.lists->view.tiles.rows);
    stats.grid_references = s.lists->entries;
  } else if (s.layout) {
    stats.cells = s.layout->cells;
    stats.grid_references = s.layout->references;
  }
}

// contract 2a on one rank: the samples' surfaces, their blocked secondary rays, then shading, all
// in this backend's memory.
inline void render_lit(BackendParts& parts, const Executor& exec, const FrameSetup& f,
                       const FrameTarget& target, const RenderSettings& settings,
                       const RenderOptions& options, FrameStats& stats) {
  const LightingParams lighting = make_lighting_params(settings.shading, f.scene);
  std::optional<MaterialTable> materials;
  if (materials_on(settings)) {
    materials = parts.lit.upload_materials(
        exec, detail::make_material_setup(settings, f.r.material_values()));
  }
  exec.mark(0);
  const LitStructures s =
      build_lit_structures(parts, exec, f, options, lighting, {materials.has_value()});
  exec.mark(1);
  cast_surfaces(parts, exec, f, s, options, target.color, lighting,
                materials ? &*materials : nullptr);
  exec.mark(2);
  if (has_secondary_rays(lighting))
    stats.light_column_entries =
        cast_blockers(parts, exec, f, s, options, target.shading, lighting);
  exec.mark(3);
  if (materials) cast_bounces(parts, exec, f, s, options, target, lighting, *materials);
  exec.mark(4);
  parts.walls.with_see_through(options, [&](auto walls) {
    parts.lit.shade(exec, f.camera.frame, target.shading, lighting, has_secondary_rays(lighting),
                    walls, target.rgb, target.depth, target.hit_id);
  });
  exec.mark(5);
  exec.synchronize();
  record_structures(s, stats);
  stats.grid_ms = exec.elapsed_ms(0, 1);
  stats.primary_ms = exec.elapsed_ms(1, 2);
  stats.secondary_ms = exec.elapsed_ms(2, 3);
  stats.bounce_ms = exec.elapsed_ms(3, 4);
  stats.render_ms = exec.elapsed_ms(1, 5);
  if (options.count_rays) {
    const std::uint64_t visible =
        parts.lit.visible_samples(exec, lit_sample_count(f.camera.frame, lighting));
    stats.secondary_rays =
        visible * static_cast<std::uint64_t>((lighting.shadows ? 1 : 0) + lighting.ao_samples);
    if (materials) stats.bounce_rays = parts.lit.bounce_rays(exec, f.camera.frame);
  }
}

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
