// contract 2d's see-through walls: a wall of opacity 0 changes no pixel (so see-through walls block
// no primary, shadow or occlusion ray), only the nearest eight layers show, and the composite
// follows the model written out again in double precision. Built once per backend; the trees
// against brute force are in walls_test.cpp, the rank counts in mpi_lit_render_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "reference_math.h"
#include "test_support.h"
#include "wall_scenes.h"

namespace granray::test {
namespace {

class SeeThroughTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GRANRAY_SKIP_WITHOUT_BACKEND();
    renderer_.emplace(test_backend());
  }
  std::optional<Renderer> renderer_;  // made once the backend is known to be there

  Image render(const std::vector<Vec4>& spheres, const RenderSettings& s, RenderMethod method) {
    Image image;
    renderer_->render(view_of(spheres), s, image, {method, true});
    return image;
  }
};

// Two see-through walls of random opacity and colour: a box around the grains (both sides, so
// two layers) and a soup of `soup` triangles among them.
std::shared_ptr<WallList> glass_box_and_soup(Rng& rng, const SceneBounds& b, int soup) {
  auto walls = std::make_shared<WallList>(2);
  const Vec3 pad = (b.hi - b.lo) * uniform(rng, 0.02f, 0.2f);
  (*walls)[0].triangles = box_triangles(b.lo - pad, b.hi + pad);
  (*walls)[1].triangles = triangle_soup(rng, b, soup);
  for (Wall& w : *walls) {
    w.opacity = uniform(rng, 0.1f, 0.9f);
    w.color = {uniform(rng, 0.1f, 1.0f), uniform(rng, 0.1f, 1.0f), uniform(rng, 0.1f, 1.0f)};
  }
  return walls;
}

// A fixed camera, so that walls taken away do not move it.
void fix_camera(Rng& rng, const SceneBounds& b, RenderSettings& s) {
  const Vec3 c = (b.lo + b.hi) * 0.5f;
  const float size = b.hi.x - b.lo.x;
  s.camera.target = c;
  s.camera.position = c + Vec3{uniform(rng, -0.3f, 0.3f) * size, uniform(rng, -0.3f, 0.3f) * size,
                               3.0f * size + (b.hi.z - b.lo.z)};
  s.camera.ortho_height = 1.5f * size;
}

TEST_F(SeeThroughTest, AWallOfOpacityZeroChangesNoPixel) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 4; ++round) {
    auto [spheres, b, s] = round_scene(rng, dense_bed(rng, 500, 0.3f, 0.5f), round, 96, 72);
    fix_camera(rng, b, s);
    s.walls = random_walls(rng, b, 100);
    random_inside_shading(rng, s.shading);
    if (round >= 2) {  // shadows and occlusion would see a wall that blocks
      s.shading.shadows = true;
      s.shading.ao_samples = 8;
      s.shading.samples = 4;
    }
    RenderSettings with = s;
    auto walls = std::make_shared<WallList>(*s.walls);
    // The visible walls again, halved toward the grains' centre: inside the scene's box, so that
    // the camera, the depth cue and the walls' ray offset (1e-6 R) stay as they were.
    const Vec3 c = (b.lo + b.hi) * 0.5f;
    for (const Wall& visible : *s.walls) {
      Wall w = visible;
      w.triangles = scaled_and_translated(visible.triangles, 0.5f, c * 0.5f);
      w.faces = WallFaces::all;
      w.opacity = 0.0f;
      walls->push_back(std::move(w));
    }
    with.walls = walls;
    for (const RenderMethod method : {RenderMethod::brute_force, RenderMethod::grid}) {
      const Image plain = render(spheres, s, method), glass = render(spheres, with, method);
      EXPECT_EQ(plain.rgb, glass.rgb) << "round " << round << ", " << render_method_name(method);
      EXPECT_EQ(plain.depth, glass.depth) << "round " << round;
      EXPECT_EQ(plain.hit_id, glass.hit_id) << "round " << round;
    }
  }
}

