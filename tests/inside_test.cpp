// contract 2d, seeing inside a bed: outlines and the depth cue. Every method against the
// brute-force reference on random scenes, unlit and lit, and the reference against the model
// written out again in double precision. Built once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "granray/errors.h"
#include "reference_math.h"
#include "test_support.h"

namespace granray::test {
namespace {

class InsideTest : public OnEachBackend {};

// Outlines are decided like silhouettes (the same closest-approach distance), so the methods
// differ from brute force only where float rounding decides which grain a ray meets first.
TEST_F(InsideTest, GridAndTilesMatchBruteForceWithOutlinesAndDepthCue) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  int outlined = 0, cued = 0;
  for (int round = 0; round < 8; ++round) {
    const bool dilute = round % 4 == 3;
    const auto spheres =
        dilute ? dilute_gas(rng, 600, 0.05f, 0.6f, 6.0f) : dense_bed(rng, 1200, 0.2f, 0.6f);
    RenderSettings s = small_random_settings(rng, round % 2 == 1);
    random_inside_shading(rng, s.shading);
    if (round < 2) s.shading.outline = uniform(rng, 0.05f, 0.6f);  // each at least twice
    if (round >= 6) s.shading.depth_cue = uniform(rng, 0.2f, 1.0f);
    if (round >= 4) {  // the lit passes shade the samples
      s.shading.shadows = rng() % 2 == 0;
      s.shading.samples = rng() % 2 == 0 ? 4 : 9;
    }
    outlined += s.shading.outline > 0.0f;
    cued += s.shading.depth_cue > 0.0f;
    against_brute_force(
        renderer, view_of(spheres), s,
        [&](RenderMethod method, const Image& image, const FrameStats&, const Image& brute) {
          const ImageDiff d = compare_images(image, brute);
          SCOPED_TRACE(::testing::Message()
                       << render_method_name(method) << ", round " << round << ", outline "
                       << s.shading.outline << ", depth cue " << s.shading.depth_cue << ", samples "
                       << s.shading.samples);
          const std::size_t allowed = 3u + d.pixels / 5000;
          EXPECT_LE(d.differing_hit, allowed);
          EXPECT_LE(d.differing_rgb, allowed) << "max level " << d.max_level;
        });
  }
  EXPECT_GE(outlined, 2);
  EXPECT_GE(cued, 2);
}

// contract 2d categories: with ambient 1 and diffuse 0 a grain shows its base colour unchanged, so
// every pixel that shows a grain shows entry floor(s + 0.5) mod n of the palette for its scalar
// s: integers, halves (which round up), any value, negative ones and NaN (entry 0) among them.
TEST_F(InsideTest, CategoriesColourEachGrainByItsPaletteEntry) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 4; ++round) {
    const auto spheres = dense_bed(rng, 800, 0.3f, 0.5f);
    std::vector<float> type(spheres.size());
    for (float& t : type) {
      const float k = float(int(rng() % 41) - 20);
      const int kind = int(rng() % 10);
      t = kind < 4 ? k : kind < 7 ? k + 0.5f : kind < 9 ? uniform(rng, -30.0f, 30.0f) : NAN;
    }
    RenderSettings s = random_settings(rng, round % 2 == 1);
    s.shading.ambient = 1.0f;
    s.shading.diffuse = 0.0f;
    s.color = ColorMapping{};
    if (round == 0) {
      s.color->palette = tableau10_palette();
    } else {
      s.color->palette.resize(1 + rng() % 12);
      for (Vec3& c : s.color->palette) {
        c = {uniform(rng, 0, 1), uniform(rng, 0, 1), uniform(rng, 0, 1)};
      }
    }
    ParticleView view = view_of(spheres);
    view.scalar = type.data();
    s.category_census = round % 2 == 0;
    // Some grains clipped away: the census lists only the values drawn.
    const SceneBounds box = [&] {
      SceneBounds b{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0, 0, 0};
      for (const Vec4& p : spheres) {
        b.lo = {std::min(b.lo.x, p.x), std::min(b.lo.y, p.y), std::min(b.lo.z, p.z)};
        b.hi = {std::max(b.hi.x, p.x), std::max(b.hi.y, p.y), std::max(b.hi.z, p.z)};
      }
      return b;
    }();
    s.clip = {{(box.lo + box.hi) * 0.5f, {1.0f, 0.3f, 0.1f}}};
    Image image;
    const FrameStats stats = renderer.render(view, s, image, {RenderMethod::automatic, true});
    EXPECT_TRUE(stats.colored);
    std::array<std::uint64_t, kCategoryWords> drawn{};
    for (std::size_t k = 0; k < spheres.size() && s.category_census; ++k) {
      const Vec4 p = spheres[k];
      const bool clipped = dot(Vec3{p.x, p.y, p.z} - s.clip[0].point, s.clip[0].normal) > 0.0f;
      const double value = std::floor(double(type[k]) + 0.5);
      if (clipped || !(value >= 0.0 && value < 64.0 * kCategoryWords)) continue;
      drawn[std::size_t(value) / 64] |= std::uint64_t{1} << (int(value) % 64);
    }
    EXPECT_EQ(stats.categories, drawn) << "round " << round;
    const long long n = static_cast<long long>(s.color->palette.size());
    std::size_t shown = 0;
    for (std::size_t p = 0; p < image.hit_id.size(); ++p) {
      if (image.hit_id[p] == ~std::uint64_t{0}) continue;
      const float t = type[image.hit_id[p]];
      long long entry = 0;
      if (std::isfinite(t))
        entry = ((static_cast<long long>(std::floor(double(t) + 0.5)) % n) + n) % n;
      const Vec3 c = s.color->palette[std::size_t(entry)];
      const float expected[3] = {c.x, c.y, c.z};
      for (int ch = 0; ch < 3; ++ch) {
        ASSERT_EQ(int(image.rgb[3 * p + ch]), int(std::floor(255.0 * expected[ch] + 0.5)))
            << "pixel " << p << ", grain " << image.hit_id[p] << " of value " << t
            << ", palette of " << n << ", round " << round;
      }
      ++shown;
    }
    // The clip plane can leave a small part of the bed in view (553 of 11,540 pixels in one
    // draw): the check only needs grains to have been looked at.
    EXPECT_GT(shown, image.hit_id.size() / 100) << "round " << round;
  }
}

