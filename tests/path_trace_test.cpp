// contract 2e's path-traced still: the same paths through the grid and against every sphere, the
// same image run to run and band by band, a furnace with the analytic answer, one bounce under an
// infinitely small sun equal to the direct model's shadows, an error that falls as
// 1 / sqrt(samples), and the CUDA image within noise of the CPU's. Built once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "env_refusal.h"
#include "granray/errors.h"
#include "granray/kernels/avx2_kernel.h"
#include "scene_suite.h"
#include "test_support.h"
#include "wall_scenes.h"

namespace granray::test {
namespace {

RenderSettings path_settings(Rng& rng, int width, int height, int samples) {
  RenderSettings s = sized_random_settings(rng, false, width, height);
  s.model = ImageModel::path;
  s.path.samples = samples;
  s.path.sun_intensity = 1.0f;
  s.shading.background = {0.4f, 0.45f, 0.5f};
  s.shading.bounces = 4;
  return s;
}

// A dense bed of n grains, a third each matte, steel and glass by their kind, for a path-traced
// still of width x height pixels and `samples` paths.
struct SteelAndGlassBed {
  std::vector<Vec4> spheres;
  std::vector<float> kinds;
  RenderSettings settings;
  ParticleView view() const {
    ParticleView v = view_of(spheres);
    v.scalar = kinds.data();
    return v;
  }
};

SteelAndGlassBed steel_and_glass_bed(Rng& rng, std::size_t n, int width, int height, int samples) {
  SteelAndGlassBed bed;
  bed.spheres = dense_bed(rng, n, 0.3f, 0.5f);
  bed.kinds = kinds_of(rng, n);
  bed.settings = path_settings(rng, width, height, samples);
  bed.settings.materials = steel_and_glass(rng);
  return bed;
}

double rms_levels(const Image& a, const Image& b) {
  double sum = 0.0;
  for (std::size_t k = 0; k < a.rgb.size(); ++k) {
    const double d = double(a.rgb[k]) - double(b.rgb[k]);
    sum += d * d;
  }
  return std::sqrt(sum / double(a.rgb.size()));
}

class PathTraceTest : public OnEachBackend {};

// The paths' random numbers depend on the pixel, the sample and the bounce only: the grid and
// the brute-force loop trace the same paths, and meet the same surfaces.
TEST_F(PathTraceTest, GridMatchesBruteForce) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  for (const bool dense : {true, false}) {
    const auto spheres =
        dense ? dense_bed(rng, 500, 0.3f, 0.5f) : dilute_gas(rng, 200, 0.1f, 0.7f, 5.0f);
    const auto kinds = kinds_of(rng, spheres.size());
    RenderSettings s = path_settings(rng, 64, 48, 8);
    s.materials = steel_and_glass(rng);
    ParticleView view = view_of(spheres);
    view.scalar = kinds.data();
    Image brute, grid;
    renderer.render(view, s, brute, {RenderMethod::brute_force});
    renderer.render(view, s, grid, {RenderMethod::grid});
    const ImageDiff d = compare_images(grid, brute);
    EXPECT_LE(d.differing_rgb, 2u + d.pixels / 100) << "max level " << d.max_level;
  }
}

// Camera rays through the screen tiles (the CPU's primary method) meet the grains the grid's walk
// meets: the same image, bit for bit, for either projection; a lens (aperture > 0) walks the grid.
TEST_F(PathTraceTest, CameraRaysThroughTheTilesFindWhatTheGridFinds) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  for (int round = 0; round < 4; ++round) {
    const auto spheres =
        round % 2 == 0 ? dense_bed(rng, 600, 0.2f, 0.5f) : dilute_gas(rng, 300, 0.1f, 0.6f, 6.0f);
    const auto kinds = kinds_of(rng, spheres.size());
    RenderSettings s = path_settings(rng, 72, 40, 4);
    s.materials = steel_and_glass(rng);
    if (round == 1) s.camera.projection = Projection::orthographic;
    if (round == 3) s.path.aperture = uniform(rng, 0.05f, 0.3f);
    ParticleView view = view_of(spheres);
    view.scalar = kinds.data();
    Image tiles, grid;
    renderer.render(view, s, tiles, {RenderMethod::tiles});
    renderer.render(view, s, grid, {RenderMethod::grid});
    EXPECT_EQ(tiles.rgb, grid.rgb) << "round " << round;
    // Not a blank picture: the grains show in many pixels.
    const long shown = std::count_if(tiles.rgb.begin(), tiles.rgb.end(),
                                     [&](std::uint8_t v) { return v != tiles.rgb[0]; });
    EXPECT_GT(shown, long(tiles.rgb.size() / 10)) << "round " << round;
  }
}

