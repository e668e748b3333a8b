// The materials' extension point (contract 2e), as pbrt-v4's base/material.h is: what a metal or
// glass surface does with a ray that meets it, once for the direct frames (a split: the share of
// its own 2a colour it keeps and up to two rays with their weights) and once for the path tracer
// (a turn: one ray drawn from random numbers). Each kind lives in a file of its own
// (metal_material.h, glass_material.h); the two dispatchers below are the only places that list
// them.
#pragma once

#include "granray/kernels/glass_material.h"
#include "granray/kernels/metal_material.h"

namespace granray {

// How the surface `s` met by `ray` splits it in a direct frame; a matte surface keeps its colour
// and sends no ray.
GRANRAY_HD_INLINE MaterialSplit split_at(const MaterialParams& m, const Ray& ray,
                                         const SurfaceSample& s, float wall_offset) {
  const SurfaceMeeting at = meeting_at(ray, s, wall_offset);
  switch (m.kind) {
    case MaterialType::metal:
      return metal_split(m, at);
    case MaterialType::glass:
      return glass_split(m, at);
    case MaterialType::matte:
      break;
  }
  MaterialSplit keep{};
  keep.keep = 1.0f;
  return keep;
}

// A path's turn at the surface `s` of material `m` (null: matte): the next ray and the
// throughput it carries, or PathTurn::diffuse for the path tracer's Lambertian lobe.
GRANRAY_HD_INLINE PathTurn path_turn_at(const MaterialParams* m, const SurfaceSample& s,
                                        const ShadingPoint& p, float wall_offset,
                                        const PathChoice& choice, Ray& ray, Vec3& throughput) {
  if (m == nullptr) return PathTurn::diffuse;
  switch (m->kind) {
    case MaterialType::metal:
      return metal_path_turn(*m, p, choice, ray, throughput);
    case MaterialType::glass:
      return glass_path_turn(*m, meeting_at(ray, s, wall_offset), choice, ray, throughput);
    case MaterialType::matte:
      break;
  }
  return PathTurn::diffuse;
}

}  // namespace granray
