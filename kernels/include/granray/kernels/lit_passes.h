// The three passes of a lit frame (contract 2a), each a pixel kernel for both backends. Sample s of
// pixel p is record p * samples + s in the surfaces and blocked-bit arrays.
#pragma once

#include "granray/kernels/lighting.h"
#include "granray/kernels/lit_queries.h"
#include "granray/kernels/material_table.h"
#include "granray/kernels/nearby_spheres.h"
#include "granray/kernels/occlusion.h"
#include "granray/kernels/pixel_kernels.h"
#include "granray/kernels/see_through.h"

namespace granray {

// contract 2e: the material slot of a wall hit's surface; capsules are matte (contract 2g).
GRANRAY_HD_INLINE std::uint8_t wall_hit_material(const WallView& w, const WallHit& hit) {
  if (hit.capsule != kNoHit || w.materials == nullptr) return kMatteSlot;
  return w.materials[wall_of(w.opaque.triangles[hit.slot])];
}

GRANRAY_HD_INLINE std::size_t first_sample_of(const CameraFrame& cam, int i, int j, int samples) {
  return (static_cast<std::size_t>(j) * static_cast<std::size_t>(cam.width) +
          static_cast<std::size_t>(i)) *
         static_cast<std::size_t>(samples);
}

// Pass 1: each sample's visible surface, by any tracer (its tile or cell list serves every
// sample of the pixel: a tile's footprints are padded by a pixel, wider than a sample's offset),
// and the walls' when they are nearer.
template <class Tracer, class Walls = NoWalls>
struct FindSurfaces {
  Tracer trace;
  CameraFrame camera;
  ColorSource color;
  const Vec4* spheres;
  int side;
  SurfaceSample* surfaces;
  Walls walls;
  // Across ranks by halo (lit_exchange.h): spheres from index `owned` on are other ranks' halo
  // copies, and only one rank keeps the walls' samples.
  std::uint32_t owned = kNoHit;
  bool keep_walls = true;
  // contract 2e: each sample's material slot (materials.h), when the frame has materials.
  GrainMaterials materials{};
  std::uint8_t* slots = nullptr;

  GRANRAY_HD void operator()(int i, int j) const {
    const int samples = side * side;
    SurfaceSample* out = surfaces + first_sample_of(camera, i, j, samples);
    const bool may_hit = trace.may_hit(i, j);
    for (int s = 0; s < samples; ++s) {
      SurfaceSample surface = background_sample();
      std::uint8_t slot = kMatteSlot;
      if (may_hit || Walls::present) {
        const Ray ray = pixel_sample_ray(camera, i, j, s, side);
        Hit hit = no_hit();
        if (may_hit) hit = trace(ray, i, j);
        // A grain of another rank (its halo copy, index owned and on) in front: its owner shows
        // the sample.
        if (hit.index != kNoHit && hit.index < owned) {
          surface = {spheres[hit.index], color(hit.index), hit.t, hit.id};
          if (slots != nullptr) slot = materials.slot(hit.index, surface.sphere);
        }
        if constexpr (Walls::present) {
          const WallHit wall = nearest_wall(walls, ray, hit.t);
          if (wall.any()) {
            surface = keep_walls ? wall_hit_sample(walls, wall, ray) : background_sample();
            slot = wall_hit_material(walls, wall);
          }
        }
      }
      out[s] = surface;
      if (slots != nullptr) slots[first_sample_of(camera, i, j, samples) + s] = slot;
    }
  }
};

// The blocked bits of the secondary rays from shading point p of sample s of pixel (i, j), seen
// along `primary`, into its zeroed words. The visible sphere itself never blocks its own rays
// (skipped by id). `pixel`: the spheres near the pixel's samples, for an occluder that gathers
// them.
template <class Occluder>
GRANRAY_HD_INLINE void find_blockers_at(const Occluder& occluded, const CameraFrame& camera,
                                        const ShadingParams& shading,
                                        const LightingParams& lighting, int i, int j, int s,
                                        std::uint64_t id, const Ray& primary, const ShadingPoint& p,
                                        std::uint32_t* words,
                                        const PixelNeighbours* pixel = nullptr) {
  const Ray shadow = shadow_ray(p, shading);
  if (shadow_matters(p, primary, shading, lighting) &&
      occluded(shadow, shading.light.reach(p.origin), skipped_id(id, p.normal, shadow.dir))) {
    set_mask_bit(words, 0);
  }
  // The whole image's pixel seeds the directions: a window casts what the whole would.
  if (lighting.ao_samples > 0) {
    if constexpr (Occluder::gathers_nearby) {
      occluded.ambient_near(p, i + camera.x0, j + camera.y0, s, lighting, id, words, pixel);
    } else {
      occluded.ambient(p, i + camera.x0, j + camera.y0, s, lighting, id, words);
    }
  }
}

// What pass 2 does after a sample's bits are final: nothing, or (across ranks, on the CPU) which
// other ranks must answer its open rays (ForwardTargets::sample in lit_exchange.h), where its
// primary ray and shading point are at hand.
struct NoForward {
  GRANRAY_HD void sample(std::size_t, const Ray&, const ShadingPoint&, const SurfaceSample&,
                         const std::uint32_t*) const {}
};

// Which of sample s of pixel (i, j)'s secondary rays this occluder's spheres block, into its
// blocked words; then `forward.sample` with its record index `record`.
template <class Occluder, class Forward = NoForward>
GRANRAY_HD_INLINE void find_sample_blockers(const Occluder& occluded, const CameraFrame& camera,
                                            const ShadingParams& shading,
                                            const LightingParams& lighting, int i, int j, int s,
                                            const SurfaceSample& surface, std::uint32_t* words,
                                            const Forward& forward = {}, std::size_t record = 0) {
  for (int w = 0; w < lighting.mask_words; ++w) words[w] = 0u;
  if (!(surface.t < INFINITY)) return;
  const Ray primary = pixel_sample_ray(camera, i, j, s, lighting.side);
  const ShadingPoint p = shading_point(primary, surface.t, surface.sphere, lighting.wall_offset);
  find_blockers_at(occluded, camera, shading, lighting, i, j, s, surface.id, primary, p, words);
  forward.sample(record, primary, p, surface, words);
}

constexpr int kMostSamplesPerPixel = 16;  // a 4 x 4 grid (contract 2a)

// Pass 2: which of each sample's secondary rays this occluder's spheres block. The visible
// sphere itself never blocks its own rays (skipped by id).
template <class Occluder, class Forward = NoForward>
struct FindBlockers {
  Occluder occluded;
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const SurfaceSample* surfaces;
  std::uint32_t* blocked;  // mask_words per sample
  Forward forward{};

