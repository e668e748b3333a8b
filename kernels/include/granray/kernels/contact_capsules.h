// A frame's contact capsules (contract 2g) as the kernels see them, and the two questions every
// pass asks of them: the nearest capsule along a ray, and whether one blocks a secondary ray.
// They ride with the walls (WallView::capsules), so every pass that meets walls meets capsules.
#pragma once

#include <cstdint>

#include "granray/kernels/capsule.h"
#include "granray/kernels/dda.h"
#include "granray/kernels/ray.h"

namespace granray {

// A capsule's surface id: kCapsuleIdBase + its key, above every grain's id and below every wall's
// (kWallIdBase), so that (t, id) orders equal distances as 2g does: a sphere, then a capsule,
// then a triangle, and among capsules the smaller key. Grain ids stay below it (contract 1's ids
// are far smaller).
constexpr std::uint64_t kCapsuleIdBase = std::uint64_t{1} << 62;

// A capsule's key where both its grains' ids are below 2^31: the smaller id above the larger, the
// same on any number of ranks and whatever order the pairs arrive in, with no order to make.
constexpr std::uint64_t kMostPackedGrainId = (std::uint64_t{1} << 31) - 1u;
GRANRAY_HD_INLINE std::uint64_t packed_capsule_key(std::uint64_t low_id, std::uint64_t high_id) {
  return (low_id << 31) | high_id;
}

// The capsules of one frame, one per pair of the frame's contacts (radius 0: a pair not drawn,
// below the threshold or broken, or hidden whole by its grains). `grid` lists each capsule
// (ref_index) in every cell that its box overlaps, or once in its midpoint's cell with the walk
// growing the cells by the largest listed capsule's bounding sphere, so that a walk meets every
// capsule its ray meets; `linear`: the reference, which tests every capsule.
struct CapsuleView {
  GridView grid;
  const Capsule* capsules;
  const Vec3* colors;  // each capsule's base colour (its pair's value through the colormap)
  // Each capsule's key (its id above kCapsuleIdBase, and its place among equal distances):
  // packed_capsule_key of its grains' ids where they fit, else its place in the pairs' order by
  // those ids (ContactOrder). Two pairs of the same grains share a key; the earlier pair given
  // then comes first.
  const std::uint64_t* keys;
  std::uint32_t count;  // 0: none
  bool linear;
};

// Whether a surface id is a capsule's: [kCapsuleIdBase, 2 kCapsuleIdBase), below the walls' ids.
GRANRAY_HD_INLINE bool is_capsule_id(std::uint64_t id) { return (id >> 62) == 1u; }

GRANRAY_HD_INLINE std::uint64_t capsule_id(const CapsuleView& view, std::uint32_t k) {
  return kCapsuleIdBase + view.keys[k];
}

struct CapsuleHit {
  float t;
  std::uint32_t index;  // kNoHit: none
};

// Capsule a before capsule b at equal distances.
GRANRAY_HD_INLINE bool capsule_first(const CapsuleView& view, std::uint32_t a, std::uint32_t b) {
  const std::uint64_t ka = view.keys[a], kb = view.keys[b];
  return ka < kb || (ka == kb && a < b);
}

// The nearest capsule met walking the grid, front to back; one whose hit lies inside a cell is
// listed there, so once the best is nearer than the next grown cell it is final. With `any`
// (shadow and occlusion rays) the first capsule found before the limit ends the walk.
struct NearestCapsule {
  const CapsuleView& view;
  const Ray& ray;
  std::uint64_t skip_id;
  bool any;
  CapsuleHit best;

  GRANRAY_HD bool found() const { return any && best.index != kNoHit; }
  GRANRAY_HD bool done_before(float t) const { return best.t < t || found(); }
  GRANRAY_HD void take(std::uint32_t k) {
    const Capsule& c = view.capsules[k];
    if (!(c.radius > 0.0f)) return;  // a pair not drawn
    const float t = capsule_entry_distance(ray, c);
    const bool nearer =
        t < best.t || (t == best.t && best.index != kNoHit && capsule_first(view, k, best.index));
    // The key is read only for a capsule that would be taken (most are missed), and only where
    // the ray leaves a capsule.
    if (nearer && (!is_capsule_id(skip_id) || capsule_id(view, k) != skip_id)) best = {t, k};
  }
  GRANRAY_HD void visit(std::uint32_t first_cell, std::uint32_t last_cell) {
    const std::uint32_t end = view.grid.cell_offsets[last_cell + 1];
    for (std::uint32_t r = view.grid.cell_offsets[first_cell]; r < end && !found(); ++r) {
      take(view.grid.ref_index[r]);
    }
  }
};

// The nearest capsule other than skip_id's with t < limit (a sphere at `limit` wins the tie);
// among equal distances the first (capsule_first). With `any`, some capsule before the limit.
GRANRAY_HD_INLINE CapsuleHit nearest_capsule(const CapsuleView& view, const Ray& ray, float limit,
                                             std::uint64_t skip_id, bool any = false) {
  if (view.count == 0) return {INFINITY, kNoHit};
  NearestCapsule nearest{view, ray, skip_id, any, {limit, kNoHit}};
  if (view.linear) {
    for (std::uint32_t k = 0; k < view.count && !nearest.found(); ++k) nearest.take(k);
  } else {
    walk_grown_cells(view.grid.geometry, ray, 0.0f, limit, nearest);
  }
  if (nearest.best.index == kNoHit) nearest.best.t = INFINITY;
  return nearest.best;
}

// Whether a capsule other than skip_id's meets the ray at 0 < t < length.
GRANRAY_HD_INLINE bool capsule_blocks(const CapsuleView& view, const Ray& ray, float length,
                                      std::uint64_t skip_id) {
  return nearest_capsule(view, ray, length, skip_id, true).index != kNoHit;
}

// The sphere that stands for capsule k at its hit t along the ray: centred on the segment's point
// q nearest the hit, of the capsule's radius. 2g shades a capsule as this sphere (normal from q)
// and starts its secondary rays at q + n rho (1 + 1e-4), as a sphere's.
GRANRAY_HD_INLINE Vec4 capsule_hit_sphere(const Capsule& c, const Ray& ray, float t) {
  const Vec3 q = nearest_on_segment(c, ray.origin + ray.dir * t);
  return {q.x, q.y, q.z, c.radius};
}

}  // namespace granray
