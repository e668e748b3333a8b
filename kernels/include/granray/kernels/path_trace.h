// The path-traced still (contract 2e, renderer = "path"): Monte Carlo light transport under a
// uniform sky (the background's colour as radiance) and a sun of finite angular size, through the
// same grid and wall tree as the direct frames. Matte surfaces are Lambertian with albedo `base`
// and sample the sun directly (a shadow ray per hit); metal reflects its share `reflectance`
// (a mirror, or GGX with `roughness`), the rest diffuse; glass reflects by Schlick's Fresnel term
// and otherwise passes through the grain (materials.h) or the sheet. Every random number is a
// hash of (pixel, sample, bounce, purpose) and the settings: the same paths on every rank count
// and, up to float rounding, on both backends.
#pragma once

#include <cstdint>

#include "granray/kernels/materials.h"

namespace granray {

// What the kernels read of [insitu.path].
struct PathParams {
  int samples;           // paths per pixel in all
  int bounces;           // surfaces that scatter a path at most
  float cos_sun;         // cos of the sun's angular radius (1: an infinitely small sun)
  float sun_scale;       // the NEE weight 2 (1 - cos) / sin^2 of the cone (1 when infinitely small)
  float sun_radiance;    // what a ray that meets the sun's disc sees: I / sin^2 (0: none)
  float sun_intensity;   // I: a facing matte surface of base c gets c I from the sun
  float aperture;        // lens radius, world units (0: a pinhole)
  float focus_distance;  // along the view direction
};

// Purposes of the random numbers of one bounce, each a pair.
enum PathPurpose : std::uint32_t {
  kPathPixel = 0,   // the sample's place in its pixel
  kPathLens = 1,    // the point on the lens
  kPathLobe = 2,    // which lobe (metal: reflect or diffuse; glass: reflect or pass) and roulette
  kPathSun = 3,     // the direction toward the sun
  kPathScatter = 4  // the scattered direction
};

// Two numbers in [0, 1) for (pixel, sample, bounce, purpose): a hash chain, no state.
struct PathRandom {
  std::uint32_t pixel_seed;  // of the whole image's pixel

