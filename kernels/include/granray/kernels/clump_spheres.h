// Clumps as a GPU DEM such as Chrono DEM-Engine holds them (issue #68): each owner a rigid body at
// a position with an orientation quaternion, made of the component spheres of its clump
// template (offsets in the body frame, radii). One owner's spheres in world space, on both
// backends, for granray's float4 (x, y, z, radius) buffer.
#pragma once

#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray {

// v turned by the unit quaternion q, stored (x, y, z, w) as DEM-Engine's float4 orientations:
// v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z).
GRANRAY_HD_INLINE Vec3 rotate_by_quaternion(Vec4 q, Vec3 v) {
  const Vec3 u{q.x, q.y, q.z};
  const Vec3 t = cross(u, v) * 2.0f;
  return v + t * q.w + cross(u, t);
}

// The clump templates in the backend's memory: template k's components are first[k] ..
// first[k + 1] - 1 of offsets and radii.
struct ClumpTemplatesView {
  const std::uint32_t* first;
  const Vec3* offsets;
  const float* radii;
};

// Writes owner i's component spheres from sphere first_sphere[i] on, and, where the owners have
// a value each (velocity, family), that value to each of its spheres.
struct GatherClumpSpheres {
  const float* positions;             // x, y, z per owner (float3)
  const Vec4* orientations;           // (x, y, z, w) per owner
  const std::uint32_t* template_of;   // per owner
  const std::uint32_t* first_sphere;  // per owner
  ClumpTemplatesView templates;
  const float* owner_values;  // per owner, or null
  Vec4* spheres;
  float* sphere_values;  // per sphere, written where owner_values is given

  GRANRAY_HD void operator()(std::uint32_t i) const {
    const Vec3 p{positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]};
    const Vec4 q = orientations[i];
    const std::uint32_t t = template_of[i];
    std::uint32_t out = first_sphere[i];
    for (std::uint32_t c = templates.first[t]; c < templates.first[t + 1]; ++c, ++out) {
      const Vec3 x = p + rotate_by_quaternion(q, templates.offsets[c]);
      spheres[out] = {x.x, x.y, x.z, templates.radii[c]};
      if (owner_values != nullptr) sphere_values[out] = owner_values[i];
    }
  }
};

}  // namespace granray
