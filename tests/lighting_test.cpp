// contract 2a: shadows, ambient occlusion, highlights and antialiasing. Every method against the
// brute-force reference (every secondary ray tested against every sphere), the reference against
// the model written out again in double precision, ambient occlusion against an independent
// many-ray estimate, and the lit CUDA image against the CPU's. Built once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "granray/errors.h"
#include "granray/io/particle_file.h"
#include "reference_math.h"
#include "scene_suite.h"
#include "test_support.h"

namespace granray::test {
namespace {

// Random lighting with every feature on at least sometimes; shadows always, so that secondary
// rays are traced in every case.
void random_lighting(Rng& rng, ShadingSettings& s) {
  s.shadows = true;
  s.ao_samples = std::uniform_int_distribution<int>(0, 3)(rng) == 0
                     ? 0
                     : std::uniform_int_distribution<int>(1, 40)(rng);
  s.ao_distance =
      std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? 0.0f : uniform(rng, 0.2f, 3.0f);
  s.specular = std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 0.0f : uniform(rng, 0.1f, 0.8f);
  s.shininess = uniform(rng, 4.0f, 128.0f);
  const int sides[] = {1, 2, 3};
  const int side = sides[std::uniform_int_distribution<int>(0, 2)(rng)];
  s.samples = side * side;
}

struct PixelDiff {
  std::size_t differing = 0;
  int max_level = 0;
};

PixelDiff diff_rgb(const Image& a, const Image& b) {
  PixelDiff d;
  for (std::size_t p = 0; p < a.rgb.size() / 3; ++p) {
    int level = 0;
    for (int c = 0; c < 3; ++c) {
      level = std::max(level, std::abs(int(a.rgb[3 * p + c]) - int(b.rgb[3 * p + c])));
    }
    d.differing += level > 0;
    d.max_level = std::max(d.max_level, level);
  }
  return d;
}

class LightingTest : public OnEachBackend {
 protected:
  // Every method casts the same secondary rays as brute force and tests them against the same
  // spheres with the same function: the images agree except where a primary sample's nearest
  // sphere is decided by float rounding at a silhouette.
  // `least_shown`: the share of the samples that must show a grain for the scene to test
  // something (the suite's thin columns and lone clusters may fill a twentieth of a random view).
  void expect_methods_match_brute_force(const std::vector<Vec4>& spheres,
                                        const RenderSettings& settings, const char* label,
                                        std::size_t least_shown = 20) {
    Renderer renderer(test_backend());
    std::size_t shown = 0, pixels = 0;
    against_brute_force(
        renderer, view_of(spheres), settings,
        [&](RenderMethod method, const Image& image, const FrameStats& stats, const Image& brute) {
          shown = 0;
          for (const auto id : brute.hit_id) shown += id != ~std::uint64_t{0};
          pixels = brute.hit_id.size();
          SCOPED_TRACE(::testing::Message()
                       << label << ", " << render_method_name(method) << ": " << spheres.size()
                       << " spheres, " << settings.width << "x" << settings.height << ", samples "
                       << settings.shading.samples << ", ao " << settings.shading.ao_samples
                       << ", specular " << settings.shading.specular);
          EXPECT_EQ(stats.method, method);
          const PixelDiff d = diff_rgb(image, brute);
          const std::size_t allowed = 3u + image.rgb.size() / 3 / 5000;
          EXPECT_LE(d.differing, allowed) << "max level " << d.max_level;
          std::size_t other_hit = 0;
          for (std::size_t p = 0; p < brute.hit_id.size(); ++p) {
            other_hit += image.hit_id[p] != brute.hit_id[p];
          }
          EXPECT_LE(other_hit, allowed) << "pixels whose first sample shows another grain";
        });
    EXPECT_GT(shown, spheres.size() < 100 ? 0 : pixels / least_shown)
        << "the scene shows too little to test";
  }
};

TEST_F(LightingTest, GridAndTilesMatchBruteForceOnRandomScenes) {
  Rng rng(fresh_seed());
  const SceneCase cases[] = {{"dense monodisperse bed", 1200, 0.5f, 0.5f, false},
                             {"dense polydisperse bed", 1200, 0.2f, 0.6f, false},
                             {"dilute polydisperse gas", 600, 0.05f, 0.6f, true},
                             {"a few particles", 7, 0.3f, 1.5f, true}};
  for (const SceneCase& c : cases) {
    for (const bool ortho : {false, true}) {
      const auto spheres = random_scene(rng, c, 6.0f);
      RenderSettings s = small_random_settings(rng, ortho);
      random_lighting(rng, s.shading);
      expect_methods_match_brute_force(spheres, s, c.label);
    }
  }
}

// Shadow rays along the light's columns (kernels/light_columns.h): a frame with a few hundred
// shadow rays per grain reads them on either backend (its statistics say so, for the grid and the
// tiles alike), and its pixels are brute force's. Dense beds, a gas, and a bed with a few boulders
// (listed in many cells, each kept in the columns once), in perspective and not.
TEST_F(LightingTest, ShadowRaysReadingTheLightsColumnsMatchBruteForce) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 5; ++round) {
    auto spheres =
        round == 3 ? random_scene(rng, {"dilute polydisperse gas", 300, 0.05f, 0.6f, true}, 6.0f)
                   : dense_bed(rng, 300 + rng() % 300, 0.2f, 0.5f);
    if (round == 4) {
      for (int b = 0; b < 3; ++b) {
        const Vec4 at = spheres[rng() % spheres.size()];
        spheres.push_back({at.x, at.y, at.z + 2.0f, uniform(rng, 1.5f, 2.5f)});
      }
    }
    RenderSettings s = sized_random_settings(rng, round % 2 == 1, 160, 120);
    random_lighting(rng, s.shading);
    s.shading.samples = 4;
    against_brute_force(
        renderer, view_of(spheres), s,
        [&](RenderMethod method, const Image& image, const FrameStats& stats, const Image& brute) {
          SCOPED_TRACE(::testing::Message()
                       << "round " << round << ", " << render_method_name(method) << ", "
                       << spheres.size() << " spheres");
          EXPECT_GT(stats.light_column_entries, spheres.size() / 2);
          const PixelDiff d = diff_rgb(image, brute);
          EXPECT_LE(d.differing, 3u + image.rgb.size() / 3 / 5000) << "max level " << d.max_level;
        });
  }
}