// A pour of 20,000 grains or more occupies so little of its box (about an eighth) that the CPU's
// still starts its camera rays at their pixels' near bounds (NearBoundTracer): the image the
// screen tiles give, bit for bit, and the brute-force loop's up to rounding; a lens walks the
// grid from the lens. On the GPU both walk from the eye.
TEST_F(PathTraceTest, CameraRaysFromTheirNearBoundsFindWhatTheTilesFind) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  const bench::SuiteScene scene = bench::make_suite_scene("pour", 20000 + rng() % 10000, rng());
  ASSERT_FALSE(renderer.build_grid(view_of(scene.grains)).clearance.empty());
  const auto kinds = kinds_of(rng, scene.grains.size());
  for (int round = 0; round < 2; ++round) {
    RenderSettings s = path_settings(rng, 72, 48, 4);
    s.materials = steel_and_glass(rng);
    if (round == 1) s.path.aperture = uniform(rng, 0.05f, 0.3f);
    ParticleView view = view_of(scene.grains);
    view.scalar = kinds.data();
    Image tiles, grid;
    renderer.render(view, s, tiles, {RenderMethod::tiles});
    renderer.render(view, s, grid, {RenderMethod::grid});
    EXPECT_EQ(tiles.rgb, grid.rgb) << "round " << round;
    if (round == 0) {  // every grain for every path: seconds on 2 cores, so once
      Image brute;
      renderer.render(view, s, brute, {RenderMethod::brute_force});
      const ImageDiff d = compare_images(grid, brute);
      EXPECT_LE(d.differing_rgb, 2u + d.pixels / 100) << "max level " << d.max_level;
    }
    const long shown = std::count_if(grid.rgb.begin(), grid.rgb.end(),
                                     [&](std::uint8_t v) { return v != grid.rgb[0]; });
    EXPECT_GT(shown, long(grid.rgb.size() / 50)) << "round " << round << ": " << shown;
  }
}

// Under a point sun the shadow rays read the light's columns (light_columns.h) once the
// still has 32 rays per grid reference: 96 x 72 pixels x 8 paths against at most 8 references
// for each of 150 grains (cells two diameters wide). The same surfaces lit as by every sphere.
TEST_F(PathTraceTest, PointSunShadowsMatchBruteForce) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  for (int round = 0; round < 3; ++round) {
    const auto spheres = dense_bed(rng, 150, 0.2f, 0.5f);
    const auto kinds = kinds_of(rng, spheres.size());
    RenderSettings s = path_settings(rng, 96, 72, 8);
    s.path.sun_radius = 0.0f;
    s.path.sun_intensity = uniform(rng, 1.0f, 3.0f);
    // Seen from above, where the sun (light.z > 0) lights the bed's grains.
    s.camera.theta = uniform(rng, 20.0f, 70.0f);
    s.camera.zoom = uniform(rng, 1.0f, 2.0f);
    if (round > 0) s.materials = steel_and_glass(rng);
    ParticleView view = view_of(spheres);
    view.scalar = kinds.data();
    Image brute, grid, sunless;
    renderer.render(view, s, brute, {RenderMethod::brute_force});
    const FrameStats stats = renderer.render(view, s, grid);
    EXPECT_GT(stats.light_column_entries, spheres.size() / 2) << "the shadow rays read the columns";
    const ImageDiff d = compare_images(grid, brute);
    EXPECT_LE(d.differing_rgb, 2u + d.pixels / 100)
        << "round " << round << ", max level " << d.max_level;
    // The sun lights the picture: without it, many pixels change (1000-4700 of 6912 over 120
    // scenes).
    RenderSettings dark = s;
    dark.path.sun_intensity = 0.0f;
    renderer.render(view, dark, sunless);
    EXPECT_GT(compare_images(grid, sunless).differing_rgb, d.pixels / 12) << "round " << round;
  }
}