  GRANRAY_HD std::uint32_t* words_of(std::size_t sample) const {
    return blocked + sample * static_cast<std::size_t>(lighting.mask_words);
  }

  GRANRAY_HD void operator()(int i, int j) const {
    const int samples = lighting.side * lighting.side;
    const std::size_t first = first_sample_of(camera, i, j, samples);
    for (int s = 0; s < samples; ++s) {
      const std::size_t k = first + static_cast<std::size_t>(s);
      find_sample_blockers(occluded, camera, shading, lighting, i, j, s, surfaces[k], words_of(k),
                           forward, k);
    }
  }
};

// Pass 2 for an occluder that gathers the spheres near its points (the CPU's): the samples of a
// block of pixels read the grid's cells near them once, and each keeps its own from that list
// (nearby_spheres.h): neighbouring pixels' points lie close together on the same grains, so that
// their gathers would read nearly the same cells. Called per block (bi, bj) of `block` x `block`
// pixels (gather_block); the same bits as FindBlockers.
constexpr int kMostGatheredSamples = 16;

// The side of the blocks: as many pixels as keep a block's samples within kMostGatheredSamples
// (1 sample: 4 x 4 pixels, 2 x 2 samples: 2 x 2, more: each pixel alone).
GRANRAY_HD_INLINE int gather_block(int samples) {
  return 16 * samples <= kMostGatheredSamples ? 4 : (4 * samples <= kMostGatheredSamples ? 2 : 1);
}

template <class Occluder, class Forward = NoForward>
struct FindBlockersInBlocks {
  FindBlockers<Occluder, Forward> pixels;
  int block;  // gather_block of the samples per pixel

  GRANRAY_HD void operator()(int bi, int bj) const {
    const CameraFrame& camera = pixels.camera;
    const LightingParams& lighting = pixels.lighting;
    const int samples = lighting.side * lighting.side;
    const int i0 = bi * block, j0 = bj * block;
    const int i1 = i0 + block < camera.width ? i0 + block : camera.width;
    const int j1 = j0 + block < camera.height ? j0 + block : camera.height;
    if (samples * block * block > kMostGatheredSamples || lighting.ao_samples == 0) {
      for (int j = j0; j < j1; ++j)
        for (int i = i0; i < i1; ++i) pixels(i, j);
      return;
    }
    // Each sample's primary ray and shading point once, for the block's gather and its rays.
    Ray primary[kMostGatheredSamples];
    ShadingPoint point[kMostGatheredSamples];
    Vec3 origins[kMostGatheredSamples];
    int n = 0, at = 0;
    for (int j = j0; j < j1; ++j) {
      for (int i = i0; i < i1; ++i) {
        const std::size_t first = first_sample_of(camera, i, j, samples);
        for (int s = 0; s < samples; ++s, ++at) {
          std::uint32_t* words = pixels.words_of(first + static_cast<std::size_t>(s));
          for (int w = 0; w < lighting.mask_words; ++w) words[w] = 0u;
          const SurfaceSample& surface = pixels.surfaces[first + static_cast<std::size_t>(s)];
          if (!(surface.t < INFINITY)) continue;
          primary[at] = pixel_sample_ray(camera, i, j, s, lighting.side);
          point[at] = shading_point(primary[at], surface.t, surface.sphere, lighting.wall_offset);
          origins[n++] = point[at].origin;
        }
      }
    }
    if (n == 0) return;
    PixelNeighbours near;
    pixels.occluded.gather_pixel(origins, n, lighting.ao_distance, near);
    at = 0;
    for (int j = j0; j < j1; ++j) {
      for (int i = i0; i < i1; ++i) {
        const std::size_t first = first_sample_of(camera, i, j, samples);
        for (int s = 0; s < samples; ++s, ++at) {
          const SurfaceSample& surface = pixels.surfaces[first + static_cast<std::size_t>(s)];
          if (!(surface.t < INFINITY)) continue;
          std::uint32_t* words = pixels.words_of(first + static_cast<std::size_t>(s));
          find_blockers_at(pixels.occluded, camera, pixels.shading, lighting, i, j, s, surface.id,
                           primary[at], point[at], words, &near);
          pixels.forward.sample(first + static_cast<std::size_t>(s), primary[at], point[at],
                                surface, words);
        }
      }
    }
  }
};

// The samples of a pixel as shown: each surface's clamped colour, or the background, under the
// see-through walls in front of it (contract 2d) when the frame has any; `visit(k, color)` for
// sample record k, in sample order.
template <class Walls>
struct ShownSamples {
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const SurfaceSample* surfaces;
  const std::uint32_t* blocked;  // null: a frame without secondary rays, nothing blocked
  Walls walls;
  const Vec4* mixes = nullptr;  // contract 2e, per sample (materials.h); null: no materials

