// contract 3 region and poster bands (granray/tiled_render.h): a window of the image renders
// exactly the pixels of that window of the whole, and bands rendered under a small memory budget
// put together are the whole image. Fresh random scenes with every feature a window could disturb:
// the auto camera, screen tiles, lighting (ambient-occlusion directions are seeded by the pixel),
// walls, see-through walls, clip planes, outlines and depth cue. Built once per backend.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "granray/errors.h"
#include "granray/tiled_render.h"
#include "test_support.h"
#include "wall_scenes.h"

namespace granray::test {
namespace {

// The pixels [r.x0, r.x1) x [r.y0, r.y1) of a whole frame, as an image of their own.
Image crop(const Image& whole, const PixelRect& r) {
  Image out;
  out.width = r.x1 - r.x0;
  out.height = r.y1 - r.y0;
  for (int y = r.y0; y < r.y1; ++y) {
    const std::size_t from = std::size_t(y) * whole.width + r.x0;
    out.rgb.insert(out.rgb.end(), whole.rgb.begin() + 3 * from,
                   whole.rgb.begin() + 3 * (from + out.width));
    if (!whole.depth.empty()) {
      out.depth.insert(out.depth.end(), whole.depth.begin() + from,
                       whole.depth.begin() + from + out.width);
      out.hit_id.insert(out.hit_id.end(), whole.hit_id.begin() + from,
                        whole.hit_id.begin() + from + out.width);
    }
  }
  return out;
}

// A random scene with a random mix of the features.
struct Scene {
  std::vector<Vec4> spheres;
  RenderSettings settings;
};

Scene random_scene(Rng& rng, int round) {
  Scene scene;
  scene.spheres =
      round % 3 == 2 ? dilute_gas(rng, 600, 0.05f, 0.3f, 8.0f) : dense_bed(rng, 700, 0.3f, 0.5f);
  RenderSettings& s = scene.settings;
  s = random_settings(rng, round % 2 == 1);
  const SceneBounds b = box_of(scene.spheres);
  random_inside_shading(rng, s.shading);
  if (rng() % 2 == 0) {
    s.shading.shadows = rng() % 2 == 0;
    s.shading.ao_samples = static_cast<int>(rng() % 9);
    s.shading.samples = rng() % 2 == 0 ? 1 : 4;
    s.shading.specular = rng() % 2 == 0 ? 0.3f : 0.0f;
  }
  if (rng() % 2 == 0) s.walls = random_walls(rng, b, 60, 0.5);
  if (rng() % 3 == 0) s.clip = random_clip(rng, b);
  return scene;
}

PixelRect random_region(Rng& rng, const RenderSettings& s) {
  const int x0 = std::uniform_int_distribution<int>(0, s.width - 1)(rng);
  const int y0 = std::uniform_int_distribution<int>(0, s.height - 1)(rng);
  const int x1 = std::uniform_int_distribution<int>(x0 + 1, s.width)(rng);
  const int y1 = std::uniform_int_distribution<int>(y0 + 1, s.height)(rng);
  return {x0, y0, x1, y1};
}

void expect_same(const Image& expected, const Image& got, const std::string& what) {
  ASSERT_EQ(expected.width, got.width) << what;
  ASSERT_EQ(expected.height, got.height) << what;
  const ImageDiff d = compare_images(expected, got);
  EXPECT_EQ(d.differing_rgb, 0u) << what << " (largest difference " << d.max_level << ")";
  EXPECT_EQ(d.differing_hit, 0u) << what;
  EXPECT_EQ(expected.depth, got.depth) << what;
}

class RegionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GRANRAY_SKIP_WITHOUT_BACKEND();
    renderer_.emplace(test_backend());
  }
  std::optional<Renderer> renderer_;
};

const RenderMethod kMethods[] = {RenderMethod::automatic, RenderMethod::grid, RenderMethod::tiles,
                                 RenderMethod::brute_force};

TEST_F(RegionTest, ARegionIsThatWindowOfTheWholeImage) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 12; ++round) {
    Scene scene = random_scene(rng, round);
    const RenderMethod method = kMethods[round % 4];
    const RenderOptions options{method, true};
    Image whole, part;
    renderer_->render(view_of(scene.spheres), scene.settings, whole, options);
    for (int k = 0; k < 3; ++k) {
      RenderSettings s = scene.settings;
      s.region = random_region(rng, s);
      const FrameStats stats = renderer_->render(view_of(scene.spheres), s, part, options);
      const std::string what =
          "round " + std::to_string(round) + ", " + render_method_name(stats.method) +
          ", region [" + std::to_string(s.region.x0) + ", " + std::to_string(s.region.y0) + ", " +
          std::to_string(s.region.x1) + ", " + std::to_string(s.region.y1) + ")";
      expect_same(crop(whole, s.region), part, what);
    }
  }
}

