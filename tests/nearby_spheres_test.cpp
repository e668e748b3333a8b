// The occlusion rays' two ways through the grid give the same blocked bits as every sphere tested
// in turn (the reference): a walk per ray (GridOccluder, the GPU's way) and the CPU's list
// gathered once per point (NearbySphereOccluder). Random beds, gases and giants among small grains;
// points on grains and off them (a wall's points, nothing skipped), ray counts across batch
// boundaries, lengths from a sliver to several diameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "granray/kernels/nearby_spheres.h"
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

TEST(NearbySpheres, EveryWayBlocksTheRaysTheReferenceBlocks) {
  Rng rng(fresh_seed());
  const SceneCase cases[] = {{"dense monodisperse bed", 1500, 0.5f, 0.5f, false},
                             {"dense polydisperse bed", 1500, 0.2f, 0.6f, false},
                             {"dilute polydisperse gas", 800, 0.05f, 0.6f, true},
                             {"giants among small grains", 1200, 0.2f, 0.3f, false}};
  const int ray_counts[] = {1, 3, 7, 8, 9, 16, 31, 33, 64};
  long blocked_total = 0, open_total = 0;
  for (const SceneCase& c : cases) {
    std::vector<Vec4> spheres = random_scene(rng, c, 6.0f);
    if (std::string(c.label) == "giants among small grains") {
      // A few grains far larger than the grid's cells: listed in every cell they overlap.
      for (int k = 0; k < 6; ++k) {
        Vec4& s = spheres[std::uniform_int_distribution<std::size_t>(0, spheres.size() - 1)(rng)];
        s.w = uniform(rng, 1.0f, 2.5f);
      }
    }
    const auto n = static_cast<std::uint32_t>(spheres.size());
    const HostGrid host = Renderer(BackendKind::cpu).build_grid(view_of(spheres));
    const GridView grid{host.geometry, host.cell_offsets.data(), host.ref_spheres.data(),
                        host.ref_index.data()};
    const IdMap id_of{nullptr, 0};
    const GridOccluder walk{grid, id_of};
    const NearbySphereOccluder gathered{walk};
    const BruteForceOccluder reference{spheres.data(), n, id_of};
    float mean_radius = 0.0f;
    for (const Vec4& s : spheres) mean_radius += s.w / static_cast<float>(n);

    for (int q = 0; q < 300; ++q) {
      LightingParams lighting{};
      lighting.side = 1;
      lighting.ao_samples = ray_counts[q % std::size(ray_counts)];
      lighting.ao_distance = mean_radius * uniform(rng, 0.05f, 6.0f);
      lighting.mask_words = blocked_mask_words(lighting.ao_samples);
      ShadingPoint p;
      std::uint64_t skip_id;
      if (q % 5 != 4) {  // a point on a grain, a hair outside it (shading_point)
        const std::uint32_t k = std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
        const Vec4 s = spheres[k];
        p.normal = random_unit(rng);
        p.origin = center_of(s) + p.normal * (s.w * (1.0f + 1e-4f));
        skip_id = id_of(k);
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
      const std::string where = std::string(c.label) + ", query " + std::to_string(q) + ", " +
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

}  // namespace
}  // namespace granray::test