// The CPU's still compiled for AVX2 (avx2_kernel.h) gives the baseline build's bits.
TEST_F(PathTraceTest, Avx2KernelGivesTheBaselineImage) {
#if GRANRAY_AVX2_CODE
  if (test_backend() != BackendKind::cpu || !avx2_kernels_on()) {
    GTEST_SKIP() << "the CPU backend on a CPU with AVX2 only";
  }
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  for (int round = 0; round < 3; ++round) {
    const auto spheres =
        round == 1 ? dilute_gas(rng, 300, 0.1f, 0.6f, 6.0f) : dense_bed(rng, 400, 0.2f, 0.5f);
    const auto kinds = kinds_of(rng, spheres.size());
    RenderSettings s = path_settings(rng, 64, 48, 4);
    s.materials = steel_and_glass(rng);
    if (round == 2) s.path.sun_radius = 0.0f;
    ParticleView view = view_of(spheres);
    view.scalar = kinds.data();
    Image wide, baseline;
    renderer.render(view, s, wide);
    ASSERT_EQ(setenv("GRANRAY_CPU_AVX2", "0", 1), 0);
    EXPECT_FALSE(avx2_kernels_on());
    renderer.render(view, s, baseline);
    ASSERT_EQ(unsetenv("GRANRAY_CPU_AVX2"), 0);
    EXPECT_EQ(wide.rgb, baseline.rgb) << "round " << round;
  }
#else
  GTEST_SKIP() << "no AVX2 kernels in this build";
#endif
}

