// Another rank's queries are answered ray by ray on the GPU, a thread per occlusion ray and per
// piece of a shadow ray (lit_exchange.h): the pieces of a ray together block exactly what the
// whole ray blocks, and the answers equal those of one thread per query and of the brute-force
// reference. Random beds and gases, rays from grains and from anywhere (outside the grid too),
// piece counts that do and do not divide a warp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "granray/kernels/lit_exchange.h"
#include "granray/kernels/occlusion.h"
#include "test_support.h"

namespace granray::test {
namespace {

// The grid of these spheres as the CPU builds it, with views into it.
struct TestGrid {
  explicit TestGrid(const std::vector<Vec4>& spheres)
      : host(Renderer(BackendKind::cpu).build_grid(view_of(spheres))),
        view{host.geometry, host.cell_offsets.data(), host.ref_spheres.data(),
             host.ref_index.data()} {}
  HostGrid host;
  GridView view;
};

template <class Occluder>
bool blocked_by_pieces(const Occluder& occluder, const Ray& ray, float length, std::uint64_t skip,
                       int pieces) {
  bool blocked = false;
  for (int k = 0; k < pieces; ++k)
    blocked = occluder.blocks_piece(ray, length, skip, k, pieces) || blocked;
  return blocked;
}

TEST(ShadowRayPieces, PiecesTogetherBlockWhatTheWholeRayBlocks) {
  Rng rng(fresh_seed());
  const SceneCase cases[] = {{"dense monodisperse bed", 1500, 0.5f, 0.5f, false},
                             {"dense polydisperse bed", 1500, 0.2f, 0.6f, false},
                             {"dilute polydisperse gas", 800, 0.05f, 0.6f, true}};
  const int piece_counts[] = {1, 2, 5, 32, 33};
  long blocked_total = 0, open_total = 0, blocked_further_on = 0;
  for (const SceneCase& c : cases) {
    const std::vector<Vec4> spheres = random_scene(rng, c, 6.0f);
    const auto n = static_cast<std::uint32_t>(spheres.size());
    const TestGrid grid(spheres);
    const IdMap id_of{nullptr, 0};
    const GridOccluder walk{grid.view, id_of};
    const BruteForceOccluder reference{spheres.data(), n, id_of};
    for (int q = 0; q < 400; ++q) {
      Ray ray;
      std::uint64_t skip;
      if (q % 3 != 2) {  // from a hair off a grain, as a shading point
        const std::uint32_t k = std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
        const Vec3 normal = random_unit(rng);
        ray.origin = center_of(spheres[k]) + normal * (spheres[k].w * (1.0f + 1e-4f));
        skip = id_of(k);
      } else {  // from anywhere, outside the grid too
        ray.origin = {uniform(rng, -3.0f, 9.0f), uniform(rng, -3.0f, 9.0f),
                      uniform(rng, -3.0f, 9.0f)};
        skip = kWallIdBase;
      }
      ray.dir = random_unit(rng);
      const float length = q % 2 == 0 ? INFINITY : uniform(rng, 0.1f, 12.0f);
      const bool expected = reference(ray, length, skip);
      (expected ? blocked_total : open_total) += 1;
      // Rays that only a later piece blocks: the pieces after the first are walked.
      if (expected && !walk.blocks_piece(ray, length, skip, 0, 32)) ++blocked_further_on;
      for (const int pieces : piece_counts) {
        const std::string where = std::string(c.label) + ", ray " + std::to_string(q) + ", " +
                                  std::to_string(pieces) + " pieces";
        EXPECT_EQ(blocked_by_pieces(walk, ray, length, skip, pieces), expected) << where;
        EXPECT_EQ(blocked_by_pieces(reference, ray, length, skip, pieces), expected) << where;
      }
    }
  }
  EXPECT_GT(blocked_total, 200);  // both answers occur often
  EXPECT_GT(open_total, 100);
  EXPECT_GT(blocked_further_on, 20);
}

TEST(ShadowRayPieces, QueriesAnsweredRayByRayAsInOneThread) {
  Rng rng(fresh_seed());
  long asked = 0, shadowed = 0, occluded_rays = 0;
  for (int round = 0; round < 12; ++round) {
    const CameraFrame cam = random_camera_frame(rng, round % 3 == 0);
    const std::vector<Vec4> spheres = dilute_gas(rng, 5000, 0.03f, 0.09f, 1.0f);
    const auto n = static_cast<std::uint32_t>(spheres.size());
    const TestGrid grid(spheres);
    const IdMap id_of{nullptr, 0};
    const GridOccluder walk{grid.view, id_of};
    const BruteForceOccluder reference{spheres.data(), n, id_of};

    // Queries as an asking rank sends them: the first hit of random pixels.
    std::vector<SecondaryQuery> queries;
    for (int tries = 0; tries < 2000; ++tries) {
      const int i = std::uniform_int_distribution<int>(0, cam.width - 1)(rng);
      const int j = std::uniform_int_distribution<int>(0, cam.height - 1)(rng);
      const Hit hit = trace_all(spheres.data(), n, id_of, pixel_sample_ray(cam, i, j, 0, 1));
      if (hit.index == kNoHit) continue;
      queries.push_back(
          {spheres[hit.index], hit.t, static_cast<std::uint32_t>(j * cam.width + i), hit.id});
    }
    if (queries.empty()) continue;  // a camera that looks past the gas
    ShadingParams shading{};
    shading.light = random_unit(rng);
    shading.diffuse = 0.7f;
    shading.ambient = 0.3f;
    LightingParams lighting{};
    lighting.side = 1;
    lighting.shadows = round % 6 != 5;
    lighting.ao_samples = round % 4 == 0 ? 0 : 1 + round % 9;
    lighting.ao_distance = 0.15f;
    lighting.mask_words = blocked_mask_words(lighting.ao_samples);
    const auto count = static_cast<std::uint32_t>(queries.size());
    const std::size_t words = static_cast<std::size_t>(count) * lighting.mask_words;

    std::vector<std::uint32_t> expected(words), whole(words), in_pieces(words, 0xdeadbeefu);
    const AnswerQueries<BruteForceOccluder> by_reference{
        reference, cam, shading, lighting, queries.data(), expected.data()};
    const AnswerQueries<GridOccluder> by_thread{walk,           cam,         shading, lighting,
                                                queries.data(), whole.data()};
    for (std::uint32_t q = 0; q < count; ++q) {
      by_reference(q);
      by_thread(q);
    }
    const int pieces = lighting.shadows ? 1 + round % 4 * 11 : 0;  // 1, 12, 23, 34
    const int rays = pieces + lighting.ao_samples;
    std::vector<std::uint8_t> blocked(static_cast<std::size_t>(count) * rays, 2);
    const AnswerRaysApart<GridOccluder> apart{walk,           cam,    shading,       lighting,
                                              queries.data(), pieces, blocked.data()};
    for (std::uint32_t t = 0; t < count * static_cast<std::uint32_t>(rays); ++t) apart(t);
    const GatherAnsweredRays gather{lighting, pieces, blocked.data(), in_pieces.data()};
    for (std::uint32_t q = 0; q < count; ++q) gather(q);

    const std::string where =
        "round " + std::to_string(round) + ", " + std::to_string(pieces) + " pieces";
    EXPECT_EQ(whole, expected) << where;
    EXPECT_EQ(in_pieces, expected) << where;
    for (std::uint32_t q = 0; q < count; ++q) {
      const std::uint32_t* bits = &expected[static_cast<std::size_t>(q) * lighting.mask_words];
      shadowed += mask_bit(bits, 0);
      for (int k = 0; k < lighting.ao_samples; ++k) occluded_rays += mask_bit(bits, 1 + k);
    }
    asked += count;
  }
  EXPECT_GT(asked, 2000);  // the cameras saw the gas
  EXPECT_GT(occluded_rays, 500);
  // Shadowed and lit samples both occur often.
  EXPECT_GT(shadowed, asked / 20);
  EXPECT_LT(shadowed, asked - asked / 20);
}

}  // namespace
}  // namespace granray::test
