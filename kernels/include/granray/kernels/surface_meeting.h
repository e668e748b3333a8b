// What every material reads of a ray meeting a surface, and what it hands back: the types of the
// materials' interface (material_scatter.h), and the vector helpers the materials share.
#pragma once

#include "granray/kernels/lighting.h"
#include "granray/kernels/material_table.h"
#include "granray/kernels/ray.h"

namespace granray {

// Component-wise product for tints and weights.
GRANRAY_HD_INLINE Vec3 operator*(Vec3 a, Vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }

// r reflected about the unit normal n: d - 2 (d . n) n.
GRANRAY_HD_INLINE Vec3 reflect(Vec3 d, Vec3 n) { return normalize(d - n * (2.0f * dot(d, n))); }

// A ray meeting a sphere, or a wall (its normal turned to the ray, radius 0, as SurfaceSample
// holds it).
struct SurfaceMeeting {
  Ray ray;
  SurfaceSample surface;
  Vec3 x;  // the point met
  Vec3 n;  // the sphere's outward normal, or the wall's turned toward the ray
  bool wall;
  Ray mirror;  // the ray reflected about n, from a hair outside
  float wall_offset;
};

GRANRAY_HD_INLINE SurfaceMeeting meeting_at(const Ray& ray, const SurfaceSample& s,
                                            float wall_offset) {
  SurfaceMeeting at;
  at.ray = ray;
  at.surface = s;
  at.x = ray.origin + ray.dir * s.t;
  at.wall = shows_wall(s.sphere);
  at.n = at.wall ? center_of(s.sphere) : (at.x - center_of(s.sphere)) * (1.0f / s.sphere.w);
  const Vec3 outside = at.wall ? at.x + at.n * wall_offset
                               : center_of(s.sphere) + at.n * (s.sphere.w * (1.0f + 1e-4f));
  at.mirror = {outside, reflect(ray.dir, at.n)};
  at.wall_offset = wall_offset;
  return at;
}

// How a surface splits a ray in a direct frame: the share of its own colour L it keeps and up to
// two rays with their weights, evaluated in order.
struct MaterialSplit {
  float keep;
  Vec3 weight[2];
  Ray ray[2];
  int rays;
};

// The random numbers of a path's turn at a surface: which lobe, and the scattered direction.
struct PathChoice {
  float lobe;
  float r1, r2;
};

// What a path does at a surface: goes on along a new ray (the material set it), scatters
// diffusely (the path tracer samples the sun and a cosine direction), or ends.
enum class PathTurn { specular, diffuse, absorbed };

}  // namespace granray
