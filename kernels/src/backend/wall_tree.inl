// The walls' hierarchy (kernels/walls.h): the functors that place the triangles along a Morton
// curve and box them level by level, and the part that owns one tree's arrays. Part of the backend
// (thrust_backend.inl).
//
// The triangles are sorted by orientation, then along a Morton curve of their centroids, and cut
// into leaves of two; a complete binary tree over the leaves in heap order needs no topology at
// all, and its boxes are filled level by level from the leaves up, one parallel pass per level (17
// passes for 100,000 triangles). Everything runs on the backend, so triangles the simulation holds
// in device memory are read in place, like its grains. docs/design.md says why a tree and not a
// second grid.
#pragma once

#include "backend_prelude.inl"
#include "granray/kernels/see_through.h"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

struct TriangleBoxOf {
  const WallTriangle* triangles;
  GRANRAY_HD WallBox operator()(std::uint32_t i) const {
    const WallTriangle& t = triangles[i];
    return {{nan_ignoring_min(t.a.x, nan_ignoring_min(t.b.x, t.c.x)),
             nan_ignoring_min(t.a.y, nan_ignoring_min(t.b.y, t.c.y)),
             nan_ignoring_min(t.a.z, nan_ignoring_min(t.b.z, t.c.z))},
            {nan_ignoring_max(t.a.x, nan_ignoring_max(t.b.x, t.c.x)),
             nan_ignoring_max(t.a.y, nan_ignoring_max(t.b.y, t.c.y)),
             nan_ignoring_max(t.a.z, nan_ignoring_max(t.b.z, t.c.z))}};
  }
};

GRANRAY_HD_INLINE WallBox empty_wall_box() {
  return {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
}

struct JoinWallBoxes {
  GRANRAY_HD WallBox operator()(const WallBox& a, const WallBox& b) const {
    return {{nan_ignoring_min(a.lo.x, b.lo.x), nan_ignoring_min(a.lo.y, b.lo.y),
             nan_ignoring_min(a.lo.z, b.lo.z)},
            {nan_ignoring_max(a.hi.x, b.hi.x), nan_ignoring_max(a.hi.y, b.hi.y),
             nan_ignoring_max(a.hi.z, b.hi.z)}};
  }
};

// The simulation's triangles (or the uploaded ones) as the hierarchy's records.
struct ToWallTriangles {
  const Triangle* from;
  std::uint32_t first_index;
  std::uint32_t wall;  // with kBackFacesOnly and kSeeThrough
  WallTriangle* to;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    const Triangle& t = from[i];
    to[first_index + i] = {t.a, t.b, t.c, first_index + i, wall};
  }
};

// Up to ten bits of a coordinate spread out to every third bit.
GRANRAY_HD_INLINE std::uint32_t spread_bits(std::uint32_t x) {
  x = (x | (x << 16)) & 0x030000ffu;
  x = (x | (x << 8)) & 0x0300f00fu;
  x = (x | (x << 4)) & 0x030c30c3u;
  x = (x | (x << 2)) & 0x09249249u;
  return x;
}

// A triangle's key: the axis and sign its normal leans to most (3 bits), then a Morton code of
// its centroid (9 bits per axis). Orientation first keeps a container's floor and its side in
// different subtrees: mixed, their boxes are as tall as the side and as wide as the floor, and a
// ray walks many of them before the grain it hits prunes the rest.
struct MortonKeyOf {
  const WallTriangle* triangles;
  WallBox box;
  GRANRAY_HD std::uint32_t operator()(std::uint32_t i) const {
    const WallTriangle& t = triangles[i];
    const Vec3 c = (t.a + t.b + t.c) * (1.0f / 3.0f);
    const Vec3 n = cross(t.b - t.a, t.c - t.a);
    const float ax = fabsf(n.x), ay = fabsf(n.y), az = fabsf(n.z);
    const std::uint32_t axis = ax >= ay && ax >= az ? 0u : (ay >= az ? 1u : 2u);
    const float along = axis == 0u ? n.x : (axis == 1u ? n.y : n.z);
    const std::uint32_t orientation = 2u * axis + (along < 0.0f ? 1u : 0u);
    const auto bits = [](float x, float lo, float hi) {
      const float f = hi > lo ? (x - lo) / (hi - lo) : 0.0f;
      return static_cast<std::uint32_t>(nan_ignoring_min(nan_ignoring_max(f, 0.0f), 1.0f) * 511.0f);
    };
    return (orientation << 27) | (spread_bits(bits(c.x, box.lo.x, box.hi.x)) << 2) |
           (spread_bits(bits(c.y, box.lo.y, box.hi.y)) << 1) |
           spread_bits(bits(c.z, box.lo.z, box.hi.z));
  }
};

