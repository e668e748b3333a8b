#pragma once

#include <cmath>
#include <cstdint>

#include "granray/kernels/light.h"
#include "granray/kernels/ray.h"

namespace granray {

struct Rgb8 {
  std::uint8_t r, g, b;
};

struct ShadingParams {
  Light light;
  float ambient;
  float diffuse;
  Vec3 background;
  Vec3 particle_color;
  // contract 2d, off at 0: a rim of `outline` x the radius at each grain's silhouette, and a fade
  // of up to `depth_cue` toward `cue_color` with the depth z = (x - eye) . forward of a surface
  // point, from z_near (none) to z_near + 1 / z_inv_span (all of depth_cue).
  float outline;
  Vec3 outline_color;
  float depth_cue;
  Vec3 cue_color;
  Vec3 eye;
  Vec3 forward;  // -w: into the picture
  float z_near;
  float z_inv_span;  // 0 when the scene has no depth
};

// floor(255 s + 0.5) for s in [0, 1]: the conversion truncates, which is floor for a positive
// value (floorf is a libm call per channel on x86-64 without SSE4.1).
GRANRAY_HD_INLINE int nearest_of_255(float s) { return static_cast<int>(255.0f * s + 0.5f); }

// contract 2: clamp to [0, 1], then floor(255 c + 0.5); NaN maps to 0.
GRANRAY_HD_INLINE std::uint8_t to_byte(float c) {
  return static_cast<std::uint8_t>(
      nearest_of_255(nan_ignoring_min(nan_ignoring_max(c, 0.0f), 1.0f)));
}

GRANRAY_HD_PIXEL_INLINE Rgb8 to_rgb8(Vec3 c) { return {to_byte(c.x), to_byte(c.y), to_byte(c.z)}; }

// contract 2d: the palette entry of a categorical value, floor(s + 0.5) mod n (non-negative); in
// double, so that s + 0.5 is exact. A value that is not finite takes entry 0.
GRANRAY_HD_INLINE std::uint32_t category_entry(float s, std::uint32_t n) {
  if (!(s > -1e18f && s < 1e18f)) return 0;
  const auto k = static_cast<long long>(floor(static_cast<double>(s) + 0.5));
  const long long m = k % static_cast<long long>(n);
  return static_cast<std::uint32_t>(m < 0 ? m + static_cast<long long>(n) : m);
}

// Base colour of a particle: the uniform particle colour, or a 256-entry colormap of its scalar
// over [lo, lo + 1 / inv_span].
struct ColorSource {
  const float* scalar;  // null: every particle gets `uniform`
  const Vec3* table;
  float lo;
  float inv_span;
  Vec3 uniform;
  std::uint32_t categories;  // > 0: `table` is a palette of this many entries (contract 2d)

  GRANRAY_HD Vec3 operator()(std::uint32_t index) const {
    if (scalar == nullptr) return uniform;
    if (categories > 0) return table[category_entry(scalar[index], categories)];
    const float s = nan_ignoring_min(nan_ignoring_max((scalar[index] - lo) * inv_span, 0.0f), 1.0f);
    return table[nearest_of_255(s)];
  }
};

GRANRAY_HD_INLINE float clamp01(float x) {
  return nan_ignoring_min(nan_ignoring_max(x, 0.0f), 1.0f);
}
GRANRAY_HD_INLINE Vec3 clamp01(Vec3 c) { return {clamp01(c.x), clamp01(c.y), clamp01(c.z)}; }

// contract 2d: whether the ray meets the sphere in its outline, where the distance from the centre
// to the ray's line exceeds r (1 - outline). The distance is the closest-approach vector that
// sphere_entry_distance uses, so the rim is as exact as the silhouette.
GRANRAY_HD_INLINE bool on_outline(const Ray& ray, Vec4 sphere, const ShadingParams& params) {
  if (!(params.outline > 0.0f)) return false;
  const Vec3 oc = ray.origin - center_of(sphere);
  const Vec3 l = oc - ray.dir * (dot(oc, ray.dir) * (1.0f / dot(ray.dir, ray.dir)));
  const float inner = sphere.w * (1.0f - params.outline);
  return dot(l, l) > inner * inner;
}

// contract 2d: a surface's clamped colour faded toward the cue colour with the depth of `point`.
GRANRAY_HD_INLINE Vec3 depth_cued(Vec3 clamped, Vec3 point, const ShadingParams& params) {
  if (!(params.depth_cue > 0.0f)) return clamped;
  const float z = dot(point - params.eye, params.forward);
  const float f = params.depth_cue * clamp01((z - params.z_near) * params.z_inv_span);
  return clamped * (1.0f - f) + params.cue_color * f;
}

// Seed 001, eq. 9: base * (ambient + diffuse * max(0, n . l)), clamped, for a sphere or a wall
// whose surface is at `point`; then depth-cued.
GRANRAY_HD_PIXEL_INLINE Vec3 normal_color(Vec3 normal, Vec3 base, Vec3 point,
                                          const ShadingParams& params) {
  const float lambert = nan_ignoring_max(0.0f, dot(normal, params.light.toward(point)));
  return depth_cued(clamp01(base * (params.ambient + params.diffuse * lambert)), point, params);
}

GRANRAY_HD_INLINE Rgb8 shade_normal(Vec3 normal, Vec3 base, Vec3 point,
                                    const ShadingParams& params) {
  return to_rgb8(normal_color(normal, base, point, params));
}

// The clamped, cued colour of a sphere's hit at distance t: its outline's or its shaded surface's.
GRANRAY_HD_PIXEL_INLINE Vec3 hit_color(const Ray& ray, float t, Vec4 sphere, Vec3 base,
                                       const ShadingParams& params) {
  const Vec3 hit = ray.origin + ray.dir * t;
  if (on_outline(ray, sphere, params)) return depth_cued(params.outline_color, hit, params);
  return normal_color((hit - center_of(sphere)) * (1.0f / sphere.w), base, hit, params);
}

GRANRAY_HD_INLINE Rgb8 shade_hit(const Ray& ray, float t, Vec4 sphere, Vec3 base,
                                 const ShadingParams& params) {
  return to_rgb8(hit_color(ray, t, sphere, base, params));
}

}  // namespace granray