// The still level by level (kernels/path_levels.h, the GPU's way) traces the paths that one pass
// traces, with the same arithmetic: the same image, bit for bit, on each backend. Rounds with a
// point sun (its shadow rays read the light's columns) and a sun of some size, walls, a lens,
// dense beds and gases, bounces 1 to 5, sample counts that split the still into batches, and
// fewer paths in flight than a batch holds (GRANRAY_PATHS_IN_FLIGHT), which traces it in parts,
// and each level's paths traced as appended or in groups (GRANRAY_PATH_ORDER).
TEST_F(PathTraceTest, LevelByLevelEqualsOnePass) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  const SceneCase cases[] = {{"dense bed", 500, 0.2f, 0.5f, false},
                             {"dilute gas", 300, 0.1f, 0.6f, true}};
  for (int round = 0; round < 6; ++round) {
    const SceneCase& c = cases[round % 3 == 2 ? 1 : 0];
    const auto spheres = random_scene(rng, c, 6.0f);
    const auto kinds = kinds_of(rng, spheres.size());
    RenderSettings s = path_settings(rng, 48 + int(rng() % 40), 32 + int(rng() % 30),
                                     std::uniform_int_distribution<int>(1, 40)(rng));
    s.materials = steel_and_glass(rng);
    s.shading.bounces = std::uniform_int_distribution<int>(1, 5)(rng);
    s.path.sun_radius = round % 2 == 0 ? 0.0f : uniform(rng, 0.5f, 5.0f);
    if (round % 3 == 1) s.walls = random_walls(rng, box_of(spheres), 40);
    if (round == 4) s.path.aperture = uniform(rng, 0.05f, 0.3f);
    ParticleView view = view_of(spheres);
    view.scalar = kinds.data();
    Image by_level, one_pass;
    ASSERT_EQ(setenv("GRANRAY_PATH_PASS", "level", 1), 0);
    // Each level's paths in groups by their turns and surfaces (the default), by their turns
    // alone, or as appended.
    const char* const orders[] = {"surfaces", "turns", "appended"};
    ASSERT_EQ(setenv("GRANRAY_PATH_ORDER", orders[(round / 2) % 3], 1), 0);
    // Odd rounds hold one path a pixel in flight where a batch has two or three (1/16 of 32-48
    // paths): each batch is traced in parts.
    const std::string in_flight = std::to_string(std::size_t(s.width) * s.height + rng() % 100);
    if (round % 2 == 1) {
      s.path.samples = 32 + int(rng() % 17);
      ASSERT_EQ(setenv("GRANRAY_PATHS_IN_FLIGHT", in_flight.c_str(), 1), 0);
    }
    renderer.render(view, s, by_level);
    ASSERT_EQ(unsetenv("GRANRAY_PATHS_IN_FLIGHT"), 0);
    ASSERT_EQ(unsetenv("GRANRAY_PATH_ORDER"), 0);
    ASSERT_EQ(setenv("GRANRAY_PATH_PASS", "pixel", 1), 0);
    renderer.render(view, s, one_pass);
    ASSERT_EQ(unsetenv("GRANRAY_PATH_PASS"), 0);
    SCOPED_TRACE(::testing::Message()
                 << c.label << ", round " << round << ", " << orders[(round / 2) % 3] << ", "
                 << s.path.samples << " paths, bounces " << s.shading.bounces);
    EXPECT_EQ(compare_images(by_level, one_pass).differing_rgb, 0u);
    // Not a blank picture: the grains show in many pixels.
    const long shown = std::count_if(one_pass.rgb.begin(), one_pass.rgb.end(),
                                     [&](std::uint8_t v) { return v != one_pass.rgb[0]; });
    EXPECT_GT(shown, long(one_pass.rgb.size() / 10));
  }
  // A bad value of any of the level pass's switches (a count of paths in flight that is no number,
  // an order or a way it does not know) is refused by name.
  const auto spheres = dense_bed(rng, 50, 0.3f, 0.5f);
  RenderSettings s = path_settings(rng, 16, 16, 4);
  Image image;
  const auto render = [&] { renderer.render(view_of(spheres), s, image); };
  ASSERT_EQ(setenv("GRANRAY_PATH_PASS", "level", 1), 0);
  expect_env_values_refused("GRANRAY_PATHS_IN_FLIGHT", {"lots", "0", "12k", ""}, render);
  expect_env_values_refused("GRANRAY_PATH_ORDER", {"sorted", "Turns", ""}, render);
  expect_env_values_refused("GRANRAY_PATH_PASS", {"sideways", "Level"}, render);
}