  GRANRAY_HD void pair(int sample, int bounce, std::uint32_t purpose, float& u1, float& u2) const {
    const std::uint32_t h = mix_bits(
        pixel_seed ^
        mix_bits(static_cast<std::uint32_t>(sample) * 0x9e3779b9u ^
                 mix_bits(static_cast<std::uint32_t>(bounce) * 8u + purpose + 0x632be5abu)));
    u1 = unit_interval(h);
    u2 = unit_interval(mix_bits(h ^ 0x85ebca6bu));
  }
};

GRANRAY_HD_INLINE std::uint32_t path_pixel_seed(int i, int j) {
  return mix_bits(static_cast<std::uint32_t>(i) ^
                  mix_bits(static_cast<std::uint32_t>(j) + 0x7f4a7c15u));
}

// The random numbers of pixel (i, j) (window coordinates) of `camera`'s image: seeded by the
// whole image's pixel, so that a window or a band draws the whole's paths.
GRANRAY_HD_INLINE PathRandom path_random(const CameraFrame& camera, int i, int j) {
  return {path_pixel_seed(i + camera.x0, j + camera.y0)};
}

// A cosine-distributed direction about n.
GRANRAY_HD_INLINE Vec3 cosine_direction(Vec3 n, float u1, float u2) {
  Vec3 t1, t2;
  basis_about(n, t1, t2);
  const float r = sqrtf(u1);
  float c, s;
  turn_cos_sin(u2, c, s);
  return t1 * (r * c) + t2 * (r * s) + n * sqrtf(nan_ignoring_max(0.0f, 1.0f - u1));
}

// A direction uniform in the cone of cos half-angle cos_max about unit axis l.
GRANRAY_HD_INLINE Vec3 cone_direction(Vec3 l, float cos_max, float u1, float u2) {
  if (cos_max >= 1.0f) return l;
  Vec3 t1, t2;
  basis_about(l, t1, t2);
  const float c = 1.0f - u1 * (1.0f - cos_max);
  const float s = sqrtf(nan_ignoring_max(0.0f, 1.0f - c * c));
  float cos_phi, sin_phi;
  turn_cos_sin(u2, cos_phi, sin_phi);
  return normalize(t1 * (s * cos_phi) + t2 * (s * sin_phi) + l * c);
}

// Camera rays walk the scene's tracer like any other ray.
struct NoCameraTracer {
  static constexpr bool present = false;
};

// Camera rays by a tracer that knows where they start from, given only for a pinhole camera: the
// grains' screen tiles (TileTracer: a tile lists every grain whose footprint, padded by a pixel,
// covers a pixel of it, nearest first) or the grid from each pixel's near bound (NearBoundTracer:
// the least entry bound of the grains whose padded footprint covers the pixel's block). Either
// finds for any ray from the eye through the pixel the hit the grid's walk from the eye would
// (the same test, the same tie rule), without walking the empty space before the grains.
template <class Tracer>
struct CameraRays {
  static constexpr bool present = true;
  Tracer tracer;
};

// A path between two of its surfaces: the ray it follows, what it carries and has gathered so
// far. The one-pass kernel keeps it in registers; the levels of the GPU's still
// (path_levels.h) keep it in a list between their passes, 64 bytes in four loads.
struct alignas(16) PathState {
  Ray ray;
  Vec3 throughput;
  Vec3 radiance;
  std::uint64_t from;      // the surface the ray leaves (BounceScene::nearest)
  std::uint32_t path;      // which path of its batch (path_levels.h)
  std::uint32_t sees_sun;  // the sun's disc counts for rays that did not sample it already
};

static_assert(sizeof(PathState) == 64, "a path's state loads in four 16-byte loads");

// Sample s's path of pixel (i, j) (window coordinates) as it leaves the camera.
GRANRAY_HD_INLINE PathState start_path(const CameraFrame& camera, const PathParams& path,
                                       const PathRandom& random, int i, int j, int s) {
  float u1, u2;
  random.pair(s, 0, kPathPixel, u1, u2);
  Ray ray = sample_ray(camera, i, j, u1, u2);
  if (path.aperture > 0.0f) {
    // A thin lens: the ray from a point of the lens through where the pinhole ray meets the
    // plane of focus.
    float l1, l2;
    random.pair(s, 0, kPathLens, l1, l2);
    const float r = path.aperture * sqrtf(l1);
    float cos_phi, sin_phi;
    turn_cos_sin(l2, cos_phi, sin_phi);
    const Vec3 focus =
        ray.origin +
        ray.dir * (path.focus_distance / nan_ignoring_max(dot(ray.dir, camera.w * -1.0f), 1e-6f));
    const Vec3 origin = ray.origin + camera.u * (r * cos_phi) + camera.v * (r * sin_phi);
    ray = {origin, normalize(focus - origin)};
  }
  return {ray, {1.0f, 1.0f, 1.0f}, {0.0f, 0.0f, 0.0f}, kSkipNothing, 0u, 1u};
}

// Sample s's path meets `hit` (its nearest surface, or none) as its surface number `bounce`
// (0: the camera ray's): the sky it sees, or what it gathers there and where it turns. True when
// the path ends there (its radiance is then whole). `bounces` surfaces scatter the path; the ray
// after the last one still sees the sky (as Mitsuba's max_depth = bounces + 1).
template <class Scene, class Occluder>
GRANRAY_HD_INLINE bool path_meets(const Scene& scene, const Occluder& occluded,
                                  const ShadingParams& shading, const PathParams& path,
                                  float wall_offset, const PathRandom& random, int s, int bounce,
                                  const BounceHit& hit, PathState& state) {
  if (!(hit.surface.t < INFINITY)) {
    Vec3 sky = shading.background;
    if (state.sees_sun != 0u && path.sun_radiance > 0.0f &&
        dot(state.ray.dir, shading.light.toward(state.ray.origin)) >= path.cos_sun) {
      sky = sky + Vec3{path.sun_radiance, path.sun_radiance, path.sun_radiance};
    }
    state.radiance = state.radiance + state.throughput * sky;
    return true;
  }
  if (bounce == path.bounces) return true;
  const SurfaceSample& surface = hit.surface;
  state.from = surface.id;
  const ShadingPoint p = shading_point(state.ray, surface.t, surface.sphere, wall_offset);
  const MaterialParams* m = hit.slot != kMatteSlot ? &scene.table.params[hit.slot] : nullptr;
  float lobe, roulette;
  random.pair(s, bounce, kPathLobe, lobe, roulette);
  float r1, r2;
  random.pair(s, bounce, kPathScatter, r1, r2);
  const PathTurn turn = path_turn_at(m, surface, p, wall_offset, PathChoice{lobe, r1, r2},
                                     state.ray, state.throughput);
  if (turn == PathTurn::absorbed) return true;
  if (turn == PathTurn::specular) state.sees_sun = 1u;
  if (turn == PathTurn::diffuse) {
    // Lambertian of albedo base: the sun sampled directly, then a cosine-distributed bounce.
    const Vec3 to_sun = shading.light.toward(p.origin);
    const float lambert = dot(p.normal, to_sun);
    if (path.sun_intensity > 0.0f && lambert > -0.01f) {
      float s1, s2;
      random.pair(s, bounce, kPathSun, s1, s2);
      const Vec3 l = cone_direction(to_sun, path.cos_sun, s1, s2);
      const float c = dot(p.normal, l);
      if (c > 0.0f && !occluded(Ray{p.origin, l}, shading.light.reach(p.origin), surface.id)) {
        const float e = path.sun_intensity * path.sun_scale * c;
        state.radiance = state.radiance + state.throughput * surface.base * e;
      }
    }
    state.throughput = state.throughput * surface.base;
    state.ray = {p.origin, cosine_direction(p.normal, r1, r2)};
    state.sees_sun = 0u;
  }
  // Russian roulette after 3 bounces: paths that carry little end early, the others weigh more.
  if (bounce >= 2) {
    const float q = nan_ignoring_min(
        0.95f, nan_ignoring_max(state.throughput.x,
                                nan_ignoring_max(state.throughput.y, state.throughput.z)));
    if (!(roulette < q)) return true;
    state.throughput = state.throughput * (1.0f / q);
  }
  return false;
}

// The nearest surface of a path's ray: a camera ray (bounce 0) by the camera tracer where there
// is one.
template <class Scene, class CameraTracer>
GRANRAY_HD_INLINE BounceHit path_hit(const Scene& scene, const CameraTracer& camera_tracer,
                                     const PathState& state, int bounce, int i, int j) {
  if constexpr (CameraTracer::present) {
    if (bounce == 0) {
      return scene.nearest_from(camera_tracer.tracer(state.ray, i, j), state.ray, true);
    }
    return scene.nearest(state.ray, false, state.from);
  } else {
    return scene.nearest(state.ray, bounce == 0, state.from);
  }
}

// The radiance of one path of pixel (i, j) (window coordinates), sample s.
template <class Scene, class Occluder, class CameraTracer = NoCameraTracer>
GRANRAY_HD_INLINE Vec3 trace_path(const Scene& scene, const Occluder& occluded,
                                  const CameraFrame& camera, const ShadingParams& shading,
                                  const PathParams& path, float wall_offset, int i, int j, int s,
                                  const CameraTracer& camera_tracer = {}) {
  const PathRandom random = path_random(camera, i, j);
  PathState state = start_path(camera, path, random, i, j, s);
  for (int bounce = 0;; ++bounce) {
    const BounceHit hit = path_hit(scene, camera_tracer, state, bounce, i, j);
    if (path_meets(scene, occluded, shading, path, wall_offset, random, s, bounce, hit, state)) {
      break;
    }
  }
  return state.radiance;
}

// Adds `count` paths per pixel, from sample `first` on, to each pixel's running sum.
template <class Scene, class Occluder, class CameraTracer = NoCameraTracer>
struct TracePaths {
  Scene scene;
  Occluder occluded;
  CameraTracer camera_tracer;
  CameraFrame camera;
  ShadingParams shading;
  PathParams path;
  float wall_offset;
  int first;
  int count;
  Vec3* sums;  // per pixel

  GRANRAY_HD void operator()(int i, int j) const {
    const std::size_t pixel = static_cast<std::size_t>(j) * static_cast<std::size_t>(camera.width) +
                              static_cast<std::size_t>(i);
    Vec3 sum = first == 0 ? Vec3{0.0f, 0.0f, 0.0f} : sums[pixel];
    for (int s = first; s < first + count; ++s) {
      sum = sum +
            trace_path(scene, occluded, camera, shading, path, wall_offset, i, j, s, camera_tracer);
    }
    sums[pixel] = sum;
  }
};

// The pixels from the sums of all `samples` paths: the mean radiance, clamped and quantised.
struct FinishPaths {
  CameraFrame camera;
  int samples;
  const Vec3* sums;
  Rgb8* rgb;

  GRANRAY_HD void operator()(int i, int j) const {
    const std::size_t pixel = static_cast<std::size_t>(j) * static_cast<std::size_t>(camera.width) +
                              static_cast<std::size_t>(i);
    rgb[pixel] = to_rgb8(sums[pixel] * (1.0f / static_cast<float>(samples)));
  }
};

}  // namespace granray
