// Every renderer path against the brute-force reference, and the reference against contract 2
// computed independently in double precision. Built once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include "env_refusal.h"
#include "granray/errors.h"
#include "reference_math.h"
#include "scene_suite.h"
#include "test_support.h"
#include "wall_scenes.h"

namespace granray::test {
namespace {

class RenderTest : public OnEachBackend {
 protected:
  // Renders with each method and with brute force; they must agree on the visible particle in
  // all but a few silhouette pixels and, where they agree, on the colour exactly.
  void expect_methods_match_brute_force(const std::vector<Vec4>& spheres,
                                        const RenderSettings& settings, const char* label) {
    Renderer renderer(test_backend());
    against_brute_force(renderer, view_of(spheres), settings,
                        [&](RenderMethod method, const Image& image, const FrameStats& stats,
                            const Image& brute, const FrameStats& brute_stats) {
                          std::size_t background = 0;
                          for (const auto id : brute.hit_id) background += id == ~std::uint64_t{0};
                          const ImageDiff d = compare_images(image, brute);
                          SCOPED_TRACE(::testing::Message()
                                       << label << ", " << render_method_name(method) << ": "
                                       << spheres.size() << " spheres, " << settings.width << "x"
                                       << settings.height);
                          if (!spheres.empty()) EXPECT_EQ(stats.method, method);
                          EXPECT_EQ(stats.skipped, brute_stats.skipped);
                          EXPECT_LE(d.differing_hit, 3u) << "pixels whose visible particle differs";
                          EXPECT_EQ(d.rgb_differs_same_hit, 0u);
                          // A scene that shows nothing, or only one particle, would test little.
                          if (!spheres.empty())
                            EXPECT_LT(background, d.pixels) << "no sphere visible";
                        });
  }
};

TEST_F(RenderTest, GridAndTilesMatchBruteForceOnRandomScenes) {
  Rng rng(fresh_seed());
  const SceneCase cases[] = {{"dense monodisperse bed", 3000, 0.5f, 0.5f, false},
                             {"dense polydisperse bed", 3000, 0.2f, 0.6f, false},
                             {"dilute monodisperse gas", 2000, 0.05f, 0.05f, true},
                             {"dilute polydisperse gas", 2000, 0.01f, 0.3f, true},
                             {"one particle", 1, 0.3f, 0.8f, false},
                             {"a few particles", 7, 0.1f, 1.0f, true}};
  for (const SceneCase& c : cases) {
    for (const bool ortho : {false, true}) {
      const auto spheres = random_scene(rng, c, 10.0f);
      expect_methods_match_brute_force(spheres, random_settings(rng, ortho), c.label);
    }
  }
}

// The benchmark suite's scenes (bench/scene_suite.h), fresh seeds: heaps, drums, pours,
// hoppers and clustered gases leave most of their box empty, unlike the beds above.
TEST_F(RenderTest, EverySceneOfTheSuiteMatchesBruteForce) {
  Rng rng(fresh_seed());
  for (const std::string& name : bench::suite_scene_names()) {
    const bench::SuiteScene scene = bench::make_suite_scene(name, 1500 + rng() % 2000, rng());
    RenderSettings settings = random_settings(rng, rng() % 2 == 0);
    if (!scene.walls.empty()) settings.walls = std::make_shared<WallList>(scene.walls);
    expect_methods_match_brute_force(scene.grains, settings, name.c_str());
  }
}

// Beds large enough that their grids leap over empty space (GridView::clearance), fresh seeds:
// the frames' walks leap and still match brute force (on the GPU, the unlit primary rays by
// LeapingGridTracer).
TEST_F(RenderTest, BedsWhoseWalksLeapOverEmptySpaceMatchBruteForce) {
  Rng rng(fresh_seed());
  for (const std::string name : {"pour", "hopper", "heap"}) {
    const bench::SuiteScene scene = bench::make_suite_scene(name, 20000 + rng() % 10000, rng());
    ParticleView view = view_of(scene.grains);
    const HostGrid grid = Renderer(test_backend()).build_grid(view);
    ASSERT_FALSE(grid.clearance.empty()) << name;
    // Any size: the last blocks of pixels stick out past the image.
    RenderSettings settings =
        sized_random_settings(rng, rng() % 2 == 0, 57 + rng() % 31, 37 + rng() % 23);
    if (!scene.walls.empty()) settings.walls = std::make_shared<WallList>(scene.walls);
    if (name == std::string("hopper")) {  // shadow and occlusion rays leap too
      settings.shading.shadows = true;
      settings.shading.ao_samples = 4;
    }
    expect_methods_match_brute_force(scene.grains, settings, name.c_str());
  }
}

// Those beds' primary rays start at their pixel blocks' near bounds (kernels/near_bounds.h),
// fresh seeds, where a bound is least obviously right, each against brute force: a window of the
// image (blocks of the window's pixels), four samples a pixel (rays off the pixel's centre), and
// an eye among the grains or just above them (footprints across the eye's plane or over many
// blocks, which leave the frame unbounded: every walk starts at the eye).
TEST_F(RenderTest, PrimaryRaysFromTheirNearBoundsMatchBruteForce) {
  Rng rng(fresh_seed());
  // A pour: its grains occupy so little of their box that both backends bound its rays.
  const bench::SuiteScene scene = bench::make_suite_scene("pour", 20000 + rng() % 10000, rng());
  ASSERT_FALSE(Renderer(test_backend()).build_grid(view_of(scene.grains)).clearance.empty());
  const SceneBounds box = box_of(scene.grains);
  const Vec3 lo = box.lo, hi = box.hi, middle = (lo + hi) * 0.5f;
  const auto at = [&](float fx, float fy, float fz) {
    return Vec3{lo.x + fx * (hi.x - lo.x), lo.y + fy * (hi.y - lo.y), lo.z + fz * (hi.z - lo.z)};
  };

  // About the image's centre, which the auto camera puts on the bed's box: the window shows it.
  RenderSettings window = sized_random_settings(rng, rng() % 2 == 0, 96, 64);
  const auto reach = [&] { return 5 + static_cast<int>(rng() % 26); };
  window.region = {48 - reach(), 32 - reach(), 48 + reach(), 32 + reach()};
  expect_methods_match_brute_force(scene.grains, window, "a window of the image");

  RenderSettings samples = sized_random_settings(rng, rng() % 2 == 0, 72, 48);
  samples.shading.samples = 4;
  samples.shading.shadows = true;
  expect_methods_match_brute_force(scene.grains, samples, "four samples a pixel, shadows");

  RenderSettings among = sized_random_settings(rng, false, 72, 48);
  among.camera.position = at(uniform(rng, 0.4f, 0.6f), uniform(rng, 0.4f, 0.6f), 0.1f);
  // Looking down into the settled layer (its top at about 0.04 of the box's height), which the
  // view's middle then shows whatever way it faces: level, the view could miss the bed.
  among.camera.target = at(uniform(rng, 0.0f, 1.0f), uniform(rng, 0.0f, 1.0f), 0.02f);
  expect_methods_match_brute_force(scene.grains, among, "an eye among the grains");

  RenderSettings above = sized_random_settings(rng, false, 72, 48);
  above.camera.position = at(uniform(rng, 0.45f, 0.55f), uniform(rng, 0.45f, 0.55f), 1.05f);
  above.camera.target = middle;
  expect_methods_match_brute_force(scene.grains, above, "an eye just above the bed");
}

// A pour occupies so little of its box that the frames' grid sizes its cells by the occupied
// volume (several cells a grain, at most 8). The grids of bounce rays and of the path-traced still
// do too on the GPU, where their walks leap over the empty space; the CPU keeps one cell a grain
// over the box for them (Executor::bounce_cell_sizing). GRANRAY_BOUNCE_CELLS picks each sizing,
// finer cells too (up to 32 a grain), on either backend, and no pixel depends on which: the image
// is the same bytes.
TEST_F(RenderTest, GridsOfBouncingRaysAreSizedAsTheBackendSays) {
  Rng rng(fresh_seed());
  const bench::SuiteScene scene = bench::make_suite_scene("pour", 20000 + rng() % 10000, rng());
  const ParticleView view = view_of(scene.grains);
  const double grains = static_cast<double>(scene.grains.size());
  Renderer renderer(test_backend());
  Image image;
  const auto cells_per_grain = [&](const RenderSettings& settings) {
    return static_cast<double>(renderer.render(view, settings, image, {RenderMethod::grid}).cells) /
           grains;
  };
  RenderSettings plain = sized_random_settings(rng, false, 32, 24);
  EXPECT_GT(cells_per_grain(plain), 2.0) << "unlit";
  EXPECT_LE(cells_per_grain(plain), 8.0 * 1.05) << "unlit";
  RenderSettings lit = plain;
  lit.shading.shadows = true;
  lit.shading.ao_samples = 2;
  EXPECT_GT(cells_per_grain(lit), 2.0) << "shadows and occlusion";
  // Cells a grain under each sizing: one a grain over the box at most; the frames' several, at
  // most 8; finer than the frames' where the cells list grains by their centres (the pour's column
  // and layer fill under an eighth of its box), at most 32. The CPU's path still lists each grain
  // where it overlaps, in cells of two diameters at least: there no fewer than the frames'.
  const auto expect_cells = [](const std::map<std::string, double>& cells, bool by_centres,
                               const std::string& label) {
    EXPECT_LE(cells.at("box"), 1.05) << label;
    EXPECT_GT(cells.at("frames"), 2.0) << label;
    EXPECT_LE(cells.at("frames"), 8.0 * 1.05) << label;
    EXPECT_GE(cells.at("fine"), cells.at("frames")) << label;
    if (by_centres) EXPECT_GT(cells.at("fine"), 8.0 * 1.05) << label;
    EXPECT_LE(cells.at("fine"), 32.0 * 1.05) << label;
  };
  RenderSettings bouncing = plain;
  bouncing.shading.bounces = 2;
  bouncing.materials = {MaterialSettings{"steel", MaterialType::metal}};
  bouncing.materials[0].reflectance = 0.8f;
  bouncing.materials[0].grains = SelectRange{-INFINITY, INFINITY};
  RenderSettings path = plain;
  path.model = ImageModel::path;
  path.path.samples = 2;
  path.shading.bounces = 2;
  const bool cuda = test_backend() == BackendKind::cuda;
  for (const auto& [settings, name, by_centres] : {std::tuple{bouncing, "metal, two bounces", true},
                                                   std::tuple{path, "path-traced still", cuda}}) {
    const double backends_cells = cells_per_grain(settings);
    const Image backends = image;
    std::map<std::string, double> cells;
    for (const char* sizing : {"box", "frames", "fine", "backend"}) {
      ASSERT_EQ(setenv("GRANRAY_BOUNCE_CELLS", sizing, 1), 0);
      const std::string label = std::string(name) + ", GRANRAY_BOUNCE_CELLS=" + sizing;
      cells[sizing] = cells_per_grain(settings);
      EXPECT_EQ(image.rgb, backends.rgb) << label;
      EXPECT_EQ(image.hit_id, backends.hit_id) << label;
    }
    ASSERT_EQ(unsetenv("GRANRAY_BOUNCE_CELLS"), 0);
    expect_cells(cells, by_centres, name);
    // The GPU takes the frames' cells, the CPU the box's.
    EXPECT_EQ(backends_cells, cells.at(cuda ? "frames" : "box")) << name;
    EXPECT_EQ(cells.at("backend"), backends_cells) << name;
  }
  expect_env_values_refused("GRANRAY_BOUNCE_CELLS", {"finer", "", "1"},
                            [&] { cells_per_grain(path); });
}

TEST_F(RenderTest, PolydisperseWithHugeGrains) {
  Rng rng(fresh_seed());
  auto spheres = dense_bed(rng, 2000, 0.1f, 0.3f);
  for (int k = 0; k < 3; ++k) {
    spheres[static_cast<std::size_t>(uniform(rng, 0.0f, 1999.0f))].w = uniform(rng, 2.0f, 5.0f);
  }
  // And some just larger than a cell (one mean diameter): listed in every cell they overlap,
  // where a reach of one cell would not cover them.
  for (int k = 0; k < 40; ++k) {
    spheres[static_cast<std::size_t>(uniform(rng, 0.0f, 1999.0f))].w = uniform(rng, 0.45f, 1.2f);
  }
  expect_methods_match_brute_force(spheres, random_settings(rng, false), "huge grains");
}

TEST_F(RenderTest, CameraInsideTheCloud) {
  Rng rng(fresh_seed());
  for (int k = 0; k < 4; ++k) {
    const auto spheres = dilute_gas(rng, 3000, 0.05f, 0.2f, 5.0f);
    RenderSettings s = random_settings(rng, false);
    s.camera.position =
        Vec3{uniform(rng, -1.0f, 1.0f), uniform(rng, -1.0f, 1.0f), uniform(rng, 0.5f, 2.0f)};
    s.camera.target = Vec3{uniform(rng, -3.0f, 3.0f), uniform(rng, -3.0f, 3.0f), 3.0f};
    expect_methods_match_brute_force(spheres, s, "camera inside the cloud");
  }
}

TEST_F(RenderTest, AxisAlignedViewsThroughCellFaces) {
  // Views straight down the axes put rays exactly on cell faces, edges and corners.
  Rng rng(fresh_seed());
  std::vector<Vec4> lattice;
  for (int x = 0; x < 12; ++x)
    for (int y = 0; y < 12; ++y)
      for (int z = 0; z < 12; ++z) lattice.push_back({float(x), float(y), float(z), 0.5f});
  const Vec3 views[] = {{5.5f, 5.5f, 40.0f}, {40.0f, 5.5f, 5.5f}, {5.5f, -40.0f, 5.5f}};
  for (const Vec3 eye : views) {
    for (const bool ortho : {false, true}) {
      RenderSettings s = random_settings(rng, ortho);
      s.camera.position = eye;
      s.camera.target = Vec3{5.5f, 5.5f, 5.5f};
      s.camera.ortho_height = 14.0f;
      s.camera.zoom = 1.0f;
      expect_methods_match_brute_force(lattice, s, "axis-aligned view");
    }
  }
}

TEST_F(RenderTest, EmptyFrameIsBackground) {
  Renderer renderer(test_backend());
  Rng rng(fresh_seed());
  RenderSettings s = random_settings(rng, false);
  s.shading.background = {uniform(rng, 0, 1), uniform(rng, 0, 1), uniform(rng, 0, 1)};
  Image image;
  const std::vector<Vec4> none;
  const FrameStats stats = renderer.render(view_of(none), s, image);
  ASSERT_EQ(image.rgb.size(), std::size_t(s.width) * s.height * 3);
  const Rgb8 bg = to_rgb8(s.shading.background);
  for (std::size_t p = 0; p < image.rgb.size(); p += 3) {
    ASSERT_EQ(image.rgb[p], bg.r);
    ASSERT_EQ(image.rgb[p + 1], bg.g);
    ASSERT_EQ(image.rgb[p + 2], bg.b);
  }
  EXPECT_EQ(stats.particles, 0u);
}

TEST_F(RenderTest, BrokenParticlesAreSkippedAndCounted) {
  Rng rng(fresh_seed());
  const auto good = dense_bed(rng, 1500, 0.3f, 0.5f);
  std::vector<std::uint64_t> good_ids(good.size());
  for (std::size_t i = 0; i < good.size(); ++i) good_ids[i] = 10 * i + 1;

  std::vector<Vec4> mixed;
  std::vector<std::uint64_t> mixed_ids;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Vec4 broken[] = {{nan, 0, 0, 1}, {0, inf, 0, 1}, {0, 0, -inf, 1}, {1, 1, 1, 0},
                         {1, 1, 1, -2},  {1, 1, 1, nan}, {1, 1, 1, inf}};
  std::size_t inserted = 0;
  for (std::size_t i = 0; i < good.size(); ++i) {
    if (rng() % 10 == 0) {
      mixed.push_back(broken[rng() % 7]);
      mixed_ids.push_back(10 * i + 5);
      ++inserted;
    }
    mixed.push_back(good[i]);
    mixed_ids.push_back(good_ids[i]);
  }
  const RenderSettings s = random_settings(rng, false);
  Renderer renderer(test_backend());
  for (const RenderMethod method :
       {RenderMethod::grid, RenderMethod::tiles, RenderMethod::brute_force}) {
    Image clean, dirty;
    renderer.render(view_of(good, &good_ids), s, clean, {method, true});
    const FrameStats stats = renderer.render(view_of(mixed, &mixed_ids), s, dirty, {method, true});
    EXPECT_EQ(stats.skipped, inserted);
    EXPECT_EQ(stats.particles, mixed.size());
    EXPECT_EQ(clean.rgb, dirty.rgb);
    EXPECT_EQ(clean.hit_id, dirty.hit_id);
  }
}

TEST_F(RenderTest, EqualDistanceGoesToTheSmallerId) {
  Rng rng(fresh_seed());
  const Vec4 s{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1),
               uniform(rng, 0.2f, 1)};
  const std::vector<Vec4> twins = {s, s, s};
  const std::uint64_t a = rng() >> 1, b = rng() >> 1, c = rng() >> 1;
  const std::uint64_t smallest = std::min({a, b, c});
  Renderer renderer(test_backend());
  for (const RenderMethod method :
       {RenderMethod::grid, RenderMethod::tiles, RenderMethod::brute_force}) {
    for (const std::vector<std::uint64_t>& ids :
         {std::vector<std::uint64_t>{a, b, c}, std::vector<std::uint64_t>{c, a, b}}) {
      Image image;
      renderer.render(view_of(twins, &ids), random_settings(rng, false), image, {method, true});
      std::size_t seen = 0;
      for (const auto id : image.hit_id) {
        if (id == ~std::uint64_t{0}) continue;
        ASSERT_EQ(id, smallest);
        ++seen;
      }
      EXPECT_GT(seen, 0u);
    }
  }
}

// RenderMethod::automatic takes the backend's fastest method (tiles on the CPU, the grid on the
// GPU), except that the CPU takes the grid when the tiles would list more entries than the image
// has pixels: here a thousand grains that each cover much of the picture.
TEST_F(RenderTest, AutomaticMethodIsTheBackendsFastestAndAvoidsOverfullTiles) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  const RenderMethod fastest =
      test_backend() == BackendKind::cuda ? RenderMethod::grid : RenderMethod::tiles;
  RenderSettings s = random_settings(rng, rng() % 2 == 0);
  s.width = std::uniform_int_distribution<int>(800, 1400)(rng);
  s.height = std::uniform_int_distribution<int>(500, 900)(rng);
  const auto bed = dense_bed(rng, 3000, 0.3f, 0.5f);
  Image image;
  EXPECT_EQ(renderer.render(view_of(bed), s, image).method, fastest);

