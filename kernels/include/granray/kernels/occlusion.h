// Any-hit queries for secondary rays (SPEC 2a): is anything between a shading point and the
// light, or within ambient-occlusion distance of it? Through the same grid as primary rays, or
// against every sphere (the reference).
#pragma once

#include "granray/kernels/trace.h"

namespace granray {

// A secondary ray of length `length` is blocked by a sphere with an intersection distance t,
// either root, in (0, length): a ray that starts inside a neighbouring grain (grains in contact
// overlap) is blocked where it leaves it.
GRANRAY_HD_INLINE bool blocks(const Ray& ray, Vec4 sphere, float length) {
  const Vec3 oc = ray.origin - center_of(sphere);
  const float a = dot(ray.dir, ray.dir);
  const float b = dot(oc, ray.dir);
  const Vec3 l = oc - ray.dir * (b / a);  // as sphere_entry_distance: no cancellation when far
  const float disc = a * (sphere.w * sphere.w - dot(l, l));
  if (!(disc > 0.0f)) return false;
  const float root = sqrtf(disc);
  const float t0 = (-b - root) / a, t1 = (-b + root) / a;
  return (t0 > 0.0f && t0 < length) || (t1 > 0.0f && t1 < length);
}

// Walks the grid's cells along the ray until a listed sphere other than `skip_id` blocks it.
struct AnyListedBlocker {
  const GridView& grid;
  const IdMap& id_of;
  const Ray& ray;
  float length;
  std::uint64_t skip_id;
  bool blocked;

  GRANRAY_HD bool done_before(float) const { return blocked; }

  GRANRAY_HD void visit(std::uint32_t first_cell, std::uint32_t last_cell) {
    if (blocked) return;
    const std::uint32_t end = grid.cell_offsets[last_cell + 1];
    for (std::uint32_t k = grid.cell_offsets[first_cell]; k < end; ++k) {
      if (blocks(ray, grid.ref_spheres[k], length) && id_of(grid.ref_index[k]) != skip_id) {
        blocked = true;
        return;
      }
    }
  }
};

// Every sphere whose intersection lies in (0, length) holds that point inside its listing
// cell's grown box, so the walk over [0, length] meets it.
struct GridOccluder {
  GridView grid;
  IdMap id_of;
  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    AnyListedBlocker blocker{grid, id_of, ray, length, skip_id, false};
    walk_grown_cells(grid.geometry, ray, 0.0f, length, blocker);
    return blocker.blocked;
  }
};

// The reference: every renderable sphere.
struct BruteForceOccluder {
  const Vec4* spheres;
  std::uint32_t count;
  IdMap id_of;
  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    for (std::uint32_t index = 0; index < count; ++index) {
      const Vec4 s = spheres[index];
      if (is_renderable(s) && blocks(ray, s, length) && id_of(index) != skip_id) return true;
    }
    return false;
  }
};

}  // namespace granray