// The LIGGGHTS packing (20,000 glass beads): real contacts and overlaps.
// Shadows, occlusion, highlights and antialiasing on the benchmark suite's scenes
// (bench/scene_suite.h), fresh seeds: beds that leave most of their box empty.
TEST_F(LightingTest, EverySceneOfTheSuiteMatchesBruteForce) {
  Rng rng(fresh_seed());
  for (const std::string& name : bench::suite_scene_names()) {
    const bench::SuiteScene scene = bench::make_suite_scene(name, 400 + rng() % 500, rng());
    RenderSettings s = small_random_settings(rng, rng() % 2 == 0);
    random_lighting(rng, s.shading);
    if (!scene.walls.empty()) s.walls = std::make_shared<WallList>(scene.walls);
    expect_methods_match_brute_force(scene.grains, s, name.c_str(), 200);
  }
}

TEST_F(LightingTest, LiggghtsPackingMatchesBruteForce) {
  const std::string path = shared_data(kLiggghtsPacking);
  if (path.empty()) GTEST_SKIP() << "../shared/data not present";
  const std::vector<io::ParticleFrame> frames = io::read_particle_file(path);
  ASSERT_FALSE(frames.empty());
  Rng rng(fresh_seed());
  RenderSettings s = close_lit_view(rng, 72, 54);
  s.shading.specular = 0.3f;
  s.shading.samples = 4;
  expect_methods_match_brute_force(frames[0].xyzr, s, "LIGGGHTS packing");
}

// contract 2a (shadows, highlight, antialiasing) written out again in double precision.
D3 centre(Vec4 s) { return {s.x, s.y, s.z}; }

// The nearest entry into any sphere, and how close to a decision float rounding could come.
struct DoubleHit {
  int index = -1;
  double t = INFINITY;
  bool ambiguous = false;
};

DoubleHit nearest(const std::vector<Vec4>& spheres, D3 o, D3 d) {
  DoubleHit hit;
  double second = INFINITY;
  for (std::size_t k = 0; k < spheres.size(); ++k) {
    const double r = spheres[k].w;
    const D3 oc = o - centre(spheres[k]);
    const double b = dot(oc, d), disc = b * b - (dot(oc, oc) - r * r);
    if (std::abs(disc) / (r * r) < 1e-3) hit.ambiguous = true;
    if (disc <= 0) continue;
    const double t0 = -b - std::sqrt(disc);
    if (t0 <= 0) continue;
    if (t0 < hit.t) {
      second = hit.t;
      hit.t = t0;
      hit.index = int(k);
    } else {
      second = std::min(second, t0);
    }
  }
  if (second - hit.t < 1e-4 * hit.t) hit.ambiguous = true;
  return hit;
}

