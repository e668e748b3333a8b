// The screen-tile lists of see-through triangles (kernels/src/see_through_binning.h) must hold,
// for every pixel, every triangle that a ray through any point of the pixel meets: the
// see-through layers are exact only if they do. Checked ray by ray (pixel centres and random
// points of each pixel, as antialiasing samples them) on random cameras and windows, with
// triangles in view, off screen, edge-on, tiny, huge, across the eye's plane and behind it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "granray/camera.h"
#include "granray/kernels/walls.h"
#include "see_through_binning.h"
#include "test_support.h"

namespace granray::test {
namespace {

// A point around the camera's view: from behind the eye out past the target.
Vec3 random_point(Rng& rng, const CameraFrame& cam, float spread) {
  return cam.eye - cam.w * uniform(rng, -3.0f, 12.0f) + cam.u * uniform(rng, -spread, spread) +
         cam.v * uniform(rng, -spread, spread);
}

WallTriangle random_triangle(Rng& rng, const CameraFrame& cam, std::uint32_t index) {
  WallTriangle t{};
  t.index = index;
  const int kind = static_cast<int>(rng() % 6);
  const Vec3 a = random_point(rng, cam, uniform(rng, 0.0f, 6.0f));
  // Tiny, huge, a sliver, or edge-on to the eye (its plane through the eye).
  const float size = kind == 0 ? uniform(rng, 1e-4f, 1e-2f) : uniform(rng, 0.05f, 8.0f);
  const Vec3 d1{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)};
  const Vec3 d2{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)};
  t.a = a;
  t.b = a + d1 * size;
  if (kind == 1) {
    t.c = a + d1 * (size * uniform(rng, 0.2f, 0.8f)) + d2 * (size * 1e-3f);
  } else if (kind == 2) {
    t.c = a + (a - cam.eye) * uniform(rng, 0.1f, 0.5f);  // in the plane of the eye, a and b
  } else {
    t.c = a + d2 * size;
  }
  return t;
}