  std::vector<Vec4> wall;
  for (int k = 0; k < 1000; ++k) {
    wall.push_back(
        {uniform(rng, 7, 9), uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, 3.5f, 5)});
  }
  // Each grain spans at least 45 degrees, more than half the narrow view's width.
  s = random_settings(rng, false);
  s.width = std::uniform_int_distribution<int>(300, 600)(rng);
  s.height = std::uniform_int_distribution<int>(250, 400)(rng);
  s.camera.fov = uniform(rng, 15.0f, 25.0f);
  s.camera.position = Vec3{0, 0, 0};
  s.camera.target = Vec3{1, uniform(rng, -0.05f, 0.05f), uniform(rng, -0.05f, 0.05f)};
  EXPECT_EQ(renderer.render(view_of(wall), s, image).method, RenderMethod::grid);
  expect_methods_match_brute_force(wall, s, "grains larger than the view");
}

// Where the tiles are the backend's fastest method (the CPU), a bed whose grid starts its primary
// rays at their near bounds (a pour, a heap: grains on a fraction of their box) takes the grid
// instead, unlit and lit; the path still keeps the tiles for its camera rays, and so do beds that
// fill their box (the drum). The image is the method's own, bit for bit, which the methods' tests
// hold to brute force. The images are large enough that the tiles hold fewer entries than pixels
// (else the CPU takes the grid whatever the bed).
TEST_F(RenderTest, AutomaticMethodTakesTheGridForBedsOnAFractionOfTheirBox) {
  Rng rng(fresh_seed());
  const bool cpu = test_backend() == BackendKind::cpu;
  Renderer renderer(test_backend());
  for (const char* name : {"pour", "heap", "drum"}) {
    const bench::SuiteScene scene = bench::make_suite_scene(name, 15000 + rng() % 10000, rng());
    const ParticleView view = view_of(scene.grains);
    const bool on_a_fraction = std::string(name) != "drum";
    SCOPED_TRACE(::testing::Message() << name << ", " << scene.grains.size() << " grains");
    RenderSettings unlit = sized_random_settings(rng, false, 400, 300);
    // The auto camera, which frames the whole bed: a random one close to the grains would make
    // the tiles overfull, and the CPU then takes the grid whatever the bed.
    unlit.camera = RenderSettings{}.camera;
    RenderSettings lit = unlit;
    lit.shading.shadows = true;
    lit.shading.ao_samples = 2;
    for (const RenderSettings& s : {unlit, lit}) {
      const RenderMethod expected =
          !cpu || on_a_fraction ? RenderMethod::grid : RenderMethod::tiles;
      Image automatic, chosen;
      EXPECT_EQ(renderer.render(view, s, automatic, {RenderMethod::automatic, true}).method,
                expected);
      renderer.render(view, s, chosen, {expected, true});
      EXPECT_EQ(automatic.rgb, chosen.rgb);
      EXPECT_EQ(automatic.hit_id, chosen.hit_id);
      std::size_t shown = 0;
      for (const auto id : chosen.hit_id) shown += id != ~std::uint64_t{0};
      EXPECT_GT(shown, chosen.hit_id.size() / 20) << "the bed shows too little to test";
      // A later band of the same frame reuses the grid just built: choosing the method again
      // must leave it (and its clearance) as it was.
      RenderOptions again{RenderMethod::automatic, true};
      again.same_particles = true;
      Image later;
      renderer.render(view, s, later, again);
      EXPECT_EQ(later.rgb, chosen.rgb) << "the same particles again";
      EXPECT_EQ(later.hit_id, chosen.hit_id) << "the same particles again";
    }
    RenderSettings path = unlit;
    path.model = ImageModel::path;
    path.path.samples = 1;
    path.shading.bounces = 1;
    Image image;
    EXPECT_EQ(renderer.render(view, path, image).method,
              cpu ? RenderMethod::tiles : RenderMethod::grid)
        << "path-traced still";
  }
}

