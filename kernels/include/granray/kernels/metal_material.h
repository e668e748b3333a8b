// Metal (contract 2e): reflects its share `reflectance` (k), tinted; keeps 1 - k of its own
// colour in a direct frame, where every metal is a mirror, and scatters the rest diffusely in the
// path-traced still, where `roughness` above 0 makes the reflection glossy (GGX).
#pragma once

#include "granray/kernels/surface_meeting.h"

namespace granray {

// Smith's G1 for GGX of roughness alpha (alpha = roughness^2).
GRANRAY_HD_INLINE float ggx_g1(float cos_v, float alpha) {
  const float c = nan_ignoring_max(cos_v, 1e-6f);
  const float t2 = (1.0f - c * c) / (c * c);
  return 2.0f / (1.0f + sqrtf(1.0f + alpha * alpha * t2));
}

// A GGX microfacet normal about n, sampled by D(h) cos(theta_h).
GRANRAY_HD_INLINE Vec3 ggx_normal(Vec3 n, float alpha, float u1, float u2) {
  Vec3 t1, t2;
  basis_about(n, t1, t2);
  const float tan2 = alpha * alpha * u1 / nan_ignoring_max(1.0f - u1, 1e-7f);
  const float c = 1.0f / sqrtf(1.0f + tan2);
  const float s = sqrtf(nan_ignoring_max(0.0f, 1.0f - c * c));
  float cos_phi, sin_phi;
  turn_cos_sin(u2, cos_phi, sin_phi);
  return normalize(t1 * (s * cos_phi) + t2 * (s * sin_phi) + n * c);
}

GRANRAY_HD_INLINE MaterialSplit metal_split(const MaterialParams& m, const SurfaceMeeting& at) {
  MaterialSplit out;
  out.keep = 1.0f - m.reflectance;
  out.weight[0] = m.tint * m.reflectance;
  out.ray[0] = at.mirror;
  out.rays = 1;
  return out;
}

GRANRAY_HD_INLINE PathTurn metal_path_turn(const MaterialParams& m, const ShadingPoint& p,
                                           const PathChoice& choice, Ray& ray, Vec3& throughput) {
  if (!(choice.lobe < m.reflectance)) return PathTurn::diffuse;
  const float alpha = m.roughness * m.roughness;
  Vec3 dir;
  if (alpha > 0.0f) {
    const Vec3 h = ggx_normal(p.normal, alpha, choice.r1, choice.r2);
    dir = reflect(ray.dir, h);
    const float cos_l = dot(dir, p.normal), cos_v = -dot(ray.dir, p.normal);
    if (!(cos_l > 0.0f)) return PathTurn::absorbed;  // under the surface
    const float vh = -dot(ray.dir, h), nh = nan_ignoring_max(dot(p.normal, h), 1e-6f);
    const float w =
        ggx_g1(cos_v, alpha) * ggx_g1(cos_l, alpha) * vh / (nan_ignoring_max(cos_v, 1e-6f) * nh);
    throughput = throughput * m.tint * w;
  } else {
    dir = reflect(ray.dir, p.normal);
    throughput = throughput * m.tint;
  }
  ray = {p.origin, dir};
  return PathTurn::specular;
}

}  // namespace granray
