// The CPU's occlusion rays against the walls' leaves near a point (nearby_walls.h) give the walk
// down the tree's answer for every ray, bit for bit: random trees over containers and triangle
// soups, points on, near and far from the walls, directions with zero components and lengths
// from nothing to across the scene.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "granray/kernels/nearby_walls.h"
#include "test_support.h"

namespace granray::test {
namespace {

WallBox join(WallBox a, WallBox b) {
  return {{std::min(a.lo.x, b.lo.x), std::min(a.lo.y, b.lo.y), std::min(a.lo.z, b.lo.z)},
          {std::max(a.hi.x, b.hi.x), std::max(a.hi.y, b.hi.y), std::max(a.hi.z, b.hi.z)}};
}

// A tree shaped as the backend's (complete, heap order, two triangles a leaf, leaf boxes grown by
// a pad, empty leaves inverted), over the triangles in the order given.
struct HostWallTree {
  std::vector<WallTriangle> triangles;
  std::vector<WallBox> nodes;
  std::uint32_t leaves = 1;

  explicit HostWallTree(std::vector<WallTriangle> t, float pad) : triangles(std::move(t)) {
    const auto count = static_cast<std::uint32_t>(triangles.size());
    while (leaves * kTrianglesPerLeaf < count) leaves *= 2;
    const WallBox empty{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    nodes.assign(2 * leaves, empty);
    for (std::uint32_t k = 0; k < leaves; ++k) {
      WallBox box = empty;
      for (std::uint32_t i = k * kTrianglesPerLeaf; i < (k + 1) * kTrianglesPerLeaf && i < count;
           ++i) {
        const WallTriangle& tri = triangles[i];
        for (const Vec3 v : {tri.a, tri.b, tri.c}) box = join(box, {v, v});
      }
      if (box.lo.x <= box.hi.x) {
        box.lo = box.lo - Vec3{pad, pad, pad};
        box.hi = box.hi + Vec3{pad, pad, pad};
      }
      nodes[leaves + k] = box;
    }
    for (std::uint32_t n = leaves - 1; n >= 1; --n) nodes[n] = join(nodes[2 * n], nodes[2 * n + 1]);
  }

  WallView view() const {
    WallView w{};
    w.opaque = {nodes.data(), leaves, triangles.data(),
                static_cast<std::uint32_t>(triangles.size())};
    w.see_through = {nullptr, 1, nullptr, 0};
    w.linear = false;
    return w;
  }
};

// An axis-aligned box's twelve triangles, from lo to hi.
void add_box(std::vector<WallTriangle>& out, Vec3 lo, Vec3 hi) {
  const auto corner = [&](int k) {
    return Vec3{k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
  };
  const int faces[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                           {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
  for (const auto& f : faces) {
    const auto index = static_cast<std::uint32_t>(out.size());
    out.push_back({corner(f[0]), corner(f[1]), corner(f[2]), index, 0u});
    out.push_back({corner(f[0]), corner(f[2]), corner(f[3]), index + 1, 0u});
  }
}

TEST(NearbyWalls, RaysGiveTheWalksAnswerBitForBit) {
  const std::uint64_t seed = fresh_seed();
  Rng rng(seed);
  int blocked = 0, rays = 0;
  for (int scene = 0; scene < 40; ++scene) {
    std::vector<WallTriangle> triangles;
    const float size = uniform(rng, 0.05f, 20.0f);
    const Vec3 lo = {uniform(rng, -size, size), uniform(rng, -size, size),
                     uniform(rng, -size, size)};
    const Vec3 hi = lo + Vec3{uniform(rng, 0.2f, 1.0f) * size, uniform(rng, 0.2f, 1.0f) * size,
                              uniform(rng, 0.2f, 1.0f) * size};
    add_box(triangles, lo, hi);
    const int soup = static_cast<int>(rng() % 40);
    for (int k = 0; k < soup; ++k) {
      const Vec3 a = {uniform(rng, lo.x, hi.x), uniform(rng, lo.y, hi.y), uniform(rng, lo.z, hi.z)};
      const float s = uniform(rng, 0.01f, 0.5f) * size;
      const Vec3 b = a + Vec3{uniform(rng, -s, s), uniform(rng, -s, s), uniform(rng, -s, s)};
      const Vec3 c = a + Vec3{uniform(rng, -s, s), uniform(rng, -s, s), uniform(rng, -s, s)};
      triangles.push_back({a, b, c, static_cast<std::uint32_t>(triangles.size()), 0u});
    }
    std::shuffle(triangles.begin(), triangles.end(), rng);
    const HostWallTree tree(triangles, (rng() % 2) ? 1e-5f * size : 0.0f);
    const WallView walls = tree.view();
    for (int point = 0; point < 200; ++point) {
      Vec3 o = {uniform(rng, lo.x - 0.2f * size, hi.x + 0.2f * size),
                uniform(rng, lo.y - 0.2f * size, hi.y + 0.2f * size),
                uniform(rng, lo.z - 0.2f * size, hi.z + 0.2f * size)};
      if (point % 4 == 0) o.x = (rng() % 2) ? lo.x : hi.x;  // on a face's plane
      if (point % 8 == 1) o.z = lo.z;
      const float length = uniform(rng, 0.0f, 1.5f) * size * (point % 5 == 0 ? 0.05f : 1.0f);
      const NearbyWallLeaves near =
          nearby_wall_leaves(walls.opaque, o, nearby_wall_reach(walls.opaque, o, length));
      for (int ray = 0; ray < 16; ++ray) {
        Vec3 d = {uniform(rng, -1.0f, 1.0f), uniform(rng, -1.0f, 1.0f), uniform(rng, -1.0f, 1.0f)};
        if (ray % 4 == 1) d.x = 0.0f;  // along a face
        if (ray % 8 == 2) d = {0.0f, 0.0f, (rng() % 2) ? 1.0f : -1.0f};
        if (ray % 8 == 3) d.y = 1e-39f;  // a reciprocal that overflows
        const float norm = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        if (!(norm > 0.0f)) continue;
        const Ray r{o, d * (1.0f / norm)};
        const bool walked = wall_blocks(walls, r, length);
        ASSERT_EQ(nearby_wall_blocks(walls, near, r, length), walked)
            << "seed " << seed << ", scene " << scene << ", point " << point << ", ray " << ray;
        blocked += walked ? 1 : 0;
        ++rays;
      }
    }
  }
  // Both answers occur often: the test is not passed by rays that meet nothing.
  EXPECT_GT(blocked, rays / 10) << "seed " << seed;
  EXPECT_LT(blocked, rays * 9 / 10) << "seed " << seed;
}

// The box test's plain comparisons (rays and boxes of numbers) give what its NaN-ignoring ones
// give: the same answer and entry, on boxes that are flat, inverted (empty) or reach infinity.
TEST(NearbyWalls, PlainBoxTestsEqualTheNanIgnoringOnes) {
  const std::uint64_t seed = fresh_seed();
  Rng rng(seed);
  int entered = 0;
  for (int k = 0; k < 200000; ++k) {
    Vec3 a = {uniform(rng, -2, 2), uniform(rng, -2, 2), uniform(rng, -2, 2)};
    Vec3 b = a + Vec3{uniform(rng, 0, 1), uniform(rng, 0, 1), uniform(rng, 0, 1)};
    if (k % 5 == 0) b.z = a.z;            // flat
    if (k % 7 == 0) std::swap(a.y, b.y);  // inverted on one axis
    if (k % 11 == 0) b.x = INFINITY;      // unbounded
    const WallBox box{a, b};
    Vec3 o = {uniform(rng, -3, 3), uniform(rng, -3, 3), uniform(rng, -3, 3)};
    if (k % 3 == 0) o.y = a.y;  // on a face's plane
    // A direction of numbers: a component drawn as 0 (or so small its reciprocal overflows) is
    // drawn again, as the plain test is for such rays alone.
    const auto component = [&rng] {
      float c = 0.0f;
      while (!std::isfinite(1.0f / c)) c = uniform(rng, -1, 1);
      return c;
    };
    const Ray ray{o, {component(), component(), component()}};
    const BoxRay plain = box_ray(ray);
    ASSERT_TRUE(plain.numbers_only);
    const BoxRay ignoring{plain.origin, plain.inv, false};
    const float t_max = (k % 2) ? INFINITY : uniform(rng, 0, 4);
    float enter_plain = -1.0f, enter_ignoring = -1.0f;
    const bool in_plain = box_entry(box, plain, t_max, enter_plain);
    const bool in_ignoring = box_entry(box, ignoring, t_max, enter_ignoring);
    ASSERT_EQ(in_plain, in_ignoring) << "seed " << seed << ", box " << k;
    if (in_plain) {
      ASSERT_EQ(enter_plain, enter_ignoring) << "seed " << seed << ", box " << k;
      ++entered;
    }
  }
  EXPECT_GT(entered, 1000) << "seed " << seed;
}

// The leaves found hold every leaf that a ray of the length may enter, and no more than the cap:
// a point inside a box of many small triangles overflows to the walk.
TEST(NearbyWalls, ManyLeavesNearAPointOverflowToTheWalk) {
  std::vector<WallTriangle> triangles;
  for (int k = 0; k < 64; ++k) {
    const float x = 0.01f * static_cast<float>(k);
    triangles.push_back({{x, 0, 0}, {x, 1, 0}, {x, 0, 1}, static_cast<std::uint32_t>(k), 0u});
  }
  const HostWallTree tree(triangles, 0.0f);
  const WallView walls = tree.view();
  const Vec3 o = {0.3f, 0.2f, 0.2f};
  const NearbyWallLeaves far = nearby_wall_leaves(walls.opaque, {5.0f, 5.0f, 5.0f}, 0.5f);
  EXPECT_EQ(far.count, 0);
  EXPECT_FALSE(far.overflow);
  const NearbyWallLeaves few = nearby_wall_leaves(walls.opaque, o, 0.015f);
  EXPECT_FALSE(few.overflow);
  EXPECT_GE(few.count, 1);
  EXPECT_LE(few.count, 3);
  const NearbyWallLeaves many = nearby_wall_leaves(walls.opaque, o, 0.5f);
  EXPECT_TRUE(many.overflow);
  const Ray along{o, {1.0f, 0.0f, 0.0f}};
  EXPECT_TRUE(nearby_wall_blocks(walls, many, along, 0.5f));
  EXPECT_FALSE(nearby_wall_blocks(walls, few, Ray{o, {0.0f, 1.0f, 0.0f}}, 0.015f));
}

}  // namespace
}  // namespace granray::test
