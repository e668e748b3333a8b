// The light that shades a frame (contract 2a, and the path-traced still's sun, 2e): the lights'
// extension point, as pbrt-v4's base/light.h is. The shading, the shadow rays, the light columns
// and the path tracer ask it which way the light is from a point and how far a shadow ray goes;
// none reads a direction of its own. One kind today, directional (at infinity: every point sees
// it along one direction, the one thing the light columns and the see-through facets' cached
// shades rely on, which they check with parallel()). A point or area light is a new kind with
// its own answers here (docs/design.md, "How to add a light").
#pragma once

#include <cmath>
#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray {

enum class LightKind : std::uint32_t { directional };

struct Light {
  LightKind kind;
  Vec3 direction;  // directional: the unit vector toward the light, world space

  // The unit direction from x toward the light.
  GRANRAY_HD Vec3 toward(Vec3 /*x*/) const { return direction; }
  // How far a shadow ray from x goes before it reaches the light.
  GRANRAY_HD float reach(Vec3 /*x*/) const { return INFINITY; }
  // Whether every point sees the light along one direction.
  GRANRAY_HD bool parallel() const { return kind == LightKind::directional; }
};

GRANRAY_HD_INLINE Light directional_light(Vec3 toward) { return {LightKind::directional, toward}; }

}  // namespace granray
