#pragma once

#include "granray/kernels/camera_frame.h"
#include "granray/kernels/lighting.h"
#include "granray/kernels/near_bounds.h"
#include "granray/kernels/screen_tiles.h"
#include "granray/kernels/see_through.h"
#include "granray/kernels/shading.h"
#include "granray/kernels/trace.h"
#include "granray/kernels/walls.h"

namespace granray {

// A tracer gives pixel (i, j)'s nearest hit along its ray, and may say beforehand that the pixel
// shows nothing, which spares the ray.
// How a grid's tracer walks: by the grid's clearance wherever it has one (`any`), over every cell
// (`plain`: the GPU's primary rays of grids without clearance, so that their kernel keeps the
// plain loop's registers: with both loops in it the dense box cast 2 % slower on an H200), or
// leaping over empty space (`leaping`: the GPU's primary rays of grids with clearance, in a
// kernel of its own with more registers).
enum class GridWalk { any, plain, leaping };
template <GridWalk Walk>
struct GridWalkTracer {
  GridView grid;
  IdMap id_of;
  bool eight_wide = false;  // NearestListedHit's: only where the kernel runs as Avx2Kernel
  GRANRAY_HD bool may_hit(int, int) const { return true; }
  GRANRAY_HD Hit operator()(const Ray& ray, int, int) const { return from(ray, 0.0f); }
  // The nearest hit at or beyond t_min (nothing nearer may be met: NearBoundTracer).
  GRANRAY_HD Hit from(const Ray& ray, float t_min) const {
    if constexpr (Walk == GridWalk::leaping) return trace_grid_leaping(grid, id_of, ray, t_min);
    if constexpr (Walk == GridWalk::plain)
      return trace_grid_plain(grid, id_of, ray, eight_wide, t_min);
    return trace_grid(grid, id_of, ray, eight_wide, t_min);
  }
};
using GridTracer = GridWalkTracer<GridWalk::any>;
using PlainGridTracer = GridWalkTracer<GridWalk::plain>;
using LeapingGridTracer = GridWalkTracer<GridWalk::leaping>;

// Primary rays through a grid that leaves much of its box empty: each walk starts at its pixel
// block's near bound (near_bounds.h) instead of at the eye, and a block that no grain covers
// casts no ray at the grains. For primary rays only, which leave the eye through their pixel.
template <GridWalk Walk>
struct NearBoundTracer {
  GridWalkTracer<Walk> walk;
  NearBoundsView near;
  GRANRAY_HD bool may_hit(int i, int j) const { return near.at(i, j) < INFINITY; }
  GRANRAY_HD Hit operator()(const Ray& ray, int i, int j) const {
    return walk.from(ray, near.at(i, j));
  }
};

struct BruteForceTracer {
  const Vec4* spheres;
  std::uint32_t count;
  IdMap id_of;
  GRANRAY_HD bool may_hit(int, int) const { return true; }
  GRANRAY_HD Hit operator()(const Ray& ray, int, int) const {
    return trace_all(spheres, count, id_of, ray);
  }
};

struct TileTracer {
  TileListsView lists;
  IdMap id_of;
  GRANRAY_HD bool may_hit(int i, int j) const {
    const std::uint32_t tile = tile_of_pixel(lists.tiles, i, j);
    return lists.offsets[tile] != lists.offsets[tile + 1];
  }
  GRANRAY_HD Hit operator()(const Ray& ray, int i, int j) const {
    return trace_tile(lists, id_of, ray, i, j);
  }
};

// Everything a pixel needs besides the acceleration structure.
struct FrameTarget {
  CameraFrame camera;
  ShadingParams shading;
  ColorSource color;
  const Vec4* spheres;  // the frame's particles, indexed by Hit::index
  Rgb8* rgb;
  float* depth;           // optional: hit distance, +inf for the background
  std::uint64_t* hit_id;  // optional: global id of the visible particle, ~0 for the background
};

// The unlit colour of a wall hit's surface: a triangle's by its normal, a capsule's as its hit
// sphere's (with the outline a grain has).
GRANRAY_HD_INLINE Vec3 unlit_color(const Ray& ray, const SurfaceSample& surface,
                                   const ShadingParams& shading) {
  if (shows_wall(surface.sphere)) {
    return normal_color(center_of(surface.sphere), surface.base, ray.origin + ray.dir * surface.t,
                        shading);
  }
  return hit_color(ray, surface.t, surface.sphere, surface.base, shading);
}

// One primary ray per pixel; identical for every tracer, so paths differ only in visibility.
// With walls (Walls = WallView), the nearest wall nearer than the sphere hit shows instead.
template <class Tracer, class Walls = NoWalls>
struct RenderPixel {
  Tracer trace;
  FrameTarget target;
  Walls walls;

