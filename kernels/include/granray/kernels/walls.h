// Walls (contract 2b) and clip planes (contract 2c) as the kernels see them: triangles in a
// bounding volume hierarchy built per wall set (kernels/src/backend/wall_tree.inl), nearest-hit and
// any-hit queries through it, and the brute-force loop over every triangle that the tests compare
// with.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "granray/kernels/camera_frame.h"
#include "granray/kernels/contact_capsules.h"
#include "granray/kernels/ray.h"
#include "granray/kernels/screen_tiles.h"

namespace granray {

// A frame's visible wall carries the id kWallIdBase + its triangle's index: after every
// particle's id, so that on equal depth a grain wins over a wall and a smaller triangle index
// over a larger one (contract 2b), in one rank's frame and when ranks composite their depth images.
constexpr std::uint64_t kWallIdBase = std::uint64_t{1} << 63;
static_assert(kWallIdBase == 2 * kCapsuleIdBase, "capsules' ids end where the walls' begin");

// A secondary ray's `skip_id` that names no sphere and no triangle: nothing is skipped.
constexpr std::uint64_t kSkipNothing = kWallIdBase + kNoHit;

// A half-space whose points x with dot(x - point, normal) > 0 are removed (contract 2c).
struct ClipPlane {
  Vec3 point;
  Vec3 normal;
};

// Whether two lists of clip planes are the same, bit for bit (host code: what a build was made
// with against what a frame asks).
inline bool same_clip_planes(const std::vector<ClipPlane>& a, const std::vector<ClipPlane>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const ClipPlane& x, const ClipPlane& y) {
                      return std::memcmp(&x, &y, sizeof(ClipPlane)) == 0;
                    });
}

GRANRAY_HD_INLINE bool clipped_by(const ClipPlane* planes, int count, Vec3 x) {
  for (int k = 0; k < count; ++k) {
    if (dot(x - planes[k].point, planes[k].normal) > 0.0f) return true;
  }
  return false;
}

// One triangle of the frame's walls, in the hierarchy's order. `index` is its place among all the
// frame's triangles (walls in order, each wall's triangles in order); `wall` is its wall's index,
// with kBackFacesOnly set when the wall shows only its triangles facing away from the camera and
// kSeeThrough when its opacity is below 1 (contract 2d).
struct WallTriangle {
  Vec3 a, b, c;
  std::uint32_t index;
  std::uint32_t wall;
};

constexpr std::uint32_t kBackFacesOnly = 0x80000000u;
constexpr std::uint32_t kSeeThrough = 0x40000000u;

GRANRAY_HD_INLINE std::uint32_t wall_of(const WallTriangle& tri) {
  return tri.wall & ~(kBackFacesOnly | kSeeThrough);
}
constexpr int kTrianglesPerLeaf = 2;  // 2: 5.5 G primary rays/s on an H100, 4: 4.8, 8: 4.0

struct WallBox {
  Vec3 lo, hi;
};

// One tree of a frame's walls: the triangles its camera shows (back-faces-only walls are
// filtered when the tree is built, shown_from). The hierarchy is a complete binary tree in heap
// order over them sorted by orientation, then along a Morton curve: node 1 is the root, node n has
// children 2n and 2n + 1, and leaf k (node leaves + k) holds triangles [2k, 2k + 2) of `triangles`.
struct WallTree {
  const WallBox* nodes;
  std::uint32_t leaves;  // a power of two
  const WallTriangle* triangles;
  std::uint32_t count;
};

// Whether a ray of direction dir meets the side of a surface that its normal n points away from.
GRANRAY_HD_INLINE bool meets_back(Vec3 n, Vec3 dir) { return dot(n, dir) > 0.0f; }

// A unit normal turned to face a ray of direction dir.
GRANRAY_HD_INLINE Vec3 turned_to_face(Vec3 n, Vec3 dir) {
  return meets_back(n, dir) ? n * -1.0f : n;
}