// A batch whose level lists find no room in the memory budget is traced again in smaller parts,
// down to a path a pixel: the same image, the still's later batches start at the part that fitted,
// and the lists are given back after each still. Only
// where not even one path a pixel fits does the still fail (OutOfMemoryError), and the renderer
// draws the next one.
TEST_F(PathTraceTest, LevelsThatDoNotFitAreTracedInSmallerParts) {
  Rng rng(fresh_seed());
  const SceneCase c{"dense bed", 400, 0.2f, 0.5f, false};
  const auto spheres = random_scene(rng, c, 6.0f);
  const auto kinds = kinds_of(rng, spheres.size());
  // 64-95 paths: the still traces them in batches of 4 or 5 a pixel (path_frame.inl), each of
  // which asks for lists of that many paths a pixel.
  RenderSettings s =
      path_settings(rng, 40 + int(rng() % 20), 30 + int(rng() % 10), 64 + int(rng() % 32));
  s.materials = steel_and_glass(rng);
  s.shading.bounces = std::uniform_int_distribution<int>(2, 4)(rng);
  ParticleView view = view_of(spheres);
  view.scalar = kinds.data();
  const std::size_t pixels = std::size_t(s.width) * s.height;
  SCOPED_TRACE(::testing::Message() << s.width << " x " << s.height << ", " << s.path.samples
                                    << " paths, bounces " << s.shading.bounces);
  ASSERT_EQ(setenv("GRANRAY_PATH_PASS", "level", 1), 0);
  Image whole, parts, squeezed, after;
  Renderer renderer(test_backend());
  renderer.render(view, s, whole);
  // What the renderer holds after a still traced a path a pixel at a time: its lists given back,
  // nothing of them is held (a limit of 0 leaves only the buffers held available).
  ASSERT_EQ(setenv("GRANRAY_PATHS_IN_FLIGHT", std::to_string(pixels).c_str(), 1), 0);
  Renderer tight(test_backend());
  tight.render(view, s, parts);
  ASSERT_EQ(unsetenv("GRANRAY_PATHS_IN_FLIGHT"), 0);
  EXPECT_EQ(compare_images(parts, whole).differing_rgb, 0u);
  tight.set_memory_limit(0);
  const std::size_t held = tight.memory_available();
  // Room for the lists of two paths a pixel (two states of 64 bytes, a radiance, a group and an
  // order a path: 145 bytes), not for a batch's four or five.
  tight.set_memory_limit(held + 2 * pixels * 160);
  FrameStats stats;
  ASSERT_NO_THROW(stats = tight.render(view, s, squeezed));
  EXPECT_EQ(compare_images(squeezed, whole).differing_rgb, 0u);
  // One part ran out (the first batch's); the later batches start at the part that fitted.
  EXPECT_EQ(stats.path_parts_retried, 1u);
  tight.set_memory_limit(0);
  EXPECT_EQ(tight.memory_available(), held) << "the lists are given back";
  // Without room for a path a pixel the still fails cleanly, and the next one draws.
  tight.set_memory_limit(held + pixels * 16);
  EXPECT_THROW(tight.render(view, s, squeezed), OutOfMemoryError);
  tight.set_memory_limit(~std::size_t{0});
  tight.render(view, s, after);
  EXPECT_EQ(compare_images(after, whole).differing_rgb, 0u);
  ASSERT_EQ(unsetenv("GRANRAY_PATH_PASS"), 0);
}

// Deterministic: the same image again, and a window (or a band of a poster) equals its pixels of
// the whole.
TEST_F(PathTraceTest, SameImageRunToRunAndInWindows) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  SteelAndGlassBed bed = steel_and_glass_bed(rng, 400, 60, 40, 4);
  RenderSettings& s = bed.settings;
  s.path.aperture = rng() % 2 == 0 ? 0.0f : uniform(rng, 0.05f, 0.3f);
  const ParticleView view = bed.view();
  Image first, again, window;
  renderer.render(view, s, first);
  renderer.render(view, s, again);
  EXPECT_EQ(first.rgb, again.rgb);
  RenderSettings w = s;
  w.region = {10, 5, 45, 30};
  renderer.render(view, w, window);
  for (int j = 0; j < 25; ++j) {
    for (int i = 0; i < 35; ++i) {
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(window.rgb[3 * (std::size_t(j) * 35 + i) + c],
                  first.rgb[3 * (std::size_t(j + 5) * 60 + i + 10) + c])
            << "pixel " << i + 10 << "," << j + 5;
      }
    }
  }
}