// contract 2d selection: the grains outside the range are removed like clipped ones. The frame
// equals the frame of the selected grains alone (same ids), unlit and lit (an unselected grain
// casts no shadow), by a value of its own or by the colour scalar; the auto camera and the census
// still count every grain.
TEST_F(InsideTest, SelectionDrawsExactlyTheSelectedGrains) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 6; ++round) {
    const auto spheres =
        round % 3 == 2 ? dilute_gas(rng, 600, 0.1f, 0.6f, 6.0f) : dense_bed(rng, 1000, 0.3f, 0.5f);
    std::vector<float> speed(spheres.size()), type(spheres.size());
    for (std::size_t k = 0; k < spheres.size(); ++k) {
      speed[k] = uniform(rng, 0.0f, 5.0f);
      type[k] = float(rng() % 4);
    }
    const bool by_type = round % 2 == 0;
    RenderSettings s = small_random_settings(rng, round % 3 == 1);
    s.color = ColorMapping{int(rng() % 7), false, 0.0f, 5.0f};
    s.select = by_type ? SelectRange{1.0f, float(1 + rng() % 2)}
                       : SelectRange{uniform(rng, 0.0f, 2.0f), uniform(rng, 2.5f, 5.0f)};
    if (round >= 3) {
      s.shading.shadows = true;
      s.shading.ao_samples = 4;
      s.shading.ao_distance = 1.0f;
      s.shading.samples = 4;
    }
    ParticleView all = view_of(spheres);
    all.scalar = speed.data();
    all.select_scalar = by_type ? type.data() : nullptr;
    Image everything;
    const FrameStats unselected = [&] {
      RenderSettings none = s;
      none.select.reset();
      return renderer.render(all, none, everything, {RenderMethod::automatic, true});
    }();
    // The frame of the selected grains alone, framed by the box of every grain as one rank's
    // part of a scene is.
    RenderSettings plain = s;
    plain.select.reset();
    RenderOptions framed{RenderMethod::automatic, true};
    framed.camera_bounds = renderer.measure(all).bounds;
    std::vector<Vec4> kept;
    std::vector<float> kept_speed;
    std::vector<std::uint64_t> kept_ids;
    for (std::size_t k = 0; k < spheres.size(); ++k) {
      const float v = by_type ? type[k] : speed[k];
      if (v >= s.select->lo && v <= s.select->hi) {
        kept.push_back(spheres[k]);
        kept_speed.push_back(speed[k]);
        kept_ids.push_back(k);
      }
    }
    ASSERT_FALSE(kept.empty());
    ASSERT_LT(kept.size(), spheres.size());
    ParticleView subset = view_of(kept, &kept_ids);
    subset.scalar = kept_speed.data();
    for (const RenderMethod method : {RenderMethod::brute_force, RenderMethod::automatic}) {
      Image selected, expected;
      const FrameStats stats = renderer.render(all, s, selected, {method, true});
      framed.method = method;
      renderer.render(subset, plain, expected, framed);
      SCOPED_TRACE(::testing::Message()
                   << "round " << round << ", " << render_method_name(stats.method) << ", by "
                   << (by_type ? "type" : "the colour scalar"));
      EXPECT_EQ(stats.particles, spheres.size());
      EXPECT_EQ(stats.hidden, spheres.size() - kept.size());
      EXPECT_EQ(stats.camera.eye.x, unselected.camera.eye.x) << "the camera must not move";
      EXPECT_EQ(selected.hit_id, expected.hit_id);
      const ImageDiff d = compare_images(selected, expected);
      EXPECT_EQ(d.differing_rgb, 0u) << "max level " << d.max_level;
    }
  }
}