// A see-through triangle (contract 2d) as the layer test reads it, made once per build of the
// see-through tree: corner a, the unit normal by winding, and the two axes whose dot products
// with x - a are the barycentric coordinates (u, v) of a point x of the triangle's plane. Every
// path (tile list, tree, reference loop) reads the same facets, so they agree bit for bit.
struct SeeThroughFacet {
  Vec3 a;
  Vec3 normal;
  Vec3 u_axis, v_axis;
  std::uint32_t index;  // the triangle's WallTriangle::index
  std::uint32_t wall;   // its wall, without the flags
};

// A see-through facet's colour from each side, lit as a wall is without a highlight (contract 2d:
// S = A = 1) and clamped, and its wall's opacity. Without a highlight a layer's colour is its
// facet's and side's alone, so each frame works these out once and every layer looks them up.
// front: seen from where the normal points; back: from the other side.
struct FacetShade {
  Vec3 front, back;
  float opacity;
};

GRANRAY_HD_INLINE SeeThroughFacet see_through_facet(const WallTriangle& tri) {
  const Vec3 e1 = tri.b - tri.a, e2 = tri.c - tri.a;
  const Vec3 n = cross(e1, e2);
  const float inv_area2 = 1.0f / dot(n, n);  // a degenerate triangle's NaN axes meet no ray
  return {tri.a,     normalize(n), cross(e2, n) * inv_area2, cross(n, e1) * inv_area2,
          tri.index, wall_of(tri)};
}

// The distance t, 0 < t < limit, at which the ray meets the facet (either side), or +inf. The
// plane's distance t = num / facing and the barycentrics are tested scaled by `facing`, so that
// the rays that miss, and the layers behind what a ray shows, cost no division.
// meets_plane_inside: the caller knows that the barycentric test passes for this ray (its screen
// tile lies inside the facet's projection with a margin), which leaves the same t.
GRANRAY_HD_PIXEL_INLINE float facet_distance(const SeeThroughFacet& f, const Ray& ray, float limit,
                                             bool meets_plane_inside = false) {
  float facing = dot(f.normal, ray.dir);
  const Vec3 from_a = ray.origin - f.a;
  float num = -dot(f.normal, from_a);
  if (facing < 0.0f) {
    facing = -facing;
    num = -num;
  }
  if (!(facing > 0.0f && num > 0.0f && num < limit * facing)) return INFINITY;
  if (!meets_plane_inside) {
    const Vec3 p = from_a * facing + ray.dir * num;  // (x - a) facing at the plane's point x
    const float u = dot(f.u_axis, p), v = dot(f.v_axis, p);
    if (!(u >= 0.0f && v >= 0.0f && u + v <= facing)) return INFINITY;
  }
  const float t = num / facing;
  return t > 0.0f && t < limit ? t : INFINITY;
}

// See-through lists are kept per tile of 8 x 8 pixels, finer than the grains' 16 x 16: a box's
// edges and diagonals then leave fewer rays testing a triangle they miss, and more tiles lie
// wholly inside a triangle (kCoversTile).
constexpr int kSeeThroughTileShift = 3;
constexpr int kSeeThroughTileSize = 1 << kSeeThroughTileShift;

// The see-through triangles (slots into WallView::see_through) that may show in each see-through
// tile of the frame's window, in slot order: a primary ray tests its tile's few instead of
// walking the tree (kernels/src/see_through_binning.h). `offsets` null: no lists, rays walk the
// tree.
struct SeeThroughTiles {
  ScreenTiles tiles;
  const std::uint32_t* offsets;  // tile t's slots are [offsets[t], offsets[t + 1])
  const std::uint32_t* slots;    // with kCoversTile where the triangle covers the whole tile
  const float* nearest;  // per entry: every ray through the tile meets its plane at t >= this
};

// A tile's entry whose triangle's projection holds the whole tile with a margin wider than a
// pixel: every ray through the tile meets the triangle's inside, and skips that test.
constexpr std::uint32_t kCoversTile = 0x80000000u;

