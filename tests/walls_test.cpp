// contract 2b and 2c: walls and clip planes. The wall tree against the brute-force loop over every
// triangle, with every method, lit and unlit, on random grains, random triangle soups, a
// container box and a cylinder; the brute-force image against the model written out again in
// double precision; clip planes against the scene without the clipped grains; the shapes closed
// and outward-facing; see-through walls (contract 2d) against brute force. Built once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "granray/io/particle_file.h"
#include "granray/io/stl_file.h"
#include "granray/walls.h"
#include "reference_math.h"
#include "test_support.h"
#include "wall_scenes.h"

namespace granray::test {
namespace {

class WallsTest : public OnEachBackend {
 protected:
  // Every method finds the same walls as the loop over every triangle: images agree except
  // where float rounding decides a silhouette.
  void expect_methods_match_brute_force(const std::vector<Vec4>& spheres,
                                        const RenderSettings& settings, const char* label) {
    Renderer renderer(test_backend());
    against_brute_force(
        renderer, view_of(spheres), settings,
        [&](RenderMethod method, const Image& image, const FrameStats& stats, const Image& brute) {
          SCOPED_TRACE(::testing::Message()
                       << label << ", " << render_method_name(method) << ": " << spheres.size()
                       << " spheres, " << stats.wall_triangles << " triangles, "
                       << settings.clip.size() << " clip planes, " << settings.width << "x"
                       << settings.height << ", samples " << settings.shading.samples
                       << ", shadows " << settings.shading.shadows << ", ao "
                       << settings.shading.ao_samples);
          const ImageDiff d = compare_images(image, brute);
          const std::size_t allowed = 3u + d.pixels / 2000;
          std::size_t beyond_two = 0;
          for (std::size_t p = 0; p < image.rgb.size(); p += 3) {
            int level = 0;
            for (int c = 0; c < 3; ++c)
              level = std::max(level, std::abs(int(image.rgb[p + c]) - int(brute.rgb[p + c])));
            beyond_two += level > 2;
          }
          EXPECT_LE(beyond_two, allowed) << "max level " << d.max_level;
          EXPECT_LE(d.differing_hit, allowed) << "pixels that show another grain or triangle";
        });
  }
};

// Round r's grains among the walls (a dense bed in even rounds, a dilute gas in odd ones), their
// box, and small random settings (orthographic in rounds 2, 3, 6 and 7).
struct WallRound {
  const char* label;
  std::vector<Vec4> spheres;
  SceneBounds box;
  RenderSettings settings;
};

WallRound wall_round(Rng& rng, int round) {
  WallRound r;
  r.label = round % 2 == 0 ? "dense bed" : "dilute gas";
  r.spheres =
      round % 2 == 0 ? dense_bed(rng, 600, 0.3f, 0.5f) : dilute_gas(rng, 300, 0.05f, 0.5f, 6.0f);
  r.box = box_of(r.spheres);
  r.settings = small_random_settings(rng, round % 4 >= 2);
  return r;
}

TEST_F(WallsTest, TreeMatchesBruteForceOnRandomScenes) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 8; ++round) {
    auto [label, spheres, b, s] = wall_round(rng, round);
    s.walls = random_walls(rng, b);
    s.clip = random_clip(rng, b);
    if (round >= 4) {  // lit: walls cast and receive shadows and occlusion
      s.shading.shadows = true;
      s.shading.ao_samples = std::uniform_int_distribution<int>(0, 12)(rng);
      s.shading.ao_distance = uniform(rng, 0.3f, 2.0f);
      s.shading.samples = std::uniform_int_distribution<int>(0, 1)(rng) ? 4 : 1;
      s.shading.specular = uniform(rng, 0.0f, 0.5f);
    }
    expect_methods_match_brute_force(spheres, s, label);
  }
}

// contract 2d: see-through walls, alone or among opaque ones, with outlines and depth cue, lit and
// unlit: the trees give the brute-force loop's layers.
TEST_F(WallsTest, SeeThroughWallsMatchBruteForceOnRandomScenes) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 8; ++round) {
    auto [label, spheres, b, s] = wall_round(rng, round);
    s.walls = random_walls(rng, b, 300, 0.7);
    s.clip = random_clip(rng, b);
    random_inside_shading(rng, s.shading);
    if (round >= 4) {
      s.shading.shadows = true;
      s.shading.ao_samples = std::uniform_int_distribution<int>(0, 12)(rng);
      s.shading.samples = std::uniform_int_distribution<int>(0, 1)(rng) ? 4 : 1;
      s.shading.specular = uniform(rng, 0.0f, 0.5f);
    }
    expect_methods_match_brute_force(
        spheres, s, round % 2 == 0 ? "dense bed, see-through" : "gas, see-through");
  }
}