TEST_F(RenderTest, ColourByScalarMatchesBruteForceAndThePublishedEnds) {
  Rng rng(fresh_seed());
  auto spheres = dense_bed(rng, 2000, 0.3f, 0.5f);
  std::vector<float> speed(spheres.size());
  for (auto& v : speed) v = uniform(rng, -3.0f, 7.0f);
  ParticleView view = view_of(spheres);
  view.scalar = speed.data();
  Renderer renderer(test_backend());
  for (const bool auto_range : {false, true}) {
    RenderSettings s = random_settings(rng, false);
    s.color =
        ColorMapping{static_cast<int>(rng() % colormap_names().size()), auto_range, -1.0f, 4.0f};
    Image brute;
    renderer.render(view, s, brute, {RenderMethod::brute_force, true});
    for (const RenderMethod method : {RenderMethod::grid, RenderMethod::tiles}) {
      Image image;
      const FrameStats gs = renderer.render(view, s, image, {method, true});
      const ImageDiff d = compare_images(image, brute);
      EXPECT_LE(d.differing_hit, 3u) << render_method_name(method);
      EXPECT_EQ(d.rgb_differs_same_hit, 0u) << render_method_name(method);
      EXPECT_TRUE(gs.colored);
      EXPECT_FLOAT_EQ(gs.color_lo,
                      auto_range ? *std::min_element(speed.begin(), speed.end()) : -1.0f);
      EXPECT_FLOAT_EQ(gs.color_hi,
                      auto_range ? *std::max_element(speed.begin(), speed.end()) : 4.0f);
    }
  }

  // Flat shading (ambient 1, diffuse 0) shows the colormap itself: viridis' published ends are
  // (0.267004, 0.004874, 0.329415) and (0.993248, 0.906157, 0.143936).
  const std::vector<Vec4> pair = {{-2, 0, 0, 1}, {2, 0, 0, 1}};
  const std::vector<float> ends = {uniform(rng, -50, 0), uniform(rng, 1, 50)};
  ParticleView pv = view_of(pair);
  pv.scalar = ends.data();
  RenderSettings flat;
  flat.width = 64;
  flat.height = 32;
  flat.camera.position = Vec3{0, -20, 0};
  flat.camera.target = Vec3{0, 0, 0};
  flat.shading.ambient = 1.0f;
  flat.shading.diffuse = 0.0f;
  flat.color = ColorMapping{0, false, 0.0f, 1.0f};
  Image image;
  renderer.render(pv, flat, image, {RenderMethod::grid, true});
  auto pixel_of = [&](std::uint64_t id) {
    for (std::size_t p = 0; p < image.hit_id.size(); ++p) {
      if (image.hit_id[p] == id)
        return Rgb8{image.rgb[3 * p], image.rgb[3 * p + 1], image.rgb[3 * p + 2]};
    }
    ADD_FAILURE() << "particle " << id << " not visible";
    return Rgb8{};
  };
  const Rgb8 low = pixel_of(0), high = pixel_of(1);
  EXPECT_EQ(low.r, 68);
  EXPECT_EQ(low.g, 1);
  EXPECT_EQ(low.b, 84);
  EXPECT_EQ(high.r, 253);
  EXPECT_EQ(high.g, 231);
  EXPECT_EQ(high.b, 37);
}