// Is the ray from o along unit d blocked by a sphere other than `skip`? Ambiguous when a root
// lies within rounding of 0 or the ray grazes a sphere.
bool blocked(const std::vector<Vec4>& spheres, int skip, D3 o, D3 d, bool& ambiguous) {
  bool any = false;
  for (std::size_t k = 0; k < spheres.size(); ++k) {
    if (int(k) == skip) continue;
    const double r = spheres[k].w;
    const D3 oc = o - centre(spheres[k]);
    const double b = dot(oc, d), disc = b * b - (dot(oc, oc) - r * r);
    if (std::abs(disc) / (r * r) < 1e-3) ambiguous = true;
    if (disc <= 0) continue;
    const double t0 = -b - std::sqrt(disc), t1 = -b + std::sqrt(disc);
    if (std::abs(t0) < 1e-3 * r || std::abs(t1) < 1e-3 * r) ambiguous = true;
    any = any || t1 > 0;
  }
  return any;
}

TEST_F(LightingTest, ReferenceFollowsTheLightingModel) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 4; ++round) {
    ReferenceScene scene = reference_scene(rng, round);
    const std::vector<Vec4>& spheres = scene.spheres;
    RenderSettings& s = scene.settings;
    s.shading.shadows = true;
    s.shading.specular = uniform(rng, 0.2f, 0.9f);
    s.shading.shininess = uniform(rng, 4.0f, 64.0f);
    const int side = std::uniform_int_distribution<int>(1, 4)(rng);
    s.shading.samples = side * side;
    Image image;
    const FrameStats stats =
        renderer.render(view_of(spheres), s, image, {RenderMethod::brute_force, false});
    const DoubleCamera cam(stats.camera, s);
    const D3 light =
        unit(cam.u * s.shading.light.x + cam.v * s.shading.light.y + cam.w * s.shading.light.z);
    std::size_t checked = 0, ambiguous_pixels = 0, shadowed = 0;
    for (int j = 0; j < s.height; ++j) {
      for (int i = 0; i < s.width; ++i) {
        D3 sum{0, 0, 0};
        bool ambiguous = false;
        for (const auto& [fx, fy] : sample_offsets(side)) {
          D3 o, d;
          cam.ray(i + fx, j + fy, o, d);
          const DoubleHit hit = nearest(spheres, o, d);
          ambiguous = ambiguous || hit.ambiguous;
          D3 c = d3(s.shading.background);
          if (hit.index >= 0) {
            const Vec4 sp = spheres[hit.index];
            const D3 n = (o + d * hit.t - centre(sp)) * (1.0 / sp.w);
            const D3 origin = centre(sp) + n * (sp.w * (1.0 + 1e-4));
            const bool dark = blocked(spheres, hit.index, origin, light, ambiguous);
            shadowed += dark;
            const double S = dark ? 0.0 : 1.0;
            const double lambert = std::max(0.0, dot(n, light));
            const double spec =
                s.shading.specular * S *
                std::pow(std::max(0.0, dot(n, unit(light - d))), double(s.shading.shininess));
            c = d3(s.shading.particle_color) *
                    (s.shading.ambient + s.shading.diffuse * lambert * S) +
                D3{spec, spec, spec};
          }
          sum = sum +
                D3{std::clamp(c.x, 0.0, 1.0), std::clamp(c.y, 0.0, 1.0), std::clamp(c.z, 0.0, 1.0)};
        }
        if (ambiguous) {
          ++ambiguous_pixels;
          continue;
        }
        ASSERT_TRUE(pixel_within(image, i, j, sum * (1.0 / (side * side))))
            << "round " << round << ", samples " << side * side;
        ++checked;
      }
    }
    EXPECT_GT(checked, std::size_t(s.width) * s.height * 7 / 10) << "round " << round;
    if (round >= 2) EXPECT_GT(shadowed, 0u) << "a bed must shadow itself somewhere";
    (void)ambiguous_pixels;
  }
}