// A selection that keeps nothing is a background frame, not an error; one without any value to
// test is an error.
TEST_F(InsideTest, AnEmptySelectionIsABackgroundFrame) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  const auto spheres = dense_bed(rng, 300, 0.3f, 0.5f);
  std::vector<float> speed(spheres.size());
  for (float& v : speed) v = uniform(rng, 0.0f, 1.0f);
  RenderSettings s = random_settings(rng, false);
  s.select = SelectRange{2.0f, 3.0f};
  ParticleView view = view_of(spheres);
  view.scalar = speed.data();
  Image image;
  const FrameStats stats = renderer.render(view, s, image, {RenderMethod::automatic, true});
  EXPECT_EQ(stats.hidden, spheres.size());
  for (const auto id : image.hit_id) ASSERT_EQ(id, ~std::uint64_t{0});
  view.scalar = nullptr;
  EXPECT_THROW(renderer.render(view, s, image), ConfigError);
}

D3 centre(Vec4 s) { return {s.x, s.y, s.z}; }

// contract 2 and 2d written out again in double precision: the nearest entry, the outline where the
// ray's distance to the centre exceeds r (1 - outline), the flat shading, then the depth cue over
// the depths of the scene box's corners; antialiased by the mean of a regular grid of samples.
TEST_F(InsideTest, ReferenceFollowsTheOutlineAndDepthCueModel) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 4; ++round) {
    const bool ortho = round % 2 == 1;
    ReferenceScene scene = reference_scene(rng, round);
    const std::vector<Vec4>& spheres = scene.spheres;
    RenderSettings& s = scene.settings;
    s.shading.outline = uniform(rng, 0.05f, 0.5f);
    s.shading.outline_color = {uniform(rng, 0, 1), uniform(rng, 0, 1), uniform(rng, 0, 1)};
    s.shading.depth_cue = uniform(rng, 0.3f, 1.0f);
    if (rng() % 2 == 0) s.shading.depth_cue_color = Vec3{0.1f, 0.2f, 0.9f};
    s.shading.background = {uniform(rng, 0, 1), uniform(rng, 0, 1), uniform(rng, 0, 1)};
    const int side = round == 3 ? 2 : 1;  // four samples take the lit passes
    s.shading.samples = side * side;
    Image image;
    const FrameStats stats =
        renderer.render(view_of(spheres), s, image, {RenderMethod::brute_force, false});
    const ResolvedCamera& rc = stats.camera;
    const D3 e = d3(rc.eye), w = unit(e - d3(rc.target)), u = unit(cross(d3(rc.up), w));
    const D3 v = cross(w, u);
    const double aspect = double(s.width) / s.height;
    const double h = ortho ? rc.ortho_height / 2.0 : std::tan(rc.fov * M_PI / 360.0);
    const D3 light = unit(u * s.shading.light.x + v * s.shading.light.y + w * s.shading.light.z);
    // z_near and z_far: the corners of the box of every sphere (p - r .. p + r).
    D3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (const Vec4& p : spheres) {
      lo = {std::min(lo.x, double(p.x - p.w)), std::min(lo.y, double(p.y - p.w)),
            std::min(lo.z, double(p.z - p.w))};
      hi = {std::max(hi.x, double(p.x + p.w)), std::max(hi.y, double(p.y + p.w)),
            std::max(hi.z, double(p.z + p.w))};
    }
    double z_near = INFINITY, z_far = -INFINITY;
    for (int k = 0; k < 8; ++k) {
      const D3 x{k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
      z_near = std::min(z_near, dot(x - e, w * -1.0));
      z_far = std::max(z_far, dot(x - e, w * -1.0));
    }
    const D3 cue = d3(s.shading.depth_cue_color.value_or(s.shading.background));
    std::size_t checked = 0, rim = 0, faded = 0;
    for (int j = 0; j < s.height; ++j) {
      for (int i = 0; i < s.width; ++i) {
        D3 sum{0, 0, 0};
        bool ambiguous = false;
        for (const auto& [fx, fy] : sample_offsets(side)) {
          const double su = (2.0 * (i + fx) / s.width - 1.0) * aspect * h;
          const double sv = (1.0 - 2.0 * (j + fy) / s.height) * h;
          const D3 o = ortho ? e + u * su + v * sv : e;
          const D3 d = ortho ? w * -1.0 : unit(u * su + v * sv - w);
          int best = -1;
          double t = INFINITY, second = INFINITY, b2_best = 0;
          for (std::size_t k = 0; k < spheres.size(); ++k) {
            const double r = spheres[k].w;
            const D3 oc = o - centre(spheres[k]);
            const double along = dot(oc, d), b2 = dot(oc, oc) - along * along;
            if (std::abs(r * r - b2) / (r * r) < 1e-3) ambiguous = true;
            if (b2 >= r * r) continue;
            const double t0 = -along - std::sqrt(r * r - b2);
            if (t0 <= 0) continue;
            if (t0 < t) {
              second = t;
              t = t0;
              best = int(k);
              b2_best = b2;
            } else {
              second = std::min(second, t0);
            }
          }
          if (second - t < 1e-4 * t) ambiguous = true;
          D3 c = d3(s.shading.background);
          if (best >= 0) {
            const Vec4 sp = spheres[best];
            const double inner = sp.w * (1.0 - s.shading.outline);
            if (std::abs(std::sqrt(b2_best) - inner) < 1e-4 * sp.w) ambiguous = true;
            const D3 x = o + d * t;
            if (std::sqrt(b2_best) > inner) {
              c = d3(s.shading.outline_color);
              ++rim;
            } else {
              const D3 n = (x - centre(sp)) * (1.0 / sp.w);
              const double lambert = std::max(0.0, dot(n, light));
              c = d3(s.shading.particle_color) * (s.shading.ambient + s.shading.diffuse * lambert);
              c = {std::clamp(c.x, 0.0, 1.0), std::clamp(c.y, 0.0, 1.0), std::clamp(c.z, 0.0, 1.0)};
            }
            const double f =
                s.shading.depth_cue *
                std::clamp((dot(x - e, w * -1.0) - z_near) / (z_far - z_near), 0.0, 1.0);
            faded += f > 0.05;
            c = c * (1.0 - f) + cue * f;
          }
          sum = sum + c;
        }
        if (ambiguous) continue;
        ASSERT_TRUE(pixel_within(image, i, j, sum * (1.0 / (side * side))))
            << "round " << round << ", samples " << side * side;
        ++checked;
      }
    }
    EXPECT_GT(checked, std::size_t(s.width) * s.height * 6 / 10) << "round " << round;
    EXPECT_GT(rim, 0u) << "round " << round << ": no outline was seen";
    EXPECT_GT(faded, 0u) << "round " << round << ": nothing was cued";
  }
}

}  // namespace
}  // namespace granray::test
