#pragma once

#include "granray/kernels/ray.h"

namespace granray {

// Entry distance t0 of a ray into a sphere, or +inf when the ray misses it or starts inside or
// in front of it (t0 <= 0). Every renderer path calls this one function, so the grid renderer
// and the brute-force reference agree bit for bit on every sphere they both test.
GRANRAY_HD_INLINE float sphere_entry_distance(const Ray& ray, Vec4 sphere) {
  const Vec3 oc = ray.origin - center_of(sphere);
  const float a = dot(ray.dir, ray.dir);
  const float b = dot(oc, ray.dir);
  // One division, not two: an IEEE division is a long sequence on the GPU.
  const float inv_a = 1.0f / a;
  // b^2 - a c written through the closest-approach vector: no cancellation for far spheres
  // (on_outline in shading.h works it out alike).
  const Vec3 l = oc - ray.dir * (b * inv_a);
  const float disc = a * (sphere.w * sphere.w - dot(l, l));
  if (!(disc > 0.0f)) return INFINITY;
  const float t0 = (-b - sqrtf(disc)) * inv_a;
  return t0 > 0.0f ? t0 : INFINITY;
}

}  // namespace granray
