// What every frame works out before casting, from the backend's parts (backend_parts.inl).
#pragma once

#include "backend_parts.inl"
#include "backend_prelude.inl"
#include "contact_scene.inl"
#include "frame_buffers.inl"
#include "particle_residency.inl"
#include "wall_scene.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The particles in this backend's memory, their box, the camera (framed by every rank's box when
// given, and the walls) and the scene the lighting sees. Clip planes (contract 2c) leave `all` and
// the camera alone: the structures and rays read `r`, where the grains beyond a plane are
// unrenderable.
struct FrameSetup {
  ResidentParticles all;
  SceneBounds all_bounds;  // these particles': the census and the colour range count them all
  ResidentParticles r;     // the particles drawn
  SceneBounds bounds;      // theirs
  SceneBounds scene;       // what frames the camera: every rank's particles or these, and walls
  CameraSetup camera;
  IdMap id_of;
  ContactCensus contacts;  // contract 2g
};

// Which grains hide the parts of the network inside them (GrainsHidingCapsules): none where the
// network is drawn alone, a selection may hide any grain, or pairs given whole may name spheres
// that are no grains (ContactView::ends_are_grains).
inline GrainsHidingCapsules grains_hiding_capsules(const RenderSettings& settings,
                                                   const ContactView& pairs, const WallScene& walls,
                                                   const CameraFrame& camera) {
  GrainsHidingCapsules hiding;
  hiding.on = settings.contacts && settings.contacts->grains && !settings.select &&
              (pairs.spheres == nullptr || pairs.ends_are_grains);
  hiding.planes = walls.planes();
  hiding.plane_count = walls.plane_count();
  hiding.eye = camera.eye;
  hiding.w = camera.w;
  hiding.orthographic = camera.orthographic;
  hiding.aperture = path_traced(settings) ? std::fabs(settings.path.aperture) : 0.0f;
  return hiding;
}

inline FrameSetup set_up_frame(BackendParts& parts, const Executor& exec, const ParticleView& view,
                               const RenderSettings& settings, const RenderOptions& options) {
  const std::uint64_t pixel_count = image_pixels(settings);
  if (pixel_count > std::numeric_limits<std::uint32_t>::max()) {
    throw ConfigError("granray: image " + std::to_string(window_width(settings)) + " x " +
                      std::to_string(window_height(settings)) +
                      " exceeds 2^32 - 1 pixels (render it in tiles: granray/tiled_render.h)");
  }
  WallScene& walls = parts.walls;
  walls.prepare(exec, settings);
  const ResidentParticles all = parts.particles.resident(exec, view, options.same_particles);
  const SceneBounds all_bounds = options.particle_bounds
                                     ? *options.particle_bounds
                                     : parts.particles.bounds(exec, all, options.same_particles);
  const SceneBounds scene =
      walls.scene_with_walls(options.camera_bounds ? *options.camera_bounds : all_bounds);
  ResidentParticles r = all;
  SceneBounds bounds = all_bounds;
  const float* select = all.select != nullptr ? all.select : all.scalar;
  if (settings.select && select == nullptr && all.count > 0) {
    throw ConfigError(
        "granray: [insitu.select] needs a value per particle to select by, and this frame's "
        "particles have none");
  }
  const CameraSetup camera = resolve_camera(settings, scene);
  // contract 2g: the network between every grain, clipped or selected away or not.
  ContactCensus contacts;
  walls.set_capsules(parts.contacts.build(
      exec, all, all_bounds, view, settings,
      grains_hiding_capsules(settings, view.contacts, walls, camera.frame),
      options.method == RenderMethod::brute_force, options.same_particles, contacts));
  if (settings.contacts && !settings.contacts->grains && all.count > 0) {
    // The network alone: no grain is drawn or casts anything; the camera still frames them.
    r = parts.particles.hide_all(exec, all);
    bounds = empty_bounds();  // none drawn
    bounds.skipped = all_bounds.skipped;
  } else if ((walls.plane_count() > 0 || settings.select) && all.count > 0) {
    r = parts.particles.hide(exec, all, walls.planes(), walls.plane_count(),
                             settings.select ? select : nullptr,
                             settings.select.value_or(SelectRange{-INFINITY, INFINITY}));
    bounds = reduce_bounds(exec, r);
    bounds.skipped = all_bounds.skipped;
  }
  walls.build_for(exec, camera.frame, make_shading_params(settings.shading, camera.frame, scene));
  return {all, all_bounds, r, bounds, scene, camera, IdMap{r.ids, view.id_offset}, contacts};
}

// contract 2g: what the frame's network came to, in its statistics.
inline void take_contact_stats(const ContactCensus& contacts, FrameStats& stats) {
  stats.contacts = contacts.drawn;
  stats.contacts_skipped = contacts.skipped;
  stats.contact_lo = contacts.lo;
  stats.contact_hi = contacts.hi;
  stats.contact_ms = contacts.ms;
}

// The statistics every frame reports of its setup and walls.
inline FrameStats setup_stats(const FrameSetup& f, const WallScene& walls) {
  FrameStats stats;
  stats.particles = f.r.count;
  stats.skipped = f.all_bounds.skipped;
  stats.hidden = f.all_bounds.renderable - f.bounds.renderable;
  stats.camera = f.camera.resolved;
  stats.wall_triangles = walls.total();
  stats.wall_ms = walls.build_ms();
  take_contact_stats(f.contacts, stats);
  return stats;
}

// The method a frame uses for its primary rays, before the tiles may fall back to the grid, and
// the grains' occupied share where choosing it took an estimate (for the grid's build).
struct PrimaryMethod {
  RenderMethod method;
  std::optional<double> occupied_share;
};

// Where the screen tiles are the backend's fastest method (the CPU's), a bed whose grid would
// start its primary rays at their near bounds takes the grid instead: on 2 cores the pour's frames
// were 1.4-1.75x faster so, the hopper's lit frame 1.3x, the heap's about the same; the dense
// box, the drum and the gases', whose grids have no clearance, slower (docs/benchmarks-log.md,
// "The CPU's method by the bed"). With `keep_tiles` the automatic method is the backend's
// fastest whatever the bed.
inline PrimaryMethod primary_method(BackendParts& parts, const Executor& exec, const FrameSetup& f,
                                    const RenderOptions& options, bool keep_tiles = false) {
  if (f.bounds.renderable == 0) return {RenderMethod::brute_force, {}};  // nothing to list
  if (options.method != RenderMethod::automatic) return {options.method, {}};
  if constexpr (Executor::fastest_method == RenderMethod::tiles) {
    if (!keep_tiles) {
      const auto estimate =
          parts.grid.estimate_near_bounds(exec, f.r, f.bounds, options.same_particles);
      return {estimate.casts_from_near_bounds ? RenderMethod::grid : RenderMethod::tiles,
              estimate.share};
    }
  }
  return {Executor::fastest_method, {}};
}

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