// Ambient occlusion against an estimate with many independent random rays (uniform random
// cosine-distributed directions from the test's own generator), after a 5 x 5 box filter of
// both images: the renderer's stratified rays must estimate the same visible fraction.
TEST_F(LightingTest, AmbientOcclusionMatchesAManyRayEstimate) {
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 800, 0.4f, 0.5f);
  Renderer renderer(test_backend());
  RenderSettings s;
  s.width = 64;
  s.height = 48;
  s.camera.zoom = 2.0f;
  s.camera.theta = uniform(rng, 40.0f, 70.0f);
  s.camera.phi = uniform(rng, -180.0f, 180.0f);
  s.shading.ambient = 1.0f;
  s.shading.diffuse = 0.0f;
  s.shading.particle_color = {1.0f, 1.0f, 1.0f};
  s.shading.background = {0.0f, 0.0f, 0.0f};
  s.shading.ao_samples = 64;
  s.shading.ao_distance = uniform(rng, 1.0f, 2.0f);
  Image image;
  RenderOptions with_hits{RenderMethod::automatic, true};
  const FrameStats stats = renderer.render(view_of(spheres), s, image, with_hits);
  const DoubleCamera cam(stats.camera, s);
  constexpr int kRays = 4096;
  std::uniform_real_distribution<double> unit_interval(0.0, 1.0);
  std::vector<double> estimate(std::size_t(s.width) * s.height, -1.0);
  for (int j = 0; j < s.height; ++j) {
    for (int i = 0; i < s.width; ++i) {
      D3 o, d;
      cam.ray(i + 0.5, j + 0.5, o, d);
      const DoubleHit hit = nearest(spheres, o, d);
      if (hit.index < 0) continue;
      const Vec4 sp = spheres[hit.index];
      const D3 n = (o + d * hit.t - centre(sp)) * (1.0 / sp.w);
      const D3 origin = centre(sp) + n * (sp.w * (1.0 + 1e-4));
      const D3 helper = std::abs(n.x) < 0.9 ? D3{1, 0, 0} : D3{0, 1, 0};
      const D3 t1 = unit(cross(helper, n)), t2 = cross(n, t1);
      // Only spheres within reach of the origin can block a ray of this length.
      std::vector<int> near;
      for (std::size_t q = 0; q < spheres.size(); ++q) {
        const D3 oc = origin - centre(spheres[q]);
        const double reach = s.shading.ao_distance + spheres[q].w;
        if (int(q) != hit.index && dot(oc, oc) < reach * reach) near.push_back(int(q));
      }
      int open = 0;
      for (int k = 0; k < kRays; ++k) {
        const double u1 = unit_interval(rng), phi = 2.0 * M_PI * unit_interval(rng);
        const D3 dir = t1 * (std::sqrt(u1) * std::cos(phi)) + t2 * (std::sqrt(u1) * std::sin(phi)) +
                       n * std::sqrt(1.0 - u1);
        bool near_block = false;
        for (std::size_t m = 0; m < near.size() && !near_block; ++m) {
          const int q = near[m];
          const double r = spheres[q].w;
          const D3 oc = origin - centre(spheres[q]);
          const double b = dot(oc, dir), disc = b * b - (dot(oc, oc) - r * r);
          if (disc <= 0) continue;
          const double r0 = -b - std::sqrt(disc), r1 = -b + std::sqrt(disc);
          near_block =
              (r0 > 0 && r0 < s.shading.ao_distance) || (r1 > 0 && r1 < s.shading.ao_distance);
        }
        open += !near_block;
      }
      estimate[std::size_t(j) * s.width + i] = 255.0 * open / kRays;
    }
  }
  // 5 x 5 means where the whole window shows grains.
  std::size_t compared = 0, within_two = 0, within_four = 0;
  double total_difference = 0.0, signed_difference = 0.0;
  for (int j = 2; j < s.height - 2; ++j) {
    for (int i = 2; i < s.width - 2; ++i) {
      double mine = 0.0, theirs = 0.0;
      bool full = true;
      for (int y = j - 2; y <= j + 2 && full; ++y) {
        for (int x = i - 2; x <= i + 2; ++x) {
          const std::size_t p = std::size_t(y) * s.width + x;
          if (estimate[p] < 0.0) {
            full = false;
            break;
          }
          mine += image.rgb[3 * p];
          theirs += estimate[p];
        }
      }
      if (!full) continue;
      const double difference = std::abs(mine - theirs) / 25.0;
      signed_difference += (mine - theirs) / 25.0;
      ++compared;
      within_two += difference <= 2.0;
      within_four += difference <= 4.0;
      total_difference += difference;
    }
  }
  ASSERT_GT(compared, std::size_t(s.width) * s.height / 4) << "the bed should fill the view";
  // The estimates differ by noise alone: no bias, and small everywhere. (Uniform instead of
  // cosine-distributed rays give a bias of several levels.)
  SCOPED_TRACE(::testing::Message()
               << compared << " windows, mean difference " << total_difference / compared
               << ", signed " << signed_difference / compared);
  // Over 16 seeds the signed mean had a standard deviation of 0.1 levels and the mean
  // difference stayed in 0.66..0.83.
  EXPECT_LT(std::abs(signed_difference / compared), 0.6);
  EXPECT_LT(total_difference / compared, 1.1);
  EXPECT_GE(within_two, compared * 85 / 100);
  EXPECT_GE(within_four, compared * 98 / 100);
}