// contract 2 written out again in double precision, independently of the kernels.

TEST_F(RenderTest, ReferenceFollowsTheImageModel) {
  Rng rng(fresh_seed());
  const auto spheres = dilute_gas(rng, 60, 0.3f, 1.2f, 4.0f);
  Renderer renderer(test_backend());
  for (const bool ortho : {false, true}) {
    const RenderSettings s = random_settings(rng, ortho);
    Image image;
    const FrameStats stats = renderer.render(view_of(spheres), s, image);
    const ResolvedCamera& cam = stats.camera;
    const D3 e = d3(cam.eye), w = unit(e - d3(cam.target));
    const D3 u = unit(cross(d3(cam.up), w)), v = cross(w, u);
    const double a = double(s.width) / s.height;
    const double h = ortho ? cam.ortho_height / 2.0 : std::tan(cam.fov * M_PI / 360.0);
    const D3 light = unit(u * s.shading.light.x + v * s.shading.light.y + w * s.shading.light.z);
    std::size_t checked = 0, near_edge = 0;
    for (int j = 0; j < s.height; ++j) {
      for (int i = 0; i < s.width; ++i) {
        const double su = (2.0 * (i + 0.5) / s.width - 1.0) * a * h;
        const double sv = (1.0 - 2.0 * (j + 0.5) / s.height) * h;
        const D3 o = ortho ? e + u * su + v * sv : e;
        const D3 d = ortho ? w * -1.0 : unit(u * su + v * sv - w);
        double best = INFINITY, second = INFINITY, margin = INFINITY;
        int hit = -1;
        for (std::size_t k = 0; k < spheres.size(); ++k) {
          const D3 p{spheres[k].x, spheres[k].y, spheres[k].z};
          const double r = spheres[k].w;
          const D3 oc = o - p;
          const double b = dot(oc, d), disc = b * b - (dot(oc, oc) - r * r);
          margin = std::min(margin, std::abs(disc) / (r * r));
          if (disc <= 0) continue;
          const double t0 = -b - std::sqrt(disc);
          if (t0 <= 0) continue;
          if (t0 < best) {
            second = best;
            best = t0;
            hit = int(k);
          } else {
            second = std::min(second, t0);
          }
        }
        D3 colour = d3(s.shading.background);
        if (hit >= 0) {
          const D3 p{spheres[hit].x, spheres[hit].y, spheres[hit].z};
          const D3 n = (o + d * best - p) * (1.0 / spheres[hit].w);
          const double lambert = std::max(0.0, dot(n, light));
          colour = d3(s.shading.particle_color) * (s.shading.ambient + s.shading.diffuse * lambert);
        }
        // Silhouettes and near-equal distances are where float rounding may decide otherwise.
        if (margin < 1e-3 || (second - best) < 1e-4 * best) {
          ++near_edge;
          continue;
        }
        ASSERT_TRUE(pixel_within(image, i, j, colour));
        ++checked;
      }
    }
    EXPECT_GT(checked, std::size_t(s.width) * s.height * 9 / 10);
    EXPECT_LT(near_edge, std::size_t(s.width) * s.height / 10);
  }
}

TEST_F(RenderTest, RequestsTooLargeFailCleanly) {
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 5000, 0.4f, 0.5f);
  Renderer renderer(test_backend());
  RenderSettings s = random_settings(rng, false);
  Image image;

  renderer.set_memory_limit(std::size_t{1} << 20);
  s.width = 1000;
  s.height = 1000;
  EXPECT_THROW(renderer.render(view_of(spheres), s, image), OutOfMemoryError);

  s.width = 70000;
  s.height = 70000;
  EXPECT_THROW(renderer.render(view_of(spheres), s, image), ConfigError);

  // The renderer survives: within the budget the next frame renders.
  renderer.set_memory_limit(std::size_t{1} << 30);
  s.width = 120;
  s.height = 90;
  EXPECT_NO_THROW(renderer.render(view_of(spheres), s, image));
  EXPECT_EQ(image.rgb.size(), 120u * 90u * 3u);
}

}  // namespace
}  // namespace granray::test
