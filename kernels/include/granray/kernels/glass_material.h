// Glass (contract 2e): reflects by Schlick's Fresnel term and lets the rest through, tinted: a
// grain refracts it in and out across its chord, a wall is a thin sheet the ray crosses straight.
// A direct frame traces both rays; a path takes one of them by its share.
#pragma once

#include "granray/kernels/surface_meeting.h"

namespace granray {

// Schlick's Fresnel reflectance for cos c of the angle of incidence.
GRANRAY_HD_INLINE float schlick(float r0, float c) {
  const float m = 1.0f - clamp01(c);
  const float m2 = m * m;
  return r0 + (1.0f - r0) * (m2 * m2 * m);
}

// The ray that leaves a glass sphere (centre p, radius r) entered at x (outward normal n) along
// unit d: refracted in (Snell, 1 -> ior), across the chord to the far point y, refracted out
// (ior -> 1) from y's offset point. A sphere's symmetry makes the exit angle the entry's, so the
// ray always leaves; rounding that says otherwise is clamped to a grazing exit.
GRANRAY_HD_INLINE Ray through_glass_sphere(Vec4 sphere, Vec3 x, Vec3 n, Vec3 d, float ior) {
  const float eta = 1.0f / ior;
  const float c = clamp01(-dot(d, n));
  const float k = nan_ignoring_max(0.0f, 1.0f - eta * eta * (1.0f - c * c));
  const Vec3 inside = normalize(d * eta + n * (eta * c - sqrtf(k)));
  const Vec3 p = center_of(sphere);
  const float chord = -2.0f * dot(x - p, inside);
  const Vec3 y = x + inside * nan_ignoring_max(chord, 0.0f);
  const Vec3 ny = normalize(y - p);
  const float c_out = clamp01(dot(inside, ny));
  const float k_out = nan_ignoring_max(0.0f, 1.0f - ior * ior * (1.0f - c_out * c_out));
  const Vec3 out = normalize(inside * ior - ny * (ior * c_out - sqrtf(k_out)));
  return {p + ny * (sphere.w * (1.0f + 1e-4f)), out};
}

GRANRAY_HD_INLINE MaterialSplit glass_split(const MaterialParams& m, const SurfaceMeeting& at) {
  const float f = schlick(m.r0, -dot(at.ray.dir, at.n));
  MaterialSplit out;
  out.keep = 0.0f;
  out.weight[0] = Vec3{f, f, f};
  out.ray[0] = at.mirror;
  out.weight[1] = m.tint * (1.0f - f);
  out.ray[1] = at.wall ? Ray{at.x - at.n * at.wall_offset, at.ray.dir}
                       : through_glass_sphere(at.surface.sphere, at.x, at.n, at.ray.dir, m.ior);
  out.rays = 2;
  return out;
}

GRANRAY_HD_INLINE PathTurn glass_path_turn(const MaterialParams& m, const SurfaceMeeting& at,
                                           const PathChoice& choice, Ray& ray, Vec3& throughput) {
  const MaterialSplit split = glass_split(m, at);
  if (choice.lobe < split.weight[0].x) {
    ray = split.ray[0];
  } else {
    ray = split.ray[1];
    throughput = throughput * m.tint;
  }
  return PathTurn::specular;
}

}  // namespace granray