TEST_F(RegionTest, BandsOfASmallMemoryBudgetMakeTheWholeImage) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 6; ++round) {
    Scene scene = random_scene(rng, round);
    // Half the rounds put a region's bands together: bands are windows of windows.
    if (round % 2 == 1) scene.settings.region = random_region(rng, scene.settings);
    const PixelRect window = render_window(scene.settings);
    const int rows = std::uniform_int_distribution<int>(1, 9)(rng);
    const std::size_t budget =
        std::size_t(rows) * (window.x1 - window.x0) * frame_bytes_per_pixel(scene.settings);
    ASSERT_EQ(band_rows(scene.settings, budget), std::min(rows, window.y1 - window.y0));
    const RenderOptions options{kMethods[round % 4], true};
    Image whole;
    renderer_->render(view_of(scene.spheres), scene.settings, whole, options);
    Image joined;
    joined.width = window.x1 - window.x0;
    joined.height = 0;
    int bands = 0;
    render_in_bands(
        *renderer_, view_of(scene.spheres), scene.settings, options, budget,
        [&](const PixelRect& band, const Image& image, const FrameStats&) {
          EXPECT_EQ(band.y0, window.y0 + joined.height);
          EXPECT_EQ(image.width, joined.width);
          joined.height += image.height;
          joined.rgb.insert(joined.rgb.end(), image.rgb.begin(), image.rgb.end());
          joined.depth.insert(joined.depth.end(), image.depth.begin(), image.depth.end());
          joined.hit_id.insert(joined.hit_id.end(), image.hit_id.begin(), image.hit_id.end());
          ++bands;
        });
    EXPECT_EQ(bands, (window.y1 - window.y0 + rows - 1) / rows);
    expect_same(whole, joined,
                "round " + std::to_string(round) + ", " + std::to_string(rows) + " rows a band");
  }
}

// RenderOptions::same_particles: a later band reuses the grid of the band before it. The grains
// are broken in place between the bands: the band that vouches for the same particles still
// finds them where the grid listed them (hits and depths as before; the colours read the
// broken grains), and one that does not finds none.
TEST_F(RegionTest, ALaterBandOfTheSameParticlesReusesTheGrid) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 4; ++round) {
    Scene scene = random_scene(rng, round);
    scene.settings.clip.clear();  // clip planes would hide the broken grains before the grid
    scene.settings.shading.shadows = round % 2 == 1;  // the lit passes' grid too
    RenderSettings first = scene.settings;
    first.region = {0, 0, scene.settings.width, std::max(1, scene.settings.height / 3)};
    RenderOptions options{RenderMethod::grid, true};
    Image whole, image;
    renderer_->render(view_of(scene.spheres), scene.settings, whole, options);
    options.particle_bounds = renderer_->measure(view_of(scene.spheres)).bounds;
    std::vector<Vec4> grains = scene.spheres;
    renderer_->render(view_of(grains), first, image, options);
    for (Vec4& s : grains) s.w = NAN;
    options.same_particles = true;
    renderer_->render(view_of(grains), scene.settings, image, options);
    const std::string what = "round " + std::to_string(round);
    EXPECT_EQ(compare_images(whole, image).differing_hit, 0u) << what << ", kept grid";
    EXPECT_EQ(whole.depth, image.depth) << what << ", kept grid";
    options.same_particles = false;
    renderer_->render(view_of(grains), scene.settings, image, options);
    EXPECT_GT(compare_images(whole, image).differing_hit, 0u)
        << what << ": broken grains were drawn without same_particles";
  }
}

TEST_F(RegionTest, ARegionOutsideTheImageIsAConfigurationError) {
  RenderSettings s;
  s.width = 64;
  s.height = 48;
  s.region = {10, 10, 65, 20};
  Image image;
  const std::vector<Vec4> spheres = {{0.0f, 0.0f, 0.0f, 1.0f}};
  try {
    renderer_->render(view_of(spheres), s, image);
    FAIL() << "a region past the right edge rendered";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("region [10, 10, 55, 10]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace granray::test