TEST_F(WallsTest, ShapesAreClosedAndFaceOutward) {
  Rng rng(fresh_seed());
  const Vec3 lo{uniform(rng, -3, 0), uniform(rng, -3, 0), uniform(rng, -3, 0)};
  const Vec3 hi = lo + Vec3{uniform(rng, 0.5f, 4), uniform(rng, 0.5f, 4), uniform(rng, 0.5f, 4)};
  const Vec3 base{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)};
  const Vec3 axis{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, 0.2f, 1)};
  const float radius = uniform(rng, 0.2f, 2.0f), height = uniform(rng, 0.2f, 3.0f);
  const int segments = std::uniform_int_distribution<int>(3, 300)(rng);
  const Vec3 w = normalize(axis);
  struct Shape {
    const char* name;
    std::vector<Triangle> triangles;
    Vec3 centre;
    double volume;
  };
  const Shape shapes[] = {
      {"box", box_triangles(lo, hi), (lo + hi) * 0.5f,
       double(hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z)},
      {"cylinder", cylinder_triangles(base, axis, radius, height, segments),
       base + w * (0.5f * height),
       0.5 * segments * std::sin(2 * M_PI / segments) * radius * radius * height}};
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(shape.name);
    // Closed and consistently wound: every directed edge once, its reverse once.
    std::map<std::pair<std::tuple<float, float, float>, std::tuple<float, float, float>>, int>
        edges;
    const auto key = [](Vec3 p) { return std::make_tuple(p.x, p.y, p.z); };
    double volume = 0.0;
    for (const Triangle& t : shape.triangles) {
      const Vec3 v[3] = {t.a, t.b, t.c};
      for (int e = 0; e < 3; ++e) ++edges[{key(v[e]), key(v[(e + 1) % 3])}];
      // Outward: the normal points away from the centre (convex shapes).
      const Vec3 n = cross(t.b - t.a, t.c - t.a);
      EXPECT_GT(dot(n, (t.a + t.b + t.c) * (1.0f / 3.0f) - shape.centre), 0.0f);
      // Divergence theorem: the signed volume of an outward closed mesh is its volume.
      const Vec3 a = t.a - shape.centre, b = t.b - shape.centre, c = t.c - shape.centre;
      volume += dot(a, cross(b, c)) / 6.0;
    }
    for (const auto& [edge, count] : edges) {
      EXPECT_EQ(count, 1);
      const auto reverse = edges.find({edge.second, edge.first});
      ASSERT_NE(reverse, edges.end()) << "an open edge";
    }
    EXPECT_NEAR(volume, shape.volume, 1e-3 * shape.volume);
  }
}

TEST_F(WallsTest, ClippedGrainsAreGoneAndTheCameraStays) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 4; ++round) {
    auto [spheres, b, s] = round_scene(rng, dense_bed(rng, 800, 0.3f, 0.5f), round, 96, 72);
    s.shading.shadows = round >= 2;
    s.shading.ao_samples = round >= 2 ? 8 : 0;
    s.shading.ao_distance = 1.0f;
    s.clip = {{random_point(rng, b, -0.3f),
               normalize({uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)})}};
    Image clipped;
    const RenderOptions options{RenderMethod::automatic, true};
    const FrameStats with = renderer.render(view_of(spheres), s, clipped, options);
    // The same frame with the clipped grains left out and the camera held where it was.
    std::vector<Vec4> kept;
    std::vector<std::uint64_t> ids;
    for (std::size_t k = 0; k < spheres.size(); ++k) {
      const Vec4& p = spheres[k];
      if (!clipped_by(s.clip.data(), 1, center_of(p))) {
        kept.push_back(p);
        ids.push_back(k);
      }
    }
    ASSERT_LT(kept.size(), spheres.size());
    ASSERT_GT(kept.size(), 0u);
    RenderSettings plain = s;
    plain.clip.clear();
    RenderOptions held = options;
    held.camera_bounds = renderer.measure(view_of(spheres)).bounds;
    ParticleView v = view_of(kept);
    v.ids = ids.data();
    Image reference;
    const FrameStats without = renderer.render(v, plain, reference, held);
    EXPECT_EQ(with.camera.eye.x, without.camera.eye.x);
    EXPECT_EQ(with.camera.target.y, without.camera.target.y);
    EXPECT_EQ(with.particles, spheres.size());
    const ImageDiff d = compare_images(clipped, reference);
    EXPECT_EQ(d.differing_rgb, 0u) << "round " << round << ", max level " << d.max_level;
    EXPECT_EQ(d.differing_hit, 0u);
  }
}