// A furnace: a lone grey sphere of albedo a under a uniform white sky, no sun. Every path leaves
// the convex sphere after one bounce and sees the sky: radiance a, with no noise at all.
TEST_F(PathTraceTest, FurnaceGivesTheAnalyticRadiance) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  const float a = uniform(rng, 0.2f, 0.9f);
  RenderSettings s = path_settings(rng, 48, 36, 16);
  s.camera.zoom = 1.0f;
  s.shading.background = {1.0f, 1.0f, 1.0f};
  s.shading.particle_color = {a, a, a};
  s.path.sun_intensity = 0.0f;
  s.path.sun_radius = 0.0f;
  const std::vector<Vec4> sphere = {{uniform(rng, -1, 1), uniform(rng, -1, 1), 0.0f, 1.0f}};
  Image image;
  renderer.render(view_of(sphere), s, image, {RenderMethod::automatic, true});
  const int expected = int(std::floor(255.0 * a + 0.5));
  std::size_t inside = 0;
  for (std::size_t p = 0; p < image.hit_id.size(); ++p) {
    // Pixels wholly inside the disc: their neighbours show the sphere too.
    const int i = int(p % 48), j = int(p / 48);
    bool interior = i > 0 && j > 0 && i < 47 && j < 35;
    for (int dj = -1; dj <= 1 && interior; ++dj) {
      for (int di = -1; di <= 1 && interior; ++di) {
        interior = image.hit_id[std::size_t(j + dj) * 48 + std::size_t(i + di)] == 0u;
      }
    }
    if (!interior) continue;
    ++inside;
    for (int c = 0; c < 3; ++c)
      ASSERT_NEAR(int(image.rgb[3 * p + c]), expected, 1) << "pixel " << p;
  }
  EXPECT_GT(inside, 100u);
}

// One bounce, an infinitely small sun of intensity `diffuse`, no sky: each path's radiance is
// contract 2a's diffuse term with shadows at a point of its pixel. Against the direct image
// antialiased 4 x 4 (both average the pixel's area), pixel by pixel, apart from silhouettes and
// shadow edges.
TEST_F(PathTraceTest, OneBounceUnderAPointSunIsTheDirectImage) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 400, 0.3f, 0.5f);
  RenderSettings direct = random_settings(rng, false);
  // Enough pixels a grain that its silhouette and shadow edges (where the two differ) stay a
  // small share of the lit pixels: at 64 x 48 one scene in about 80 fell below the 80 % share.
  direct.width = 96;
  direct.height = 72;
  // Into the bed, grains filling the frame, the eye outside the bed's bounding sphere (the auto
  // camera's distance is its radius over sin(fov / 2), divided by the zoom): from inside the bed
  // the eye would see little but the undersides of grains in shadow.
  direct.camera.projection = Projection::perspective;
  direct.camera.fov = uniform(rng, 15.0f, 35.0f);
  direct.camera.zoom = uniform(rng, 1.8f, 3.0f);
  direct.camera.theta = uniform(rng, 30.0f, 70.0f);
  direct.shading.light = {uniform(rng, -0.5f, 0.5f), uniform(rng, 0.2f, 0.8f), 1.0f};
  direct.shading.background = {0.0f, 0.0f, 0.0f};
  direct.shading.ambient = 0.0f;
  direct.shading.shadows = true;
  direct.shading.samples = 16;
  RenderSettings path = direct;
  path.model = ImageModel::path;
  path.shading.bounces = 1;
  path.path.samples = 256;
  path.path.sun_radius = 0.0f;
  path.path.sun_intensity = direct.shading.diffuse;
  Image a, b;
  renderer.render(view_of(spheres), direct, a);
  renderer.render(view_of(spheres), path, b);
  // Compared where either image shows light: pixels black in both (background, full shadow) would
  // agree whatever the path tracer did.
  std::size_t close = 0, shown = 0;
  double total = 0.0;
  for (std::size_t p = 0; p < a.rgb.size() / 3; ++p) {
    int level = 0;
    bool lit = false;
    for (int c = 0; c < 3; ++c) {
      level = std::max(level, std::abs(int(a.rgb[3 * p + c]) - int(b.rgb[3 * p + c])));
      lit = lit || a.rgb[3 * p + c] > 0 || b.rgb[3 * p + c] > 0;
    }
    if (!lit) continue;
    ++shown;
    close += level <= 3;
    total += level;
  }
  ASSERT_GT(shown, a.rgb.size() / 3 / 8) << "the scene shows too little to test";
  // Silhouettes and shadow edges differ: a 4 x 4 grid against 256 random points of the pixel.
  EXPECT_GT(close, shown * 8 / 10) << "of " << shown << " lit pixels";
  EXPECT_LT(total / double(shown), 3.0) << "mean largest difference in levels";
}

