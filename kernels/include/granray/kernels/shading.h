#pragma once

#include <cstdint>

#include "granray/kernels/ray.h"

namespace granray {

struct Rgb8 {
  std::uint8_t r, g, b;
};

struct ShadingParams {
  Vec3 light;  // unit vector toward the light, world space
  float ambient;
  float diffuse;
  Vec3 background;
  Vec3 particle_color;
};

// floor(255 s + 0.5) for s in [0, 1]: the conversion truncates, which is floor for a positive
// value (floorf is a libm call per channel on x86-64 without SSE4.1).
GRANRAY_HD_INLINE int nearest_of_255(float s) { return static_cast<int>(255.0f * s + 0.5f); }

// SPEC 2: clamp to [0, 1], then floor(255 c + 0.5); NaN maps to 0.
GRANRAY_HD_INLINE std::uint8_t to_byte(float c) {
  return static_cast<std::uint8_t>(
      nearest_of_255(nan_ignoring_min(nan_ignoring_max(c, 0.0f), 1.0f)));
}

GRANRAY_HD_INLINE Rgb8 to_rgb8(Vec3 c) { return {to_byte(c.x), to_byte(c.y), to_byte(c.z)}; }

// Base colour of a particle: the uniform particle colour, or a 256-entry colormap of its scalar
// over [lo, lo + 1 / inv_span].
struct ColorSource {
  const float* scalar;  // null: every particle gets `uniform`
  const Vec3* table;
  float lo;
  float inv_span;
  Vec3 uniform;

  GRANRAY_HD Vec3 operator()(std::uint32_t index) const {
    if (scalar == nullptr) return uniform;
    const float s = nan_ignoring_min(nan_ignoring_max((scalar[index] - lo) * inv_span, 0.0f), 1.0f);
    return table[nearest_of_255(s)];
  }
};

// Seed 001, eq. 9: base * (ambient + diffuse * max(0, n . l)), for a sphere or a wall.
GRANRAY_HD_INLINE Rgb8 shade_normal(Vec3 normal, Vec3 base, const ShadingParams& params) {
  const float lambert = nan_ignoring_max(0.0f, dot(normal, params.light));
  return to_rgb8(base * (params.ambient + params.diffuse * lambert));
}

GRANRAY_HD_INLINE Rgb8 shade_hit(const Ray& ray, float t, Vec4 sphere, Vec3 base,
                                 const ShadingParams& params) {
  const Vec3 hit = ray.origin + ray.dir * t;
  return shade_normal((hit - center_of(sphere)) * (1.0f / sphere.w), base, params);
}

}  // namespace granray