// Twelve sheets between the camera and the bed, each of its own colour: the image is that of
// the nearest eight alone, and not that of the nearest seven.
TEST_F(SeeThroughTest, OnlyTheNearestEightLayersShow) {
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 400, 0.3f, 0.5f);
  const SceneBounds b = box_of(spheres);
  RenderSettings s = sized_random_settings(rng, false, 80, 60);
  fix_camera(rng, b, s);
  const float size = b.hi.x - b.lo.x, dz = 0.05f * size;
  const Vec3 c = (b.lo + b.hi) * 0.5f;
  WallList sheets;  // nearest first
  for (int k = 11; k >= 0; --k) {
    const float z = b.hi.z + dz * static_cast<float>(k + 1);
    const Vec3 lo = {c.x - 10 * size, c.y - 10 * size, z},
               hi = {c.x + 10 * size, c.y + 10 * size, z};
    Wall sheet;
    sheet.triangles = {{lo, {hi.x, lo.y, z}, hi}, {lo, hi, {lo.x, hi.y, z}}};
    sheet.color = {uniform(rng, 0.0f, 1.0f), uniform(rng, 0.0f, 1.0f), uniform(rng, 0.0f, 1.0f)};
    sheet.opacity = uniform(rng, 0.1f, 0.2f);
    sheets.push_back(sheet);
  }
  // The eighth must show through the seven in front of it (at least 0.8^7 of it passes): as
  // opaque as any, and far in every channel from the background.
  const Vec3 bg = s.shading.background;
  sheets[7].color = {bg.x < 0.5f ? 1.0f : 0.0f, bg.y < 0.5f ? 1.0f : 0.0f,
                     bg.z < 0.5f ? 1.0f : 0.0f};
  sheets[7].opacity = 0.3f;
  const auto first = [&](std::size_t n) {
    RenderSettings t = s;
    t.walls = std::make_shared<WallList>(sheets.begin(), sheets.begin() + n);
    return t;
  };
  for (const RenderMethod method : {RenderMethod::brute_force, RenderMethod::tiles}) {
    const Image twelve = render(spheres, first(12), method);
    EXPECT_EQ(twelve.rgb, render(spheres, first(8), method).rgb) << render_method_name(method);
    const ImageDiff seven = compare_images(twelve, render(spheres, first(7), method));
    EXPECT_GT(seven.differing_rgb, seven.pixels / 2) << "the eighth layer shows";
  }
}

// A layer's colour is worked out once per facet and side for the frame's light: frames that keep
// the walls but move the camera (the light turns with it) or change the light, ambient or diffuse
// term look the same from a renderer that drew the frames before as from a fresh one.
TEST_F(SeeThroughTest, LayerColoursFollowTheLightFromFrameToFrame) {
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 300, 0.3f, 0.5f);
  const SceneBounds b = box_of(spheres);
  RenderSettings s = sized_random_settings(rng, false, 64, 48);
  s.walls = glass_box_and_soup(rng, b, 20);  // the same list in every frame: its trees are kept
  for (int frame = 0; frame < 8; ++frame) {
    fix_camera(rng, b, s);
    if (frame % 2 == 1) {
      s.shading.light = {uniform(rng, -1.0f, 1.0f), uniform(rng, -1.0f, 1.0f), 1.0f};
      s.shading.ambient = uniform(rng, 0.0f, 0.5f);
      s.shading.diffuse = uniform(rng, 0.3f, 1.0f);
    }
    // Unlit, lit without a highlight, lit with one.
    s.shading.samples = frame >= 4 ? 4 : 1;
    s.shading.specular = frame >= 6 ? uniform(rng, 0.1f, 0.6f) : 0.0f;
    for (const RenderMethod method : {RenderMethod::brute_force, RenderMethod::tiles}) {
      Renderer fresh(test_backend());
      Image kept, alone;
      renderer_->render(view_of(spheres), s, kept, {method, true});
      fresh.render(view_of(spheres), s, alone, {method, true});
      EXPECT_EQ(kept.rgb, alone.rgb) << "frame " << frame << ", " << render_method_name(method);
      EXPECT_EQ(kept.depth, alone.depth) << "frame " << frame;
    }
  }
}

// Lists that serve a second frame carry distance bounds that spare the tests of triangles behind
// the grains (a box's far side): those frames equal the first and the brute-force reference.
TEST_F(SeeThroughTest, ListsKeptForLaterFramesChangeNoPixel) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 4; ++round) {
    auto [spheres, b, s] = round_scene(rng, dense_bed(rng, 400, 0.3f, 0.5f), round, 96, 72);
    s.shading.samples = round >= 2 ? 4 : 1;  // unlit, then lit with antialiasing
    s.walls = glass_box_and_soup(rng, b, 20);
    const Image reference = render(spheres, s, RenderMethod::brute_force);
    Renderer fresh(test_backend());  // its lists are this scene's alone
    for (int frame = 0; frame < 3; ++frame) {
      Image image;
      fresh.render(view_of(spheres), s, image, {RenderMethod::tiles, true});
      const ImageDiff diff = compare_images(image, reference);
      EXPECT_EQ(diff.differing_rgb, 0u) << "round " << round << ", frame " << frame;
      EXPECT_EQ(image.depth, reference.depth) << "round " << round << ", frame " << frame;
    }
  }
}

