// A sphere's screen footprint (kernels/screen_tiles.h) must hold every pixel whose primary ray
// hits it, and its bound must not exceed any of those rays' entry distances: the tiles method
// is exact only if both hold. Checked pixel by pixel against the ray test itself, on random
// cameras and on spheres anywhere: in view, half off screen, across the eye's plane, around the
// eye, behind it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "granray/camera.h"
#include "granray/kernels/screen_tiles.h"
#include "test_support.h"

namespace granray::test {
namespace {

// Spheres around the camera's view: centres from the eye out past the target, some of them
// around the eye itself or behind it.
Vec4 random_sphere(Rng& rng, const CameraFrame& cam) {
  const float depth = uniform(rng, -3.0f, 12.0f);
  const float spread = uniform(rng, 0.0f, 6.0f);
  const Vec3 c = cam.eye - cam.w * depth + cam.u * uniform(rng, -spread, spread) +
                 cam.v * uniform(rng, -spread, spread);
  const float r = rng() % 8 == 0 ? uniform(rng, 2.0f, 6.0f) : uniform(rng, 0.01f, 1.0f);
  return {c.x, c.y, c.z, r};
}

TEST(ScreenTiles, FootprintHoldsEveryHitPixelAndBoundsItsDistance) {
  Rng rng(fresh_seed());
  std::size_t hit_pixels = 0, unbounded = 0, culled_with_hits = 0, off_screen = 0;
  for (int round = 0; round < 60; ++round) {
    const CameraFrame cam = random_camera_frame(rng, round % 3 == 0);
    for (int k = 0; k < 40; ++k) {
      const Vec4 s = random_sphere(rng, cam);
      const Footprint f = sphere_footprint(cam, s);
      const bool whole = f.x0 == 0 && f.y0 == 0 && f.x1 == cam.width - 1 && f.y1 == cam.height - 1;
      unbounded += whole;
      bool any_hit = false;
      for (int j = 0; j < cam.height; ++j) {
        for (int i = 0; i < cam.width; ++i) {
          const float t = sphere_entry_distance(primary_ray(cam, i, j), s);
          if (!(t < INFINITY)) continue;
          any_hit = true;
          ++hit_pixels;
          ASSERT_TRUE(i >= f.x0 && i <= f.x1 && j >= f.y0 && j <= f.y1)
              << "pixel (" << i << ", " << j << ") hits sphere (" << s.x << ", " << s.y << ", "
              << s.z << ", r " << s.w << ") outside its footprint [" << f.x0 << ", " << f.x1
              << "] x [" << f.y0 << ", " << f.y1 << "]" << (cam.orthographic ? ", ortho" : "");
          ASSERT_LE(f.near, t) << "the bound exceeds an entry distance";
        }
      }
      culled_with_hits += any_hit && f.x0 > f.x1;
      off_screen += !any_hit && f.x0 > f.x1;
    }
  }
  EXPECT_EQ(culled_with_hits, 0u);
  // The draw must have reached each case: hits, spheres culled, and unbounded footprints.
  EXPECT_GT(hit_pixels, 10000u);
  EXPECT_GT(off_screen, 50u);
  EXPECT_GT(unbounded, 5u);
}

// The footprint is tight enough to matter: for a sphere in view it exceeds the box of the pixels
// the sphere covers by at most three pixels on each side: the pad, the rounding to whole pixels,
// and the silhouette's widest point falling between two rows (or columns) of pixel centres.
TEST(ScreenTiles, FootprintOfASphereInViewIsTheBoxOfItsPixels) {
  Rng rng(fresh_seed());
  int checked = 0;
  for (int round = 0; round < 60; ++round) {
    const CameraFrame cam = random_camera_frame(rng, round % 2 == 0);
    const Vec3 c = cam.eye - cam.w * uniform(rng, 4.0f, 10.0f);
    const Vec4 s{c.x, c.y, c.z, uniform(rng, 0.05f, 0.4f)};
    const Footprint f = sphere_footprint(cam, s);
    int x0 = cam.width, y0 = cam.height, x1 = -1, y1 = -1;
    for (int j = 0; j < cam.height; ++j) {
      for (int i = 0; i < cam.width; ++i) {
        if (!(sphere_entry_distance(primary_ray(cam, i, j), s) < INFINITY)) continue;
        x0 = std::min(x0, i), x1 = std::max(x1, i), y0 = std::min(y0, j), y1 = std::max(y1, j);
      }
    }
    if (x1 < 0 || x0 == 0 || y0 == 0 || x1 == cam.width - 1 || y1 == cam.height - 1) continue;
    ++checked;
    EXPECT_GE(x0 - f.x0, 1);
    EXPECT_LE(x0 - f.x0, 3);
    EXPECT_GE(f.x1 - x1, 1);
    EXPECT_LE(f.x1 - x1, 3);
    EXPECT_GE(y0 - f.y0, 1);
    EXPECT_LE(y0 - f.y0, 3);
    EXPECT_GE(f.y1 - y1, 1);
    EXPECT_LE(f.y1 - y1, 3);
  }
  EXPECT_GT(checked, 20);
}

// Keys sort by tile, then bound; the bound read back never exceeds the one packed, and the
// rectangle covers exactly the footprint's pixels inside the tile.
TEST(ScreenTiles, EntryKeysOrderByTileThenBoundAndKeepTheRectangle) {
  Rng rng(fresh_seed());
  for (int k = 0; k < 2000; ++k) {
    const float near_a = uniform(rng, 0.0f, 100.0f), near_b = uniform(rng, 0.0f, 100.0f);
    const int x0 = std::uniform_int_distribution<int>(0, 200)(rng);
    const int y0 = std::uniform_int_distribution<int>(0, 200)(rng);
    const Footprint f{x0, y0, x0 + std::uniform_int_distribution<int>(0, 40)(rng),
                      y0 + std::uniform_int_distribution<int>(0, 40)(rng), near_a};
    const int tx = std::uniform_int_distribution<int>(f.x0 >> kTileShift, f.x1 >> kTileShift)(rng);
    const int ty = std::uniform_int_distribution<int>(f.y0 >> kTileShift, f.y1 >> kTileShift)(rng);
    const auto tile = static_cast<std::uint32_t>(rng() % kMaxScreenTiles);
    const std::uint64_t a = tile_entry_key(tile, near_a, f, tx, ty);
    const std::uint64_t b = tile_entry_key(tile, near_b, f, tx, ty);
    EXPECT_LE(entry_near(a), near_a);
    EXPECT_GT(entry_near(a), near_a * (1.0f - 1e-4f));
    if (near_a < near_b * (1.0f - 1e-4f)) EXPECT_LT(a, b);
    if (tile + 1 < kMaxScreenTiles) EXPECT_LT(b, tile_entry_key(tile + 1, 0.0f, f, tx, ty));
    for (int y = 0; y < kTileSize; ++y) {
      for (int x = 0; x < kTileSize; ++x) {
        const int px = (tx << kTileShift) + x, py = (ty << kTileShift) + y;
        const bool inside = px >= f.x0 && px <= f.x1 && py >= f.y0 && py <= f.y1;
        ASSERT_EQ(entry_covers(a, x, y), inside) << x << ", " << y;
      }
    }
  }
}

}  // namespace
}  // namespace granray::test