TEST_F(WallsTest, WallsFrameTheAutoCameraAndBackFacesShowTheFarSide) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  const auto spheres = dense_bed(rng, 200, 0.3f, 0.4f);
  const SceneBounds b = box_of(spheres);
  RenderSettings s;
  s.width = 64;
  s.height = 48;
  auto walls = std::make_shared<WallList>(1);
  const Vec3 size = b.hi - b.lo;
  const Vec3 lo = b.lo - size, hi = b.hi + size * 2.0f;
  (*walls)[0].triangles = box_triangles(lo, hi);
  (*walls)[0].faces = WallFaces::back;
  s.walls = walls;
  Image image;
  const FrameStats stats = renderer.render(view_of(spheres), s, image, {RenderMethod::grid, true});
  const Vec3 centre = (lo + hi) * 0.5f;
  EXPECT_NEAR(stats.camera.target.x, centre.x, 1e-4f * size.x);
  EXPECT_NEAR(stats.camera.target.z, centre.z, 1e-4f * size.z);
  EXPECT_EQ(stats.wall_triangles, 12u);
  // Every pixel that shows the box shows a triangle whose normal points away from the eye.
  std::size_t far_side = 0;
  const auto& tris = (*walls)[0].triangles;
  for (const std::uint64_t id : image.hit_id) {
    if (id == ~std::uint64_t{0} || id < kWallIdBase) continue;
    const Triangle& t = tris[id - kWallIdBase];
    EXPECT_GT(dot(cross(t.b - t.a, t.c - t.a), t.a - stats.camera.eye), 0.0f);
    ++far_side;
  }
  EXPECT_GT(far_side, image.hit_id.size() / 4);
  // All faces: the near side hides everything inside.
  (*walls)[0].faces = WallFaces::all;
  s.walls = std::make_shared<WallList>(*walls);
  renderer.render(view_of(spheres), s, image, {RenderMethod::grid, true});
  for (const std::uint64_t id : image.hit_id) {
    ASSERT_GE(id, kWallIdBase) << "a grain shows through the closed box";
  }
}

TEST_F(WallsTest, TrianglesReadInPlaceRenderLikeCopiedOnes) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  const auto spheres = dense_bed(rng, 300, 0.3f, 0.5f);
  const SceneBounds b = box_of(spheres);
  RenderSettings s = random_settings(rng, false);
  s.walls = random_walls(rng, b);
  Image copied, in_place;
  renderer.render(view_of(spheres), s, copied);
  auto borrowed = std::make_shared<WallList>(*s.walls);
  std::vector<std::vector<Triangle>> kept;
  for (Wall& w : *borrowed) {
    kept.push_back(std::move(w.triangles));
    w.triangles.clear();
    w.in_place = kept.back().data();
    w.in_place_count = kept.back().size();
    w.in_place_space = MemorySpace::host;
  }
  s.walls = borrowed;
  renderer.render(view_of(spheres), s, in_place);
  EXPECT_EQ(copied.rgb, in_place.rgb);
}

// contract 2b and 2c written out again in double precision: nearest of spheres and triangles
// (Moller-Trumbore, both sides, back faces dropped, clipped hits ignored), shaded as contract 2 and
// with hard shadows through grains and walls.

struct Scene {
  const std::vector<Vec4>& spheres;
  std::vector<Triangle> triangles;  // shown ones only
  std::vector<Vec3> colors;
  std::vector<ClipPlane> clip;
  double R;
};

struct RefHit {
  double t = INFINITY;
  int sphere = -1, triangle = -1;
  bool ambiguous = false;
};

bool ref_clipped(const Scene& scene, D3 x) {
  for (const ClipPlane& p : scene.clip) {
    if (dot(x - d3(p.point), d3(p.normal)) > 0) return true;
  }
  return false;
}