// Monte Carlo: the error against a 4096-path image falls as 1 / sqrt(samples) (the nested
// estimates share their first paths with the reference: sqrt(1 / n - 1 / 4096)).
TEST_F(PathTraceTest, ErrorFallsAsOneOverSqrtSamples) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 60, 0.3f, 0.5f);
  const auto kinds = kinds_of(rng, spheres.size());
  RenderSettings s = path_settings(rng, 24, 18, 4096);
  s.camera.zoom = 1.5f;
  s.shading.particle_color = {0.5f, 0.5f, 0.5f};
  s.shading.background = {0.5f, 0.5f, 0.5f};
  // A point sun, sampled at every matte hit and never met by chance: no rare bright paths, whose
  // few hits would make the error of a small estimate a lottery.
  s.path.sun_intensity = 0.6f;
  s.path.sun_radius = 0.0f;
  s.materials = steel_and_glass(rng);
  ParticleView view = view_of(spheres);
  view.scalar = kinds.data();
  Image reference;
  renderer.render(view, s, reference);
  std::vector<double> error;
  for (const int n : {16, 64, 256}) {
    RenderSettings fewer = s;
    fewer.path.samples = n;
    Image image;
    renderer.render(view, fewer, image);
    error.push_back(rms_levels(image, reference));
  }
  ::testing::Test::RecordProperty(
      "rms_errors",
      std::to_string(error[0]) + " " + std::to_string(error[1]) + " " + std::to_string(error[2]));
  const double expected = std::sqrt((1.0 / 16 - 1.0 / 4096) / (1.0 / 64 - 1.0 / 4096));
  EXPECT_GT(error[0], 1.0) << "no noise to measure";
  EXPECT_NEAR(error[0] / error[1], expected, 0.7) << error[0] << " " << error[1];
  const double expected_far = std::sqrt((1.0 / 16 - 1.0 / 4096) / (1.0 / 256 - 1.0 / 4096));
  EXPECT_NEAR(error[0] / error[2], expected_far, 1.6) << error[0] << " " << error[2];
}

#if defined(GRANRAY_TEST_CUDA)
// The same paths on the GPU, apart from where the last bits of cosf, sinf or sqrtf send one
// elsewhere: the images agree within the noise of 64 paths.
TEST_F(PathTraceTest, CudaMatchesTheCpuWithinNoise) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  const SteelAndGlassBed bed = steel_and_glass_bed(rng, 20000, 240, 160, 64);
  const RenderSettings& s = bed.settings;
  const ParticleView view = bed.view();
  Renderer cpu(BackendKind::cpu);
  Image a, b;
  renderer.render(view, s, a);
  cpu.render(view, s, b);
  EXPECT_LT(rms_levels(a, b), 3.0);
}
#endif

TEST_F(PathTraceTest, BadPathSettingsFailCleanly) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 50, 0.3f, 0.5f);
  RenderSettings s = path_settings(rng, 16, 16, 4);
  Image image;
  s.path.samples = 0;
  EXPECT_THROW(renderer.render(view_of(spheres), s, image), ConfigError);
  s.path.samples = 4;
  s.path.aperture = -1.0f;
  EXPECT_THROW(renderer.render(view_of(spheres), s, image), ConfigError);
  s.path.aperture = 0.0f;
  s.path.sun_radius = 90.0f;
  EXPECT_THROW(renderer.render(view_of(spheres), s, image), ConfigError);
  s.path.sun_radius = 0.5f;
  EXPECT_NO_THROW(renderer.render(view_of(spheres), s, image));
}

}  // namespace
}  // namespace granray::test