  template <class Visit>
  GRANRAY_HD void each(int i, int j, Visit&& visit) const {
    const int samples = lighting.side * lighting.side;
    const std::size_t first = first_sample_of(camera, i, j, samples);
    SeeThroughCandidates glass{0u, 0u, false};
    if constexpr (Walls::present) glass = see_through_candidates(walls, i, j);
    for (int s = 0; s < samples; ++s) {
      const std::size_t k = first + static_cast<std::size_t>(s);
      const SurfaceSample& surface = surfaces[k];
      Vec3 color = shading.background;
      if (surface.t < INFINITY || glass.any()) {
        const Ray ray = pixel_sample_ray(camera, i, j, s, lighting.side);
        if (surface.t < INFINITY) {
          const std::uint32_t* words =
              blocked == nullptr ? nullptr
                                 : blocked + k * static_cast<std::size_t>(lighting.mask_words);
          color = sample_color(surface, words, ray, shading, lighting,
                               mixes == nullptr ? nullptr : mixes + k);
        }
        if constexpr (Walls::present) {
          if (glass.any()) {
            color = composite_see_through(walls, ray, glass, surface.t, color, shading, lighting);
          }
        }
      }
      visit(k, color);
    }
  }
};

// Pass 3: each pixel the mean of its samples' shown colours, quantised (contract 2a); with `depth`
// (and `hit_id`), its first sample's depth and visible id too, in the same pass over the samples.
template <class Walls = NoWalls>
struct ShadeSurfaces {
  ShownSamples<Walls> shown;
  Rgb8* rgb;
  float* depth = nullptr;
  std::uint64_t* hit_id = nullptr;

  GRANRAY_HD void operator()(int i, int j) const {
    Vec3 sum = {0.0f, 0.0f, 0.0f};
    shown.each(i, j, [&](std::size_t, Vec3 color) { sum = sum + color; });
    const std::size_t pixel =
        static_cast<std::size_t>(j) * static_cast<std::size_t>(shown.camera.width) +
        static_cast<std::size_t>(i);
    rgb[pixel] = mean_color(sum, shown.lighting.side * shown.lighting.side);
    if (depth != nullptr) {
      const SurfaceSample& first = shown.surfaces[first_sample_of(
          shown.camera, i, j, shown.lighting.side * shown.lighting.side)];
      depth[pixel] = first.t;
      hit_id[pixel] = first.id;
    }
  }
};

// Across ranks with several samples per pixel (lit_exchange.h): each sample's shown colour,
// with its depth and id, for the ranks to keep the nearest of each before the mean.
template <class Walls = NoWalls>
struct ShadeSamples {
  ShownSamples<Walls> shown;
  ShownSample* out;

  GRANRAY_HD void operator()(int i, int j) const {
    shown.each(i, j, [&](std::size_t k, Vec3 color) {
      out[k] = {color, shown.surfaces[k].t, shown.surfaces[k].id};
    });
  }
};

// With RenderOptions::with_hits: each pixel's first sample as its depth and visible id.
struct FirstSampleHits {
  CameraFrame camera;
  int samples;
  const SurfaceSample* surfaces;
  float* depth;
  std::uint64_t* hit_id;

  GRANRAY_HD void operator()(int i, int j) const {
    const SurfaceSample& s = surfaces[first_sample_of(camera, i, j, samples)];
    const std::size_t pixel = static_cast<std::size_t>(j) * static_cast<std::size_t>(camera.width) +
                              static_cast<std::size_t>(i);
    depth[pixel] = s.t;
    hit_id[pixel] = s.id;
  }
};

}  // namespace granray
