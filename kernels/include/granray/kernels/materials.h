// Metal and glass (contract 2e): mirror reflection and refraction through a glass grain, traced
// iteratively on both backends. A sample whose surface is metal or glass gets, in the bounce pass,
// its mix: what its 2a colour L keeps and what its bounce rays add, so that the shading pass
// shows clamp(keep L + add). A bounce ray's own hit is lit by the 2a model (its shadow and
// occlusion rays traced here), and may bounce again until `bounces` run out: the rays wait on a
// stack of at most kMaxBounce frames per sample instead of recursion, which CUDA lacks.
#pragma once

#include <cstdint>

#include "granray/kernels/lighting.h"
#include "granray/kernels/lit_passes.h"
#include "granray/kernels/material_scatter.h"
#include "granray/kernels/material_table.h"
#include "granray/kernels/occlusion.h"
#include "granray/kernels/trace.h"
#include "granray/kernels/walls.h"

namespace granray {

// A surface a ray meets: a sphere, or a wall's normal turned to the ray with radius 0 (as in
// SurfaceSample), with its base colour, id and material slot.
struct BounceHit {
  SurfaceSample surface;
  std::uint8_t slot;
};

// The nearest surface along a bounce ray, through any tracer that takes any ray (the grid or
// every sphere), and the opaque walls.
// `walls` for bounce rays (every opaque triangle of either facing) and `primary_walls` for a
// path's camera ray (the ones the camera shows: contract 2b's faces = "back" hides a container's
// near side from primary rays only).
template <class Tracer, class Walls>
struct BounceScene {
  Tracer trace;
  Walls walls;
  ColorSource color;
  const Vec4* spheres;
  MaterialTable table;
  Walls primary_walls;

  // `from`: the id of the surface the ray leaves. A ray that leaves a wall's triangle skips it:
  // every ray a surface sends leaves the triangle's plane, yet in float a hit point far from the
  // origin lies up to 1e-6 of its coordinates off the plane, more than the offset it leaves by,
  // and the mirror floor seen from afar reflected itself a second time.
  GRANRAY_HD BounceHit nearest(const Ray& ray, bool primary = false,
                               std::uint64_t from = kSkipNothing) const {
    return nearest_from(trace(ray, 0, 0), ray, primary, from);
  }