  // Pixel (i, j): column i of row j.
  GRANRAY_HD void operator()(int i, int j) const {
    const std::uint32_t pixel =
        static_cast<std::uint32_t>(j) * static_cast<std::uint32_t>(target.camera.width) +
        static_cast<std::uint32_t>(i);
    Hit hit = no_hit();
    const bool may_hit = trace.may_hit(i, j);
    SeeThroughCandidates glass{0u, 0u, false};
    if constexpr (Walls::present) glass = see_through_candidates(walls, i, j);
    if (may_hit || glass.any() || has_opaque_walls()) {
      const Ray ray = primary_ray(target.camera, i, j);
      if (may_hit) hit = trace(ray, i, j);
      if constexpr (Walls::present) {
        const WallHit wall = nearest_wall(walls, ray, hit.t);
        if (glass.any()) {
          see_through_pixel(ray, hit, wall, glass, pixel);
          return;
        }
        if (wall.any()) {
          const SurfaceSample surface = wall_hit_sample(walls, wall, ray);
          target.rgb[pixel] = to_rgb8(unlit_color(ray, surface, target.shading));
          if (target.depth != nullptr) target.depth[pixel] = wall.t;
          if (target.hit_id != nullptr) target.hit_id[pixel] = surface.id;
          return;
        }
      }
      if (hit.index != kNoHit) {
        target.rgb[pixel] = shade_hit(ray, hit.t, target.spheres[hit.index],
                                      target.color(hit.index), target.shading);
      }
    }
    if (hit.index == kNoHit) target.rgb[pixel] = to_rgb8(target.shading.background);
    if (target.depth != nullptr) target.depth[pixel] = hit.t;
    if (target.hit_id != nullptr) target.hit_id[pixel] = hit.id;
  }

  // Opaque walls and capsules may show in any pixel: they are not binned into screen tiles.
  GRANRAY_HD bool has_opaque_walls() const {
    if constexpr (Walls::present) {
      return walls.any_opaque();
    } else {
      return false;
    }
  }

  // contract 2d: the opaque surface's colour under the see-through walls in front of it. Depth and
  // id stay the opaque surface's: see-through walls hide nothing, so ranks composite as before.
  GRANRAY_HD void see_through_pixel(const Ray& ray, const Hit& hit, const WallHit& wall,
                                    SeeThroughCandidates glass, std::uint32_t pixel) const {
    Vec3 behind = target.shading.background;
    float t = hit.t;
    std::uint64_t id = hit.id;
    if (wall.any()) {
      const SurfaceSample surface = wall_hit_sample(walls, wall, ray);
      t = wall.t;
      id = surface.id;
      behind = unlit_color(ray, surface, target.shading);
    } else if (hit.index != kNoHit) {
      behind =
          hit_color(ray, hit.t, target.spheres[hit.index], target.color(hit.index), target.shading);
    }
    // Unlit: a layer is lit as a wall is here, without a highlight.
    target.rgb[pixel] = to_rgb8(
        composite_see_through(walls, ray, glass, t, behind, target.shading, LightingParams{}));
    if (target.depth != nullptr) target.depth[pixel] = t;
    if (target.hit_id != nullptr) target.hit_id[pixel] = id;
  }
};

}  // namespace granray
