// The occlusion rays' two ways through the grid give the same blocked bits as every sphere tested
// in turn (the reference): a walk per ray (GridOccluder, the GPU's way) and the CPU's list
// gathered once per point (NearbySphereOccluder). Random beds, gases and giants among small grains;
// points on grains and off them (a wall's points, nothing skipped), ray counts across batch
// boundaries, lengths from a sliver to several diameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "granray/kernels/lit_passes.h"
#include "granray/kernels/nearby_spheres.h"
#include "light_columns.h"
#include "test_support.h"

namespace granray::test {
namespace {

template <class Occluder>
std::vector<std::uint32_t> blocked_bits(const Occluder& occluder, const ShadingPoint& p, int i,
                                        int j, int sample, const LightingParams& lighting,
                                        std::uint64_t skip_id) {
  std::vector<std::uint32_t> words(static_cast<std::size_t>(lighting.mask_words), 0u);
  occluder.ambient(p, i, j, sample, lighting, skip_id, words.data());
  return words;
}

// A random scene of each kind with its grid and the three occluders over it.
struct OcclusionScene {
  std::string label;
  std::vector<Vec4> spheres;
  HostGrid host;
  GridView grid;
  IdMap id_of{nullptr, 0};
  float mean_radius = 0.0f;

  GridOccluder walk() const { return {grid, id_of}; }
  NearbySphereOccluder gathered() const { return {walk()}; }
  BruteForceOccluder reference() const {
    return {spheres.data(), static_cast<std::uint32_t>(spheres.size()), id_of};
  }
};

std::vector<OcclusionScene> occlusion_scenes(Rng& rng) {
  const SceneCase cases[] = {{"dense monodisperse bed", 1500, 0.5f, 0.5f, false},
                             {"dense polydisperse bed", 1500, 0.2f, 0.6f, false},
                             {"dilute polydisperse gas", 800, 0.05f, 0.6f, true},
                             {"giants among small grains", 1200, 0.2f, 0.3f, false}};
  std::vector<OcclusionScene> scenes;
  for (const SceneCase& c : cases) {
    OcclusionScene scene;
    scene.label = c.label;
    scene.spheres = random_scene(rng, c, 6.0f);
    if (scene.label == "giants among small grains") {
      // A few grains far larger than the grid's cells: listed in every cell they overlap.
      for (int k = 0; k < 6; ++k) {
        Vec4& s = scene.spheres[std::uniform_int_distribution<std::size_t>(
            0, scene.spheres.size() - 1)(rng)];
        s.w = uniform(rng, 1.0f, 2.5f);
      }
    }
    scene.host = Renderer(BackendKind::cpu).build_grid(view_of(scene.spheres));
    for (const Vec4& s : scene.spheres)
      scene.mean_radius += s.w / static_cast<float>(scene.spheres.size());
    scenes.push_back(std::move(scene));
    OcclusionScene& kept = scenes.back();  // the grid's view of the stored arrays
    kept.grid = {kept.host.geometry, kept.host.cell_offsets.data(), kept.host.ref_spheres.data(),
                 kept.host.ref_index.data()};
  }
  return scenes;
}

LightingParams random_occlusion(Rng& rng, int rays, float mean_radius) {
  LightingParams lighting{};
  lighting.side = 1;
  lighting.ao_samples = rays;
  lighting.ao_distance = mean_radius * uniform(rng, 0.05f, 6.0f);
  lighting.mask_words = blocked_mask_words(lighting.ao_samples);
  return lighting;
}

TEST(NearbySpheres, EveryWayBlocksTheRaysTheReferenceBlocks) {
  Rng rng(fresh_seed());
  const int ray_counts[] = {1, 3, 7, 8, 9, 16, 31, 33, 64};
  long blocked_total = 0, open_total = 0;
  for (const OcclusionScene& scene : occlusion_scenes(rng)) {
    const auto n = static_cast<std::uint32_t>(scene.spheres.size());
    const GridOccluder walk = scene.walk();
    const NearbySphereOccluder gathered = scene.gathered();
    const BruteForceOccluder reference = scene.reference();
    for (int q = 0; q < 300; ++q) {
      const LightingParams lighting =
          random_occlusion(rng, ray_counts[q % std::size(ray_counts)], scene.mean_radius);
      ShadingPoint p;
      std::uint64_t skip_id;
      if (q % 5 != 4) {  // a point on a grain, a hair outside it (shading_point)
        const std::uint32_t k = std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
        const Vec4 s = scene.spheres[k];
        p.normal = random_unit(rng);
        p.origin = center_of(s) + p.normal * (s.w * (1.0f + 1e-4f));
        skip_id = scene.id_of(k);
      } else {  // anywhere with any normal, as a wall's point: nothing skipped
        p.origin = {uniform(rng, -1.0f, 7.0f), uniform(rng, -1.0f, 7.0f),
                    uniform(rng, -1.0f, 7.0f)};
        p.normal = random_unit(rng);
        skip_id = kWallIdBase;
      }
      const int i = std::uniform_int_distribution<int>(0, 1919)(rng);
      const int j = std::uniform_int_distribution<int>(0, 1079)(rng);
      const int sample = std::uniform_int_distribution<int>(0, 15)(rng);
      const auto expected = blocked_bits(reference, p, i, j, sample, lighting, skip_id);
      const std::string where = scene.label + ", query " + std::to_string(q) + ", " +
                                std::to_string(lighting.ao_samples) + " rays";
      EXPECT_EQ(blocked_bits(walk, p, i, j, sample, lighting, skip_id), expected) << where;
      EXPECT_EQ(blocked_bits(gathered, p, i, j, sample, lighting, skip_id), expected) << where;
      for (int k = 0; k < lighting.ao_samples; ++k) {
        (mask_bit(expected.data(), 1 + k) ? blocked_total : open_total) += 1;
      }
    }
  }
  // Both answers occur often: the comparison is not between empty masks.
  EXPECT_GT(blocked_total, 1000);
  EXPECT_GT(open_total, 1000);
}

// The points of a block of pixels share one gather (gather_pixel, FindBlockersInBlocks): each
// point's rays, culled from the shared list, are blocked exactly as the reference blocks them.
// Blocks of 1-16 points close together on one grain or on neighbouring grains (a block inside a
// grain's picture), and sometimes far apart (a silhouette: the list is not shared).
TEST(NearbySpheres, PointsSharingOneGatherBlockTheRaysTheReferenceBlocks) {
  Rng rng(fresh_seed());
  long shared = 0, alone = 0, blocked_total = 0, open_total = 0;
  for (const OcclusionScene& scene : occlusion_scenes(rng)) {
    const auto n = static_cast<std::uint32_t>(scene.spheres.size());
    const NearbySphereOccluder gathered = scene.gathered();
    const BruteForceOccluder reference = scene.reference();
    for (int q = 0; q < 200; ++q) {
      const LightingParams lighting =
          random_occlusion(rng, std::uniform_int_distribution<int>(1, 12)(rng), scene.mean_radius);
      const int count = std::uniform_int_distribution<int>(1, kMostGatheredSamples)(rng);
      const float spread = q % 4 == 3 ? 20.0f : uniform(rng, 0.0f, 0.3f);  // of a radius
      const std::uint32_t first = std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
      const Vec3 facing = random_unit(rng);
      ShadingPoint points[kMostGatheredSamples];
      std::uint64_t skip[kMostGatheredSamples];
      Vec3 origins[kMostGatheredSamples];
      for (int k = 0; k < count; ++k) {
        // Mostly the first grain, sometimes the grain nearest a point beside it.
        std::uint32_t g = first;
        if (k % 3 == 2) {
          const Vec3 beside =
              center_of(scene.spheres[first]) + random_unit(rng) * (2.0f * scene.spheres[first].w);
          float best = INFINITY;
          for (std::uint32_t m = 0; m < n; ++m) {
            const Vec3 d = center_of(scene.spheres[m]) - beside;
            if (dot(d, d) < best) best = dot(d, d), g = m;
          }
        }
        const Vec4 s = scene.spheres[g];
        points[k].normal = normalize(facing + random_unit(rng) * spread);
        points[k].origin = center_of(s) + points[k].normal * (s.w * (1.0f + 1e-4f));
        skip[k] = scene.id_of(g);
        origins[k] = points[k].origin;
      }
      PixelNeighbours near;
      gathered.gather_pixel(origins, count, lighting.ao_distance, near);
      (near.complete ? shared : alone) += 1;
      const int i = std::uniform_int_distribution<int>(0, 1919)(rng);
      const int j = std::uniform_int_distribution<int>(0, 1079)(rng);
      for (int k = 0; k < count; ++k) {
        const auto expected = blocked_bits(reference, points[k], i, j, k, lighting, skip[k]);
        std::vector<std::uint32_t> words(static_cast<std::size_t>(lighting.mask_words), 0u);
        gathered.ambient_near(points[k], i, j, k, lighting, skip[k], words.data(), &near);
        EXPECT_EQ(words, expected) << scene.label << ", block " << q << ", point " << k << " of "
                                   << count << (near.complete ? " (shared)" : " (alone)");
        for (int r = 0; r < lighting.ao_samples; ++r) {
          (mask_bit(expected.data(), 1 + r) ? blocked_total : open_total) += 1;
        }
      }
    }
  }
  // Shared lists, lists not shared, blocked and open rays all occur often.
  EXPECT_GT(shared, 300);
  EXPECT_GT(alone, 50);
  EXPECT_GT(blocked_total, 1000);
  EXPECT_GT(open_total, 1000);
}

// The shadow rays' columns along the light (light_columns.h): for lights along the axes, between
// them and anywhere, a shadow ray from a point on a grain (its id skipped), or from anywhere (a
// wall's point), is blocked by the columns exactly as by the walk and by the reference.
TEST(NearbySpheres, ShadowRaysReadingTheColumnsAlongTheLightBlockAsTheReference) {
  Rng rng(fresh_seed());
  long served = 0, blocked_total = 0, open_total = 0;
  for (const OcclusionScene& scene : occlusion_scenes(rng)) {
    const auto n = static_cast<std::uint32_t>(scene.spheres.size());
    const GridOccluder walk = scene.walk();
    const BruteForceOccluder reference = scene.reference();
    for (int light = 0; light < 12; ++light) {
      Vec3 dir = random_unit(rng);
      if (light < 3)
        dir = {light == 0 ? 1.0f : 0.0f, light == 1 ? -1.0f : 0.0f,
               light == 2 ? 1.0f : 0.0f};  // along an axis: zero components
      if (light == 3) dir = normalize(Vec3{1.0f, 1.0f, 1e-7f});
      detail::LightColumns columns;
      const std::uint64_t references = scene.host.ref_index.size();
      const std::uint64_t generation = std::uint64_t(2 * light);
      columns.build(scene.grid, references, dir, references, generation);
      EXPECT_EQ(columns.view().entries, nullptr) << "a ray per reference: the rays walk";
      // Asked again for the same grid and light: kept as they are, however many rays.
      columns.build(scene.grid, references, dir, 100 * references, generation);
      EXPECT_EQ(columns.view().entries, nullptr) << "kept for the grid's generation";
      columns.build(scene.grid, references, dir, 100 * references, generation + 1);
      const NearbySphereOccluder gathered{walk, columns.view()};
      ASSERT_NE(columns.view().entries, nullptr) << scene.label << ": the columns were built";
      const std::uint32_t* built = columns.view().entries;
      columns.build(scene.grid, references, dir, references, generation + 1);
      EXPECT_EQ(columns.view().entries, built) << "a later band of the frame keeps them";
      for (int q = 0; q < 400; ++q) {
        Ray ray{{}, dir};
        std::uint64_t skip_id = kWallIdBase;
        if (q % 4 != 3) {  // a point on a grain, a hair outside it
          const std::uint32_t k = std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
          const Vec4 s = scene.spheres[k];
          ray.origin = center_of(s) + random_unit(rng) * (s.w * (1.0f + 1e-4f));
          skip_id = scene.id_of(k);
        } else {  // anywhere in and around the scene, as a wall's point
          ray.origin = {uniform(rng, -3.0f, 9.0f), uniform(rng, -3.0f, 9.0f),
                        uniform(rng, -3.0f, 9.0f)};
        }
        const float length = q % 8 == 5 ? scene.mean_radius * uniform(rng, 0.1f, 8.0f) : INFINITY;
        const bool expected = reference(ray, length, skip_id);
        const std::string where =
            scene.label + ", light " + std::to_string(light) + ", ray " + std::to_string(q);
        EXPECT_EQ(walk(ray, length, skip_id), expected) << where;
        EXPECT_EQ(gathered(ray, length, skip_id), expected) << where;
        served += columns.view().serves(ray) ? 1 : 0;
        (expected ? blocked_total : open_total) += 1;
      }
    }
  }
  // The columns answered nearly every ray, and both answers occur often.
  EXPECT_GT(served, 4 * 12 * 400 * 9 / 10);
  EXPECT_GT(blocked_total, 2000);
  EXPECT_GT(open_total, 2000);
}

}  // namespace
}  // namespace granray::test