RefHit ref_nearest(const Scene& scene, D3 o, D3 d) {
  RefHit hit;
  std::vector<double> ts;
  for (std::size_t k = 0; k < scene.spheres.size(); ++k) {
    const Vec4 s = scene.spheres[k];
    if (ref_clipped(scene, {s.x, s.y, s.z})) continue;
    const D3 oc = o - D3{s.x, s.y, s.z};
    const double b = dot(oc, d), disc = b * b - (dot(oc, oc) - double(s.w) * s.w);
    if (std::abs(disc) / (double(s.w) * s.w) < 1e-3) hit.ambiguous = true;
    if (disc <= 0) continue;
    const double t = -b - std::sqrt(disc);
    if (t <= 0) continue;
    ts.push_back(t);
    if (t < hit.t) hit = {t, int(k), -1, hit.ambiguous};
  }
  for (std::size_t k = 0; k < scene.triangles.size(); ++k) {
    bool edge = false;
    const double t = ref_triangle(scene.triangles[k], o, d, edge);
    if (!(t < INFINITY)) {
      hit.ambiguous = hit.ambiguous || edge;
      continue;
    }
    const D3 x = o + d * t;
    bool near_plane = false;
    for (const ClipPlane& p : scene.clip) {
      near_plane = near_plane || std::abs(dot(x - d3(p.point), d3(p.normal))) < 1e-4 * scene.R;
    }
    hit.ambiguous = hit.ambiguous || edge || near_plane;
    if (ref_clipped(scene, x)) continue;
    ts.push_back(t);
    if (t < hit.t) hit = {t, -1, int(k), hit.ambiguous};
  }
  std::sort(ts.begin(), ts.end());
  if (ts.size() > 1 && ts[1] - ts[0] < 1e-4 * ts[0]) hit.ambiguous = true;
  return hit;
}

TEST_F(WallsTest, ReferenceFollowsTheWallModel) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 4; ++round) {
    auto [spheres, b, s] = round_scene(
        rng, round < 2 ? dilute_gas(rng, 40, 0.3f, 1.0f, 4.0f) : dense_bed(rng, 120, 0.3f, 0.5f),
        round, 80, 60);
    // A soup small enough that most pixels lie clear of an edge or a crossing, where the double
    // reference cannot vouch for the float image.
    s.walls = random_walls(rng, b, 60);
    s.clip = random_clip(rng, b);
    s.shading.shadows = round >= 2;
    Image image;
    const FrameStats stats =
        renderer.render(view_of(spheres), s, image, {RenderMethod::brute_force, true});
    // The camera as the renderer resolved it, in double.
    const D3 e = d3(stats.camera.eye), w = unit(e - d3(stats.camera.target));
    const D3 u = unit(cross(d3(stats.camera.up), w)), v = cross(w, u);
    const bool ortho = s.camera.projection == Projection::orthographic;
    const double h = ortho ? stats.camera.ortho_height / 2.0 : std::tan(s.camera.fov * M_PI / 360);
    const double aspect = double(s.width) / s.height;
    Scene scene{spheres, {}, {}, s.clip, 0.0};
    SceneBounds all = box_of(spheres);
    for (std::size_t k = 0; k < s.walls->size(); ++k) {
      const Wall& wall = (*s.walls)[k];
      for (const Triangle& t : wall.triangles) {
        for (const Vec3& p : {t.a, t.b, t.c}) {
          all.lo = {std::min(all.lo.x, p.x), std::min(all.lo.y, p.y), std::min(all.lo.z, p.z)};
          all.hi = {std::max(all.hi.x, p.x), std::max(all.hi.y, p.y), std::max(all.hi.z, p.z)};
        }
        const D3 n = cross(d3(t.b) - d3(t.a), d3(t.c) - d3(t.a));
        const bool away = dot(n, ortho ? w * -1.0 : d3(t.a) - e) > 0;
        if (wall.faces == WallFaces::back && !away) continue;
        scene.triangles.push_back(t);
        scene.colors.push_back(wall.color);
      }
    }
    scene.R = 0.5 * std::sqrt(dot(d3(all.hi - all.lo), d3(all.hi - all.lo)));
    // The auto camera frames the walls too.
    const D3 centre = (d3(all.lo) + d3(all.hi)) * 0.5;
    EXPECT_NEAR(stats.camera.target.x, centre.x, 1e-5 * scene.R);
    const D3 light = unit(u * s.shading.light.x + v * s.shading.light.y + w * s.shading.light.z);
    std::size_t checked = 0;
    for (int j = 0; j < s.height; ++j) {
      for (int i = 0; i < s.width; ++i) {
        const double su = (2.0 * (i + 0.5) / s.width - 1.0) * aspect * h;
        const double sv = (1.0 - 2.0 * (j + 0.5) / s.height) * h;
        const D3 o = ortho ? e + u * su + v * sv : e;
        const D3 d = ortho ? w * -1.0 : unit(u * su + v * sv - w);
        const RefHit hit = ref_nearest(scene, o, d);
        if (hit.ambiguous) continue;
        D3 c = d3(s.shading.background);
        if (hit.sphere >= 0 || hit.triangle >= 0) {
          D3 n, origin, base;
          const D3 x = o + d * hit.t;
          if (hit.sphere >= 0) {
            const Vec4 p = spheres[hit.sphere];
            n = (x - D3{p.x, p.y, p.z}) * (1.0 / p.w);
            origin = D3{p.x, p.y, p.z} + n * (p.w * (1.0 + 1e-4));
            base = d3(s.shading.particle_color);
          } else {
            const Triangle& t = scene.triangles[hit.triangle];
            n = unit(cross(d3(t.b) - d3(t.a), d3(t.c) - d3(t.a)));
            if (dot(n, d) > 0) n = n * -1.0;
            origin = x + n * (1e-6 * scene.R);
            base = d3(scene.colors[hit.triangle]);
          }
          double S = 1.0;
          if (s.shading.shadows && dot(n, light) > 0) {
            // Blocked by a grain other than the hit one (either root), or a triangle.
            bool ambiguous = false;
            for (std::size_t k = 0; k < spheres.size() && S > 0; ++k) {
              const Vec4 p = spheres[k];
              if (int(k) == hit.sphere || ref_clipped(scene, {p.x, p.y, p.z})) continue;
              const D3 oc = origin - D3{p.x, p.y, p.z};
              const double bb = dot(oc, light), disc = bb * bb - (dot(oc, oc) - double(p.w) * p.w);
              if (std::abs(disc) / (double(p.w) * p.w) < 1e-3) ambiguous = true;
              if (disc > 0) {
                const double t0 = -bb - std::sqrt(disc), t1 = -bb + std::sqrt(disc);
                if (std::abs(t0) < 1e-3 * p.w || std::abs(t1) < 1e-3 * p.w) ambiguous = true;
                if (t1 > 0) S = 0.0;
              }
            }
            for (std::size_t k = 0; k < scene.triangles.size() && S > 0; ++k) {
              // The lit side's ray leaves the hit wall: its plane lies a hair behind, never a
              // blocker (and never a crossing to doubt, which left every lit wall pixel unchecked).
              if (int(k) == hit.triangle) continue;
              const double t =
                  ref_triangle(scene.triangles[k], origin, light, ambiguous, 1e-4 * scene.R);
              if (t < INFINITY && !ref_clipped(scene, origin + light * t)) S = 0.0;
            }
            if (ambiguous) continue;
          }
          const double lambert = std::max(0.0, dot(n, light));
          c = base * (s.shading.ambient + s.shading.diffuse * lambert * S);
        }
        ASSERT_TRUE(pixel_within(image, i, j, c))
            << "round " << round << ", wall " << hit.triangle << ", sphere " << hit.sphere;
        ++checked;
      }
    }
    // Enough of the picture decided away from rounding to mean something: a quarter. Half and
    // then a third were too tight for scenes whose many wall edges and grazing grains make
    // pixels ambiguous (seed 7976056006808043111 checks 49%, 1823016392983834035 30.5%).
    EXPECT_GT(checked, std::size_t(s.width) * s.height / 4) << "round " << round;
  }
}