  // The same, given the grains' nearest hit along the ray from any exact tracer (the screen
  // tiles for a camera ray).
  GRANRAY_HD BounceHit nearest_from(const Hit& hit, const Ray& ray, bool primary,
                                    std::uint64_t from = kSkipNothing) const {
    BounceHit out{background_sample(), kMatteSlot};
    if (hit.index != kNoHit) {
      const Vec4 sphere = spheres[hit.index];
      out = {{sphere, color(hit.index), hit.t, hit.id}, table.grains.slot(hit.index, sphere)};
    }
    if constexpr (Walls::present) {
      const WallView& w = primary ? primary_walls : walls;
      const WallHit wall = nearest_wall(w, ray, hit.t, from);
      if (wall.any()) {
        out.surface = wall_hit_sample(w, wall, ray);
        out.slot = wall_hit_material(w, wall);
      }
    }
    return out;
  }
};

// The 2a colour of a bounce ray's hit, its shadow and occlusion rays traced now. Its occlusion
// directions are those of sample `s + kMostSamplesPerPixel * bounce` of the pixel: a function of
// (pixel, sample, bounce, ray index), as contract 2e asks.
template <class Occluder>
GRANRAY_HD_INLINE Vec3 bounce_light(const Occluder& occluded, const CameraFrame& camera,
                                    const ShadingParams& shading, const LightingParams& lighting,
                                    int i, int j, int s, int bounce, const Ray& ray,
                                    const SurfaceSample& surface) {
  std::uint32_t words[kMostMaskWords];
  for (int w = 0; w < lighting.mask_words; ++w) words[w] = 0u;
  const ShadingPoint p = shading_point(ray, surface.t, surface.sphere, lighting.wall_offset);
  if (has_secondary_rays(lighting)) {
    find_blockers_at(occluded, camera, shading, lighting, i, j, s + kMostSamplesPerPixel * bounce,
                     surface.id, ray, p, words);
  }
  return surface_light(surface, has_secondary_rays(lighting) ? words : nullptr, ray, shading,
                       lighting);
}

// A pending metal or glass surface: what it has gathered, and which of its rays comes next.
struct BounceFrame {
  MaterialSplit split;
  Vec3 sum;
  int next;            // the ray whose colour is awaited
  int bounces;         // b of the surface: its rays see b - 1
  std::uint64_t from;  // the surface's id (its rays skip it: BounceScene::nearest)
};

// contract 2e's T for the rays of a primary sample's metal or glass surface (material `m`, seen
// along `primary`), `bounces` > 0 deep: the mix {add, keep} that the shading pass applies to the
// sample's own colour. Depth first, in the order of the recursive definition, so that every
// path adds the same numbers in the same order.
template <class Scene, class Occluder>
GRANRAY_HD_INLINE Vec4 bounce_mix(const Scene& scene, const Occluder& occluded,
                                  const CameraFrame& camera, const ShadingParams& shading,
                                  const LightingParams& lighting, int i, int j, int s,
                                  const Ray& primary, const SurfaceSample& surface,
                                  const MaterialParams& m, std::uint32_t& rays) {
  BounceFrame stack[kMaxBounce];
  int top = 0;
  stack[top++] = {split_at(m, primary, surface, lighting.wall_offset),
                  {0.0f, 0.0f, 0.0f},
                  0,
                  scene.table.bounces,
                  surface.id};
  Ray ray = stack[0].split.ray[0];
  std::uint64_t from = surface.id;
  int bounces = scene.table.bounces - 1;
  for (;;) {
    // The colour `ray` sees with `bounces` left, unless its surface bounces again.
    Vec3 value = shading.background;
    const BounceHit hit = scene.nearest(ray, false, from);
    ++rays;
    if (hit.surface.t < INFINITY) {
      rays += static_cast<std::uint32_t>((lighting.shadows ? 1 : 0) + lighting.ao_samples);
      const int depth = scene.table.bounces - bounces;
      const Vec3 light =
          bounce_light(occluded, camera, shading, lighting, i, j, s, depth, ray, hit.surface);
      value = light;
      if (hit.slot != kMatteSlot && bounces > 0) {
        const MaterialParams& hm = scene.table.params[hit.slot];
        if (hm.kind != MaterialType::matte) {
          const MaterialSplit split = split_at(hm, ray, hit.surface, lighting.wall_offset);
          stack[top++] = {split, light * split.keep, 0, bounces, hit.surface.id};
          ray = split.ray[0];
          from = hit.surface.id;
          bounces -= 1;
          continue;
        }
      }
    }
    // Hand the colour up to the surfaces waiting for it.
    for (;;) {
      BounceFrame& f = stack[top - 1];
      f.sum = f.sum + f.split.weight[f.next] * value;
      if (++f.next < f.split.rays) {
        ray = f.split.ray[f.next];
        from = f.from;
        bounces = f.bounces - 1;
        break;
      }
      if (top == 1) return {f.sum.x, f.sum.y, f.sum.z, f.split.keep};
      value = clamp01(f.sum);
      --top;
    }
  }
}

// The bounce pass: each sample's mix, {0, 0, 0, 1} (keep its colour as it is) for matte
// surfaces and the background.
template <class Scene, class Occluder>
struct TraceBounces {
  Scene scene;
  Occluder occluded;
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const SurfaceSample* surfaces;
  const std::uint8_t* slots;  // per sample
  Vec4* mixes;                // per sample
  std::uint32_t* ray_counts;  // per pixel, when counted: bounce rays and their secondary rays

  GRANRAY_HD void operator()(int i, int j) const {
    const int samples = lighting.side * lighting.side;
    const std::size_t first = first_sample_of(camera, i, j, samples);
    std::uint32_t rays = 0;
    for (int s = 0; s < samples; ++s) {
      const std::size_t k = first + static_cast<std::size_t>(s);
      Vec4 mix = {0.0f, 0.0f, 0.0f, 1.0f};
      const std::uint8_t slot = slots[k];
      if (slot != kMatteSlot && surfaces[k].t < INFINITY) {
        const MaterialParams& m = scene.table.params[slot];
        if (m.kind != MaterialType::matte) {
          const Ray primary = pixel_sample_ray(camera, i, j, s, lighting.side);
          mix = bounce_mix(scene, occluded, camera, shading, lighting, i, j, s, primary,
                           surfaces[k], m, rays);
        }
      }
      mixes[k] = mix;
    }
    if (ray_counts != nullptr) {
      ray_counts[static_cast<std::size_t>(j) * static_cast<std::size_t>(camera.width) +
                 static_cast<std::size_t>(i)] = rays;
    }
  }
};

}  // namespace granray