// The walls of one frame: the opaque ones, which hide what lies behind them and block secondary
// rays, and the see-through ones (contract 2d, opacity < 1), which block nothing and are composited
// over what each primary ray shows.
struct WallView {
  static constexpr bool present = true;
  WallTree opaque;
  WallTree see_through;
  const SeeThroughFacet* facets;  // per slot of see_through
  const Vec3* colors;             // per wall
  const float* opacity;           // per wall
  const FacetShade* shades;       // per slot of see_through, for this frame's light
  const ClipPlane* planes;
  int plane_count;
  bool linear;  // the reference: test every triangle in turn instead of walking the tree
  SeeThroughTiles see_through_tiles;
  const std::uint8_t* materials;  // contract 2e: per wall, a MaterialTable slot; null: all matte
  // contract 2g: the contact capsules, opaque and matte; they hide, block and shine as walls do.
  CapsuleView capsules;

  // Whether anything here hides what lies behind it.
  GRANRAY_HD bool any_opaque() const { return opaque.count > 0 || capsules.count > 0; }
};

// No walls: the kernels compile the wall tests away.
struct NoWalls {
  static constexpr bool present = false;
};

// Möller-Trumbore, both sides: the distance t > 0 at which the ray meets the triangle, or +inf.
// Every path calls this one function, so the hierarchy and the brute-force loop agree bit for bit.
GRANRAY_HD_INLINE float triangle_distance(const Ray& ray, Vec3 a, Vec3 b, Vec3 c) {
  const Vec3 e1 = b - a, e2 = c - a;
  const Vec3 p = cross(ray.dir, e2);
  const float det = dot(e1, p);
  if (det == 0.0f || !is_finite(det)) return INFINITY;
  const float inv = 1.0f / det;
  const Vec3 s = ray.origin - a;
  const float u = dot(s, p) * inv;
  if (!(u >= 0.0f && u <= 1.0f)) return INFINITY;
  const Vec3 q = cross(s, e1);
  const float v = dot(ray.dir, q) * inv;
  if (!(v >= 0.0f && u + v <= 1.0f)) return INFINITY;
  const float t = dot(e2, q) * inv;
  return t > 0.0f ? t : INFINITY;
}

// The triangle's unit normal by its winding (right-hand rule), turned to face the ray.
GRANRAY_HD_INLINE Vec3 facing_normal(const WallTriangle& tri, Vec3 dir) {
  return turned_to_face(normalize(cross(tri.b - tri.a, tri.c - tri.a)), dir);
}

// Whether the frame shows this triangle at all: a back-faces-only wall drops the triangles whose
// winding normal does not point away from the camera (for every ray, shadow and occlusion rays
// too: the near side of a closed container is simply not there). The eye for perspective, the
// direction of view for orthographic.
GRANRAY_HD_INLINE bool shown_from(const WallTriangle& tri, Vec3 eye, Vec3 view_dir,
                                  bool orthographic) {
  if ((tri.wall & kBackFacesOnly) == 0u) return true;
  const Vec3 n = cross(tri.b - tri.a, tri.c - tri.a);
  return dot(n, orthographic ? view_dir : tri.a - eye) > 0.0f;
}

// The distance at which the ray meets the triangle at a point no clip plane removes, or +inf.
GRANRAY_HD_INLINE float wall_distance(const WallView& w, const Ray& ray, const WallTriangle& tri) {
  const float t = triangle_distance(ray, tri.a, tri.b, tri.c);
  if (!(t < INFINITY)) return INFINITY;
  if (w.plane_count > 0 && clipped_by(w.planes, w.plane_count, ray.origin + ray.dir * t)) {
    return INFINITY;
  }
  return t;
}

// A ray as the box tests read it: its origin, reciprocal direction, and whether no slab distance
// it gives can be NaN (origin and direction finite, reciprocals finite: no 0 x inf, no inf - inf).
struct BoxRay {
  Vec3 origin;
  Vec3 inv;
  bool numbers_only;
};

GRANRAY_HD_INLINE BoxRay box_ray(const Ray& ray) {
  const Vec3 inv = reciprocal(ray.dir);
  const Vec3 o = ray.origin, d = ray.dir;
  const bool numbers_only = is_finite(o.x) && is_finite(o.y) && is_finite(o.z) && is_finite(d.x) &&
                            is_finite(d.y) && is_finite(d.z) && is_finite(inv.x) &&
                            is_finite(inv.y) && is_finite(inv.z);
  return {o, inv, numbers_only};
}