// LIGGGHTS's movingMeshGran tutorial (tests/data/liggghts-bucket): its grains and its bucket as
// LIGGGHTS wrote them, inside the simulation box, unlit and lit, against brute force.
TEST_F(WallsTest, LiggghtsBucketMatchesBruteForce) {
  const std::string dir = std::string(GRANRAY_SOURCE_DIR) + "/tests/data/liggghts-bucket/";
  Rng rng(fresh_seed());
  for (const char* step : {"20000", "30000"}) {
    const auto frames = io::read_particle_file(dir + "particles_" + step + ".dump");
    auto walls = std::make_shared<WallList>(2);
    (*walls)[0].triangles = io::read_stl(dir + "bucket_" + step + ".stl");
    (*walls)[1].triangles = box_triangles({-1.0f, -0.5f, -0.5f}, {1.0f, 0.5f, 0.5f});
    (*walls)[1].faces = WallFaces::back;
    for (const bool lit : {false, true}) {
      RenderSettings s = sized_random_settings(rng, false, 120, 90);
      s.walls = walls;
      if (lit) {
        s.shading.shadows = true;
        s.shading.ao_samples = 8;
        s.shading.samples = 4;
      }
      expect_methods_match_brute_force(frames[0].xyzr, s, lit ? "LIGGGHTS, lit" : "LIGGGHTS");
    }
  }
}

}  // namespace
}  // namespace granray::test