// A lone sphere casts no shadow on itself and hides no sky from itself: with shadows and
// occlusion on, one sample per pixel and no highlight, its image is the unlit one, byte for byte.
TEST_F(LightingTest, ALoneSphereLitEqualsUnlit) {
  Rng rng(fresh_seed());
  const std::vector<Vec4> one = {
      {uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, 0.2f, 2.0f)}};
  Renderer renderer(test_backend());
  for (const bool ortho : {false, true}) {
    RenderSettings s = random_settings(rng, ortho);
    Image unlit, lit;
    renderer.render(view_of(one), s, unlit);
    s.shading.shadows = true;
    s.shading.ao_samples = std::uniform_int_distribution<int>(1, 32)(rng);
    renderer.render(view_of(one), s, lit);
    EXPECT_EQ(lit.rgb, unlit.rgb);
  }
}

// Four samples of a pixel fully inside one flat-lit region equal its one sample; at an edge the
// pixel is their mean, between the two sides.
TEST_F(LightingTest, AntialiasingAveragesAcrossSilhouettes) {
  Rng rng(fresh_seed());
  const auto spheres = dilute_gas(rng, 30, 0.4f, 1.0f, 4.0f);
  Renderer renderer(test_backend());
  RenderSettings s = random_settings(rng, false);
  s.shading.diffuse = 0.0f;  // flat: every grain one colour, the background another
  s.shading.ambient = 1.0f;
  s.shading.particle_color = {0.0f, 0.0f, 0.0f};
  s.shading.background = {1.0f, 1.0f, 1.0f};
  Image sharp, smooth;
  renderer.render(view_of(spheres), s, sharp);
  s.shading.samples = 16;
  renderer.render(view_of(spheres), s, smooth);
  std::size_t grey = 0;
  for (const std::uint8_t v : smooth.rgb) grey += v != 0 && v != 255;
  // Every grey pixel is a mean of 16 black-or-white samples: a multiple of 255 / 16.
  for (std::size_t p = 0; p < smooth.rgb.size(); ++p) {
    const int v = smooth.rgb[p];
    bool mean_of_samples = false;
    for (int k = 0; k <= 16; ++k)
      mean_of_samples |= v == int(std::floor(255.0f * k / 16.0f + 0.5f));
    EXPECT_TRUE(mean_of_samples) << "value " << v;
  }
  EXPECT_GT(grey, 0u) << "silhouettes must be smoothed";
  const PixelDiff d = diff_rgb(sharp, smooth);
  EXPECT_GT(d.differing, 0u);
  EXPECT_LT(d.differing, sharp.rgb.size() / 3 / 3) << "only silhouette pixels change";
}

#if defined(GRANRAY_TEST_CUDA)
// The lit CUDA image against the CPU's: the same rays (no fused multiply-adds on the device), so
// only cosf/sinf/powf's last bits and silhouettes may differ.
TEST_F(LightingTest, CudaMatchesTheCpu) {
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 20000, 0.3f, 0.5f);
  RenderSettings s = sized_random_settings(rng, false, 640, 360);
  s.shading.shadows = true;
  s.shading.ao_samples = 8;
  s.shading.specular = 0.3f;
  s.shading.samples = 4;
  Renderer gpu(BackendKind::cuda), cpu(BackendKind::cpu);
  Image a, b;
  gpu.render(view_of(spheres), s, a);
  cpu.render(view_of(spheres), s, b);
  const PixelDiff d = diff_rgb(a, b);
  EXPECT_LE(d.differing, a.rgb.size() / 3 / 1000) << "max level " << d.max_level;
}
#endif

TEST_F(LightingTest, BadLightingSettingsFailCleanly) {
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 100, 0.4f, 0.5f);
  Renderer renderer(test_backend());
  RenderSettings s = random_settings(rng, false);
  Image image;
  s.shading.samples = 5;
  EXPECT_THROW(renderer.render(view_of(spheres), s, image), ConfigError);
  s.shading.samples = 4;
  s.shading.ao_samples = kMaxAoSamples + 1;
  EXPECT_THROW(renderer.render(view_of(spheres), s, image), ConfigError);
  s.shading.ao_samples = 4;
  s.shading.ao_distance = -1.0f;
  EXPECT_THROW(renderer.render(view_of(spheres), s, image), ConfigError);
  s.shading.ao_distance = 0.0f;
  EXPECT_NO_THROW(renderer.render(view_of(spheres), s, image));
}

}  // namespace
}  // namespace granray::test
