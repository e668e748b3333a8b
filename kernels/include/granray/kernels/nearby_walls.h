// The CPU's way with the walls' occlusion rays: the leaves of the opaque walls' tree near a shading
// point found once, then each of its bounded rays tested against those leaves alone, where a walk
// down the tree per ray spent much of a lit frame in a container (docs/benchmarks.md). The answer
// is the walk's, bit for bit (why: nearby_wall_blocks).
#pragma once

#include <cstdint>

#include "granray/kernels/walls.h"

namespace granray {

constexpr int kNearbyWallLeaves = 8;  // a point near more leaves walks the tree per ray

struct NearbyWallLeaves {
  std::uint32_t node[kNearbyWallLeaves];  // heap index of each leaf, in walk order
  int count;
  bool overflow;  // more than kNearbyWallLeaves: use wall_blocks
};

// Squared distance from o to the box (0 inside it).
GRANRAY_HD_INLINE float squared_distance_to(const WallBox& box, Vec3 o) {
  const auto gap = [](float x, float lo, float hi) {
    return x < lo ? lo - x : (x > hi ? x - hi : 0.0f);
  };
  const float gx = gap(o.x, box.lo.x, box.hi.x), gy = gap(o.y, box.lo.y, box.hi.y),
              gz = gap(o.z, box.lo.z, box.hi.z);
  return gx * gx + gy * gy + gz * gz;
}

// How far from o the leaves are kept for rays of length `length`: a leaf whose box a ray's
// [0, length] enters (as box_entry computes it) lies within length of o up to the rounding of the
// slab distances, which the relative margin and a pad scaled by the coordinates cover.
GRANRAY_HD_INLINE float nearby_wall_reach(const WallTree& w, Vec3 o, float length) {
  if (w.count == 0) return 0.0f;  // capsules alone: no tree, no root
  const WallBox& root = w.nodes[1];
  const float scale = fabsf(o.x) + fabsf(o.y) + fabsf(o.z) + (root.hi.x - root.lo.x) +
                      (root.hi.y - root.lo.y) + (root.hi.z - root.lo.z);
  return length * 1.001f + 1e-4f * scale;
}

// The leaves of the tree (with a triangle) whose boxes lie within `reach` of o.
GRANRAY_HD_INLINE NearbyWallLeaves nearby_wall_leaves(const WallTree& w, Vec3 o, float reach) {
  NearbyWallLeaves near{{}, 0, false};
  if (w.count == 0) return near;
  const float reach2 = reach * reach;
  std::uint32_t stack[kWallStackDepth];
  int top = 0;
  stack[top++] = 1u;
  while (top > 0) {
    const std::uint32_t node = stack[--top];
    const WallBox& box = w.nodes[node];
    if (!(box.lo.x <= box.hi.x) || !(squared_distance_to(box, o) <= reach2)) continue;
    if (node >= w.leaves) {
      if (near.count == kNearbyWallLeaves) {
        near.overflow = true;
        return near;
      }
      near.node[near.count++] = node;
      continue;
    }
    stack[top++] = 2u * node + 1u;
    stack[top++] = 2u * node;
  }
  return near;
}

// wall_blocks(w, ray, length, skip_id) for a ray from the point whose leaves `near` holds, unit
// direction, length <= the one the leaves were found for. The walk tests a triangle when the ray's
// segment enters its leaf's box and every ancestor's; with finite non-zero direction components and
// reciprocals the slab distances are monotone in the box's faces, so entering the leaf's box means
// entering its ancestors' (which hold it): testing the nearby leaves' boxes, then their triangles,
// tests the walk's triangles with the walk's function, and the answer is an "or" over them. Any
// other direction, the reference's linear loop or too many leaves: the walk itself.
GRANRAY_HD_INLINE bool nearby_wall_blocks(const WallView& w, const NearbyWallLeaves& near,
                                          const Ray& ray, float length,
                                          std::uint64_t skip_id = kSkipNothing) {
  // The capsules are not in the tree: they have a walk of their own.
  if (capsule_blocks(w.capsules, ray, length, skip_id)) return true;
  if (near.count == 0 && !near.overflow) return false;  // no leaf near: nothing to test
  const BoxRay slabs = box_ray(ray);
  if (near.overflow || w.linear || !slabs.numbers_only) {  // numbers only: no zero component
    return triangle_blocks(w, ray, length, skip_id);
  }
  const WallTree& tree = w.opaque;
  for (int n = 0; n < near.count; ++n) {
    float enter = 0.0f;
    if (!box_entry(tree.nodes[near.node[n]], slabs, length, enter)) continue;
    const std::uint32_t first = (near.node[n] - tree.leaves) * kTrianglesPerLeaf;
    const std::uint32_t end =
        first + kTrianglesPerLeaf < tree.count ? first + kTrianglesPerLeaf : tree.count;
    for (std::uint32_t k = first; k < end; ++k) {
      const WallTriangle& tri = tree.triangles[k];
      if (!skipped_wall(tri, skip_id) && wall_distance(w, ray, tri) < length) return true;
    }
  }
  return false;
}

}  // namespace granray