// The composite of contract 2d in double: the nearest eight see-through triangles in front of the
// visible grain (or all of them over the background), each lit with S = A = 1, front to back.
TEST_F(SeeThroughTest, ReferenceFollowsTheCompositeModel) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 4; ++round) {
    auto [spheres, b, s] = round_scene(
        rng, round < 2 ? dilute_gas(rng, 40, 0.3f, 1.0f, 4.0f) : dense_bed(rng, 150, 0.3f, 0.5f),
        round, 80, 60);
    s.shading.specular = round >= 2 ? uniform(rng, 0.1f, 0.6f) : 0.0f;
    s.walls = glass_box_and_soup(rng, b, 30);
    Image image;
    const FrameStats stats =
        renderer_->render(view_of(spheres), s, image, {RenderMethod::brute_force, true});
    const DoubleCamera cam(stats.camera, s);
    const D3 light =
        unit(cam.u * s.shading.light.x + cam.v * s.shading.light.y + cam.w * s.shading.light.z);
    // The shading by init-capture: C++17 lambdas may not capture structured bindings themselves.
    const auto lit = [&light, &shading = s.shading](D3 base, D3 n, D3 d) {
      const double lambert = std::max(0.0, dot(n, light));
      const double spec =
          shading.specular * std::pow(std::max(0.0, dot(n, unit(light - d))), shading.shininess);
      const D3 c = base * (shading.ambient + shading.diffuse * lambert) + D3{spec, spec, spec};
      return D3{std::clamp(c.x, 0.0, 1.0), std::clamp(c.y, 0.0, 1.0), std::clamp(c.z, 0.0, 1.0)};
    };
    std::size_t checked = 0;
    for (int j = 0; j < s.height; ++j) {
      for (int i = 0; i < s.width; ++i) {
        D3 o, d;
        cam.ray(i + 0.5, j + 0.5, o, d);
        bool ambiguous = false;
        // The visible grain.
        double t_grain = INFINITY;
        int grain = -1;
        for (std::size_t k = 0; k < spheres.size(); ++k) {
          const Vec4 p = spheres[k];
          const D3 oc = o - D3{p.x, p.y, p.z};
          const double bb = dot(oc, d), disc = bb * bb - (dot(oc, oc) - double(p.w) * p.w);
          if (std::abs(disc) / (double(p.w) * p.w) < 1e-3) ambiguous = true;
          if (disc <= 0) continue;
          const double t = -bb - std::sqrt(disc);
          if (t > 0 && std::abs(t - t_grain) < 1e-4 * t) ambiguous = true;
          if (t > 0 && t < t_grain) {
            t_grain = t;
            grain = int(k);
          }
        }
        // Every see-through hit before it, nearest first.
        struct Layer {
          double t;
          D3 c;
          double a;
        };
        std::vector<Layer> layers;
        for (const Wall& w : *s.walls) {
          for (const Triangle& tri : w.triangles) {
            const double t = ref_triangle(tri, o, d, ambiguous);
            if (!(t < INFINITY)) continue;
            if (std::abs(t - t_grain) < 1e-4 * t) ambiguous = true;
            if (!(t < t_grain)) continue;
            D3 n = unit(cross(d3(tri.b) - d3(tri.a), d3(tri.c) - d3(tri.a)));
            if (dot(n, d) > 0) n = n * -1.0;
            layers.push_back({t, lit(d3(w.color), n, d), w.opacity});
          }
        }
        std::sort(layers.begin(), layers.end(),
                  [](const Layer& x, const Layer& y) { return x.t < y.t; });
        for (std::size_t k = 1; k < layers.size(); ++k) {
          if (layers[k].t - layers[k - 1].t < 1e-4 * layers[k].t) ambiguous = true;
        }
        if (ambiguous) continue;
        D3 behind = d3(s.shading.background);
        if (grain >= 0) {
          const Vec4 p = spheres[grain];
          const D3 x = o + d * t_grain;
          behind = lit(d3(s.shading.particle_color), (x - D3{p.x, p.y, p.z}) * (1.0 / p.w), d);
        }
        D3 c{0, 0, 0};
        double transmitted = 1.0;
        for (std::size_t k = 0; k < layers.size() && k < 8; ++k) {
          c = c + layers[k].c * (transmitted * layers[k].a);
          transmitted *= 1.0 - layers[k].a;
        }
        c = c + behind * transmitted;
        ASSERT_TRUE(pixel_within(image, i, j, c))
            << "round " << round << ", " << layers.size() << " layers, grain " << grain;
        ++checked;
      }
    }
    EXPECT_GT(checked, std::size_t(s.width) * s.height / 3) << "round " << round;
  }
}

}  // namespace
}  // namespace granray::test