// The smaller and larger of two numbers that are not NaN (minss and maxss on the CPU).
GRANRAY_HD_INLINE float plain_min(float a, float b) { return a < b ? a : b; }
GRANRAY_HD_INLINE float plain_max(float a, float b) { return a > b ? a : b; }

// Where the ray is inside a box, as [enter, exit] (empty when enter > exit), from the reciprocal
// direction; NaN (a zero direction on a face's plane) leaves the axis to the others, which only
// ever widens the interval.
GRANRAY_HD_INLINE bool box_entry(const WallBox& box, const BoxRay& ray, float t_max, float& enter) {
  if (!(box.lo.x <= box.hi.x)) return false;  // a leaf past the last triangle
  const Vec3 o = ray.origin, inv = ray.inv;
  const float tx0 = (box.lo.x - o.x) * inv.x, tx1 = (box.hi.x - o.x) * inv.x;
  const float ty0 = (box.lo.y - o.y) * inv.y, ty1 = (box.hi.y - o.y) * inv.y;
  const float tz0 = (box.lo.z - o.z) * inv.z, tz1 = (box.hi.z - o.z) * inv.z;
  float lo, hi;
#if !defined(__CUDA_ARCH__)
  // A ray of numbers and a box of numbers (lo <= hi fails for NaN) give no NaN distance: plain
  // comparisons then give what the NaN-ignoring ones do, without the branches that cost the
  // CPU's walls walks a tenth of a lit frame (docs/benchmarks.md).
  if (ray.numbers_only && box.lo.y <= box.hi.y && box.lo.z <= box.hi.z) {
    lo = plain_max(plain_max(plain_min(tx0, tx1), plain_min(ty0, ty1)), plain_min(tz0, tz1));
    hi = plain_min(plain_min(plain_max(tx0, tx1), plain_max(ty0, ty1)), plain_max(tz0, tz1));
    lo = plain_max(lo, 0.0f);
    hi = plain_min(hi, t_max);
    enter = lo;
    return lo <= hi;
  }
#endif
  lo = nan_ignoring_max(nan_ignoring_max(nan_ignoring_min(tx0, tx1), nan_ignoring_min(ty0, ty1)),
                        nan_ignoring_min(tz0, tz1));
  hi = nan_ignoring_min(nan_ignoring_min(nan_ignoring_max(tx0, tx1), nan_ignoring_max(ty0, ty1)),
                        nan_ignoring_max(tz0, tz1));
  lo = nan_ignoring_max(lo, 0.0f);
  hi = nan_ignoring_min(hi, t_max);
  enter = lo;
  return lo <= hi;
}

// The nearest opaque wall along a ray: triangle `slot` of WallView::opaque, or capsule `capsule`
// of WallView::capsules, at distance t.
struct WallHit {
  float t;
  std::uint32_t slot;              // kNoHit: no triangle
  std::uint32_t capsule = kNoHit;  // kNoHit: no capsule

  GRANRAY_HD bool any() const { return slot != kNoHit || capsule != kNoHit; }
};

// The stack of a walk down the tree: the tree's depth is log2(leaves) < 32.
constexpr int kWallStackDepth = 34;