// Leaf k's box, grown by `pad` on every side so that a hit on its face is never lost to the
// rounding of the box test; empty past the last triangle.
struct LeafBoxOf {
  const WallTriangle* triangles;
  std::uint32_t count;
  float pad;
  std::uint32_t leaves;
  WallBox* nodes;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    WallBox box = empty_wall_box();
    const std::uint32_t first = k * kTrianglesPerLeaf;
    for (std::uint32_t i = first; i < first + kTrianglesPerLeaf && i < count; ++i) {
      box = JoinWallBoxes{}(box, TriangleBoxOf{triangles}(i));
    }
    if (box.lo.x <= box.hi.x) {
      box.lo = box.lo - Vec3{pad, pad, pad};
      box.hi = box.hi + Vec3{pad, pad, pad};
    }
    nodes[leaves + k] = box;
  }
};

// One level of the tree from the level below: nodes [first, 2 first).
struct ParentBoxOf {
  std::uint32_t first;
  WallBox* nodes;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    const std::uint32_t node = first + i;
    nodes[node] = JoinWallBoxes{}(nodes[2u * node], nodes[2u * node + 1u]);
  }
};

// A frame's clip planes drop the grains whose centre lies beyond one: they become unrenderable

struct ShownFrom {
  Vec3 eye;
  Vec3 view_dir;
  bool orthographic;
  GRANRAY_HD bool operator()(const WallTriangle& t) const {
    return shown_from(t, eye, view_dir, orthographic);
  }
};

struct FacetOf {
  GRANRAY_HD SeeThroughFacet operator()(const WallTriangle& t) const {
    return see_through_facet(t);
  }
};

struct ShadeOfFacet {
  const Vec3* colors;
  const float* opacity;
  ShadingParams shading;
  GRANRAY_HD FacetShade operator()(const SeeThroughFacet& f) const {
    return facet_shade(f, colors[f.wall], opacity[f.wall], shading);
  }
};

struct IsOpaque {
  GRANRAY_HD bool operator()(const WallTriangle& t) const { return (t.wall & kSeeThrough) == 0u; }
};

// One tree (kernels/walls.h) over a run of triangles, built again for each new run.
class WallTreeArrays {
 public:
  explicit WallTreeArrays(detail::MemoryAccount& account)
      : keys_(account, "wall triangle keys"),
        order_(account, "wall triangle order"),
        triangles_(account, "wall triangles in tree order"),
        nodes_(account, "wall tree") {}

  void build(const Executor& exec, const WallTriangle* shown, std::uint32_t n) {
    count_ = n;
    if (n == 0) return;
    auto policy = exec.policy();
    const WallBox box = thrust::transform_reduce(policy, Index(0), Index(n), TriangleBoxOf{shown},
                                                 empty_wall_box(), JoinWallBoxes{});
    keys_.resize(n);
    order_.resize(n);
    thrust::transform(policy, Index(0), Index(n), keys_.data(), MortonKeyOf{shown, box});
    thrust::sequence(policy, order_.data(), order_.data() + n);
    thrust::sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
    triangles_.resize(n);
    thrust::gather(policy, order_.data(), order_.data() + n, shown, triangles_.data());
    const std::uint32_t leaf_count = (n + kTrianglesPerLeaf - 1) / kTrianglesPerLeaf;
    leaves_ = 1;
    while (leaves_ < leaf_count) leaves_ *= 2;
    nodes_.resize(2 * std::size_t{leaves_});
    const Vec3 extent = box.hi - box.lo;
    const float pad = 1e-5f * sqrtf(dot(extent, extent)) + 1e-30f;
    thrust::for_each_n(policy, Index(0), leaves_,
                       LeafBoxOf{triangles_.data(), n, pad, leaves_, nodes_.data()});
    for (std::uint32_t first = leaves_ / 2; first >= 1; first /= 2) {
      thrust::for_each_n(policy, Index(0), first, ParentBoxOf{first, nodes_.data()});
    }
  }

  void clear() { count_ = 0; }
  std::uint32_t count() const { return count_; }
  WallTree view() const { return {nodes_.data(), leaves_, triangles_.data(), count_}; }

 private:
  Array<std::uint32_t> keys_;
  Array<std::uint32_t> order_;
  Array<WallTriangle> triangles_;
  Array<WallBox> nodes_;
  std::uint32_t leaves_ = 0;
  std::uint32_t count_ = 0;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