TEST(SeeThroughBinning, ATilesListHoldsEveryTriangleARayThroughItsPixelsMeets) {
  Rng rng(fresh_seed());
  std::size_t hits = 0, pairs = 0, listed = 0, everywhere_rounds = 0, covered = 0, bounded = 0;
  for (int round = 0; round < 40; ++round) {
    const CameraFrame cam = random_camera_frame(rng, round % 3 == 0, true);
    const auto n = std::uniform_int_distribution<std::uint32_t>(1, 60)(rng);
    std::vector<WallTriangle> triangles;
    for (std::uint32_t k = 0; k < n; ++k) triangles.push_back(random_triangle(rng, cam, k));
    detail::SeeThroughBins bins;
    ASSERT_TRUE(detail::bin_see_through(cam, triangles.data(), n, ~std::uint64_t{0}, bins));
    ASSERT_TRUE(std::all_of(bins.nearest.begin(), bins.nearest.end(),
                            [](float bound) { return bound == 0.0f; }));
    detail::bound_see_through(cam, triangles.data(), n, bins);
    const ScreenTiles tiles = screen_tiles_of(cam, kSeeThroughTileShift);
    ASSERT_EQ(bins.offsets.size(), screen_tile_count(cam, kSeeThroughTileShift) + 1);
    ASSERT_EQ(bins.offsets.back(), bins.slots.size());
    pairs += screen_tile_count(cam, kSeeThroughTileShift) * n;
    listed += bins.slots.size();
    everywhere_rounds += bins.slots.size() >= screen_tile_count(cam, kSeeThroughTileShift);
    std::vector<SeeThroughFacet> facets;
    for (const WallTriangle& t : triangles) facets.push_back(see_through_facet(t));
    // The lists without their kCoversTile bits.
    std::vector<std::uint32_t> slots;
    for (const std::uint32_t entry : bins.slots) {
      slots.push_back(entry & ~kCoversTile);
      covered += (entry & kCoversTile) != 0u;
    }
    ASSERT_EQ(bins.nearest.size(), bins.slots.size());
    for (const float bound : bins.nearest) bounded += bound > 0.0f;
    for (int j = 0; j < cam.height; ++j) {
      for (int i = 0; i < cam.width; ++i) {
        const std::uint32_t tile = tile_of_pixel(tiles, i, j, kSeeThroughTileShift);
        const auto first = slots.begin() + bins.offsets[tile];
        const auto last = slots.begin() + bins.offsets[tile + 1];
        ASSERT_TRUE(std::is_sorted(first, last));
        for (int s = 0; s < 5; ++s) {
          const Ray ray = s == 0 ? primary_ray(cam, i, j)
                                 : sample_ray(cam, i, j, uniform(rng, 0.0f, 0.9999f),
                                              uniform(rng, 0.0f, 0.9999f));
          for (std::uint32_t e = bins.offsets[tile]; e < bins.offsets[tile + 1]; ++e) {
            const SeeThroughFacet& f = facets[slots[e]];
            // No ray through the tile meets the triangle's plane nearer than the entry's bound.
            const float t_plane = facet_distance(f, ray, INFINITY, true);
            if (t_plane < INFINITY) {
              ASSERT_GE(t_plane, bins.nearest[e])
                  << "triangle " << slots[e] << " in tile " << tile << ", ray through (" << i
                  << " + dx, " << j << " + dy), sample " << s
                  << (cam.orthographic ? ", ortho" : ", perspective");
            }
            // A triangle that covers the tile meets this ray inside, at the same distance.
            if (!(bins.slots[e] & kCoversTile)) continue;
            const float t = facet_distance(f, ray, INFINITY);
            ASSERT_TRUE(t < INFINITY)
                << "triangle " << slots[e] << " is marked as covering tile " << tile
                << " but the ray through (" << i << " + dx, " << j << " + dy), sample " << s
                << ", misses it" << (cam.orthographic ? ", ortho" : ", perspective");
            ASSERT_EQ(t, facet_distance(f, ray, INFINITY, true));
          }
          for (std::uint32_t k = 0; k < n; ++k) {
            // The kernels' layer test.
            if (!(facet_distance(facets[k], ray, INFINITY) < INFINITY)) continue;
            ++hits;
            ASSERT_TRUE(std::binary_search(first, last, k))
                << "the ray through (" << i << " + dx, " << j << " + dy), sample " << s
                << ", meets triangle " << k << " missing from tile " << tile << "'s list"
                << (cam.orthographic ? ", ortho" : ", perspective") << ", window at (" << cam.x0
                << ", " << cam.y0 << ")";
          }
        }
      }
    }
  }
  // Every case was reached, and the lists leave most (tile, triangle) pairs out.
  EXPECT_GT(hits, 20000u);
  EXPECT_GT(everywhere_rounds, 0u);
  EXPECT_GT(covered, 20u) << "few tiles are marked as covered by a triangle";
  EXPECT_GT(bounded, 1000u) << "few entries bound their triangle's distance";
  EXPECT_LT(listed, pairs / 2) << "the lists hold nearly every triangle in every tile";
}

TEST(SeeThroughBinning, ListsLargerThanTheLimitAreRefused) {
  Rng rng(fresh_seed());
  const CameraFrame cam = random_camera_frame(rng, false, true);
  std::vector<WallTriangle> triangles;
  // A triangle across the eye's plane goes into every tile.
  WallTriangle across{};
  across.a = cam.eye + cam.w * 1.0f + cam.u * 0.5f;
  across.b = cam.eye - cam.w * 5.0f;
  across.c = cam.eye - cam.w * 5.0f + cam.v * 2.0f;
  triangles.push_back(across);
  detail::SeeThroughBins bins;
  const std::uint64_t tiles = screen_tile_count(cam, kSeeThroughTileShift);
  EXPECT_TRUE(detail::bin_see_through(cam, triangles.data(), 1, tiles, bins));
  EXPECT_EQ(bins.slots.size(), tiles);
  EXPECT_FALSE(detail::bin_see_through(cam, triangles.data(), 1, tiles - 1, bins));
}

}  // namespace
}  // namespace granray::test