// Offers visit(k) every triangle slot k the ray may meet before limit(): every one in turn for
// the reference, else those of the leaves whose boxes it enters, nearer child first. visit may
// lower the limit, or return true to end the walk.
template <class Visit, class Limit>
GRANRAY_HD_INLINE void for_each_candidate(const WallTree& w, bool linear, const Ray& ray,
                                          Visit visit, Limit limit) {
  if (w.count == 0) return;
  if (linear) {
    for (std::uint32_t k = 0; k < w.count; ++k) {
      if (visit(k)) return;
    }
    return;
  }
  const BoxRay slabs = box_ray(ray);
  std::uint32_t stack[kWallStackDepth];
  int top = 0;
  float enter = 0.0f;
  if (!box_entry(w.nodes[1], slabs, limit(), enter)) return;
  stack[top++] = 1u;
  while (top > 0) {
    const std::uint32_t node = stack[--top];
    if (node >= w.leaves) {
      const std::uint32_t first = (node - w.leaves) * kTrianglesPerLeaf;
      const std::uint32_t end =
          first + kTrianglesPerLeaf < w.count ? first + kTrianglesPerLeaf : w.count;
      for (std::uint32_t k = first; k < end; ++k) {
        if (visit(k)) return;
      }
      continue;
    }
    float near_enter = 0.0f, far_enter = 0.0f;
    const std::uint32_t left = 2u * node, right = left + 1u;
    const bool l = box_entry(w.nodes[left], slabs, limit(), near_enter);
    const bool r = box_entry(w.nodes[right], slabs, limit(), far_enter);
    if (l && r) {
      // The farther child waits under the nearer one.
      const bool left_first = near_enter <= far_enter;
      stack[top++] = left_first ? right : left;
      stack[top++] = left_first ? left : right;
    } else if (l) {
      stack[top++] = left;
    } else if (r) {
      stack[top++] = right;
    }
  }
}

// Whether the triangle is the one a secondary ray skips: its own wall, behind it (skipped_id in
// lighting.h).
GRANRAY_HD_INLINE bool skipped_wall(const WallTriangle& tri, std::uint64_t skip_id) {
  return kWallIdBase + tri.index == skip_id;
}

// The nearest contact capsule or unclipped opaque triangle other than `skip_id`'s with t < limit
// (a sphere at `limit` wins the tie; a capsule wins over a triangle at equal t); among equal
// distances the smaller index.
GRANRAY_HD_INLINE WallHit nearest_wall(const WallView& w, const Ray& ray, float limit,
                                       std::uint64_t skip_id = kSkipNothing) {
  WallHit best{limit, kNoHit};
  const CapsuleHit capsule = nearest_capsule(w.capsules, ray, limit, skip_id);
  if (capsule.index != kNoHit) best = {capsule.t, kNoHit, capsule.index};
  if (w.opaque.count > 0) {  // none: see-through walls alone
    std::uint32_t best_index = kNoHit;
    for_each_candidate(
        w.opaque, w.linear, ray,
        [&](std::uint32_t k) {
          const WallTriangle& tri = w.opaque.triangles[k];
          if (skipped_wall(tri, skip_id)) return false;
          const float t = wall_distance(w, ray, tri);
          if (t < best.t || (t == best.t && best.slot != kNoHit && tri.index < best_index)) {
            best = {t, k};
            best_index = tri.index;
          }
          return false;
        },
        [&] { return best.t; });
  }
  if (!best.any()) best.t = INFINITY;
  return best;
}

// The base colour of a wall's triangle.
GRANRAY_HD_INLINE Vec3 wall_color(const WallView& w, const WallTriangle& tri) {
  return w.colors[wall_of(tri)];
}

// Whether an unclipped opaque triangle other than `skip_id`'s meets the ray at 0 < t < length.
GRANRAY_HD_INLINE bool triangle_blocks(const WallView& w, const Ray& ray, float length,
                                       std::uint64_t skip_id) {
  bool blocked = false;
  for_each_candidate(
      w.opaque, w.linear, ray,
      [&](std::uint32_t k) {
        const WallTriangle& tri = w.opaque.triangles[k];
        blocked = !skipped_wall(tri, skip_id) && wall_distance(w, ray, tri) < length;
        return blocked;
      },
      [&] { return length; });
  return blocked;
}

// Whether a contact capsule or an unclipped opaque triangle other than `skip_id`'s meets the ray
// at 0 < t < length (shadow and occlusion rays; see-through walls block none).
GRANRAY_HD_INLINE bool wall_blocks(const WallView& w, const Ray& ray, float length,
                                   std::uint64_t skip_id = kSkipNothing) {
  return capsule_blocks(w.capsules, ray, length, skip_id) ||
         triangle_blocks(w, ray, length, skip_id);
}

}  // namespace granray
