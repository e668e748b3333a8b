// Another rank's queries are answered ray by ray on the GPU, a thread per occlusion ray and per
// piece of a shadow ray (lit_exchange.h): the pieces of a ray together block exactly what the
// whole ray blocks, and the answers equal those of one thread per query and of the brute-force
// reference. Random beds and gases, rays from grains and from anywhere (outside the grid too),
// piece counts that do and do not divide a warp.
#include <gtest/gtest.h>

#include <algorithm>
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

// Queries as an asking rank sends them: the first hit of random pixels, and points of walls
// (a plane through a random point of the gas, facing the camera) that rays there would meet.
std::vector<SecondaryQuery> random_queries(Rng& rng, const CameraFrame& cam,
                                           const std::vector<Vec4>& spheres) {
  const auto n = static_cast<std::uint32_t>(spheres.size());
  const IdMap id_of{nullptr, 0};
  std::vector<SecondaryQuery> queries;
  for (int tries = 0; tries < 2000; ++tries) {
    const int i = std::uniform_int_distribution<int>(0, cam.width - 1)(rng);
    const int j = std::uniform_int_distribution<int>(0, cam.height - 1)(rng);
    const Ray primary = pixel_sample_ray(cam, i, j, 0, 1);
    const auto pixel = static_cast<std::uint32_t>(j * cam.width + i);
    const Hit hit = trace_all(spheres.data(), n, id_of, primary);
    if (tries % 4 == 3) {  // a wall's point before whatever the pixel shows
      const float t = uniform(rng, 0.5f, 1.0f) * (hit.index == kNoHit ? 1.5f : hit.t);
      Vec3 normal = normalize(random_unit(rng) - primary.dir * 1.5f);
      if (dot(normal, primary.dir) > 0.0f) normal = normal * -1.0f;
      queries.push_back({{normal.x, normal.y, normal.z, 0.0f}, t, pixel, kWallIdBase + tries});
    } else if (hit.index != kNoHit) {
      queries.push_back({spheres[hit.index], hit.t, pixel, hit.id});
    }
  }
  return queries;
}

// What an answer may hold: the bits the one-rank test gives to the rays an answering rank tests
// (the shadow ray; the occlusion rays of a wall's point, a grain's being final where it was asked).
std::vector<std::uint32_t> one_rank_answers(const BruteForceOccluder& occluder,
                                            const CameraFrame& cam, const ShadingParams& shading,
                                            const LightingParams& lighting,
                                            const std::vector<SecondaryQuery>& queries) {
  std::vector<std::uint32_t> words(queries.size() * lighting.mask_words);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const AskedSample a = asked_sample(queries[q], cam, lighting);
    std::uint32_t* out = &words[q * lighting.mask_words];
    find_sample_blockers(occluder, cam, shading, lighting, a.i, a.j, a.s, a.surface, out);
    if (!shows_wall(a.surface.sphere)) {
      for (int k = 1; k <= lighting.ao_samples; ++k) out[k >> 5] &= ~(1u << (k & 31));
    }
  }
  return words;
}

// Another rank's queries answered, one thread per query and ray by ray: with the answering
// rank's box round every grain, the one-rank bits; with a box round some of them (the others a
// halo), at least the bits those grains give and never a bit that no grain gives.
TEST(ShadowRayPieces, QueriesAnsweredRayByRayAsInOneThread) {
  Rng rng(fresh_seed());
  long asked = 0, shadowed = 0, occluded_rays = 0, walls = 0, own_box_rounds = 0;
  for (int round = 0; round < 16; ++round) {
    const CameraFrame cam = random_camera_frame(rng, round % 3 == 0);
    const std::vector<Vec4> spheres = dilute_gas(rng, 5000, 0.03f, 0.09f, 1.0f);
    const auto n = static_cast<std::uint32_t>(spheres.size());
    const TestGrid grid(spheres);
    const IdMap id_of{nullptr, 0};
    const GridOccluder walk{grid.view, id_of};
    const BruteForceOccluder reference{spheres.data(), n, id_of};
    const std::vector<SecondaryQuery> queries = random_queries(rng, cam, spheres);
    if (queries.empty()) continue;  // a camera that looks past the gas

    // The answering rank's box: round every grain, or round the grains of a random part of space.
    RankBox all{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (const Vec4& s : spheres) {
      all.lo = {std::min(all.lo.x, s.x - s.w), std::min(all.lo.y, s.y - s.w),
                std::min(all.lo.z, s.z - s.w)};
      all.hi = {std::max(all.hi.x, s.x + s.w), std::max(all.hi.y, s.y + s.w),
                std::max(all.hi.z, s.z + s.w)};
    }
    RankBox own = all;
    const bool part = round % 2 == 1;
    if (part) {
      const Vec3 size = all.hi - all.lo;
      const float lo[3] = {uniform(rng, 0.0f, 0.6f), uniform(rng, 0.0f, 0.6f),
                           uniform(rng, 0.0f, 0.6f)};
      const float wide[3] = {uniform(rng, 0.2f, 0.5f), uniform(rng, 0.2f, 0.5f),
                             uniform(rng, 0.2f, 0.5f)};
      own.lo = all.lo + Vec3{size.x * lo[0], size.y * lo[1], size.z * lo[2]};
      own.hi = own.lo + Vec3{size.x * wide[0], size.y * wide[1], size.z * wide[2]};
      ++own_box_rounds;
    }
    std::vector<Vec4> inside;  // the grains wholly in the answering rank's box: its own
    std::vector<std::uint64_t> inside_ids;
    for (std::uint32_t k = 0; k < n; ++k) {
      const Vec4 s = spheres[k];
      if (s.x - s.w >= own.lo.x && s.x + s.w <= own.hi.x && s.y - s.w >= own.lo.y &&
          s.y + s.w <= own.hi.y && s.z - s.w >= own.lo.z && s.z + s.w <= own.hi.z) {
        inside.push_back(s);
        inside_ids.push_back(id_of(k));
      }
    }

    ShadingParams shading{};
    shading.light = directional_light(random_unit(rng));
    shading.diffuse = 0.7f;
    shading.ambient = 0.3f;
    LightingParams lighting{};
    lighting.side = 1;
    lighting.shadows = round % 6 != 5;
    lighting.ao_samples = round % 4 == 0 ? 0 : 1 + round % 9;
    lighting.ao_distance = 0.15f;
    lighting.wall_offset = 1e-6f;
    lighting.mask_words = blocked_mask_words(lighting.ao_samples);
    const auto count = static_cast<std::uint32_t>(queries.size());
    const std::size_t words = static_cast<std::size_t>(count) * lighting.mask_words;

    const std::vector<std::uint32_t> upper =
        one_rank_answers(reference, cam, shading, lighting, queries);
    const BruteForceOccluder own_grains{inside.data(), static_cast<std::uint32_t>(inside.size()),
                                        IdMap{inside_ids.data(), 0}};
    const std::vector<std::uint32_t> lower =
        one_rank_answers(own_grains, cam, shading, lighting, queries);

    std::vector<std::uint32_t> by_reference(words), whole(words), in_pieces(words, 0xdeadbeefu);
    const AnswerQueries<BruteForceOccluder> answer_by_reference{
        {reference, cam, shading, lighting, queries.data(), own}, by_reference.data()};
    const AskedQueries<GridOccluder> asked_here{walk, cam, shading, lighting, queries.data(), own};
    const AnswerQueries<GridOccluder> by_thread{asked_here, whole.data()};
    for (std::uint32_t q = 0; q < count; ++q) {
      answer_by_reference(q);
      by_thread(q);
    }
    const int pieces = lighting.shadows ? 1 + round % 4 * 11 : 0;  // 1, 12, 23, 34
    const int rays = pieces + lighting.ao_samples;
    std::vector<std::uint8_t> blocked(static_cast<std::size_t>(count) * rays, 2);
    const AnswerRaysApart<GridOccluder> apart{asked_here, pieces, blocked.data()};
    for (std::uint32_t t = 0; t < count * static_cast<std::uint32_t>(rays); ++t) apart(t);
    const GatherAnsweredRays gather{lighting, pieces, blocked.data(), in_pieces.data()};
    for (std::uint32_t q = 0; q < count; ++q) gather(q);

    const std::string where = "round " + std::to_string(round) + ", " + std::to_string(pieces) +
                              " pieces" + (part ? ", a part of space" : "");
    EXPECT_EQ(by_reference, upper) << where;  // the reference walks no part: the whole ray
    EXPECT_EQ(in_pieces, whole) << where;     // the same cells walked, in pieces or whole
    if (!part) EXPECT_EQ(whole, upper) << where;
    for (std::size_t w = 0; w < words; ++w) {
      EXPECT_EQ(whole[w] & lower[w], lower[w]) << where << ", query " << w / lighting.mask_words;
      EXPECT_EQ(whole[w] & ~upper[w], 0u) << where << ", query " << w / lighting.mask_words;
    }
    for (std::uint32_t q = 0; q < count; ++q) {
      const std::uint32_t* bits = &upper[static_cast<std::size_t>(q) * lighting.mask_words];
      shadowed += mask_bit(bits, 0);
      for (int k = 0; k < lighting.ao_samples; ++k) occluded_rays += mask_bit(bits, 1 + k);
      walls += shows_wall(queries[q].sphere) ? 1 : 0;
    }
    asked += count;
  }
  EXPECT_GT(asked, 2000);  // the cameras saw the gas
  EXPECT_GT(walls, 500);
  EXPECT_GT(occluded_rays, 20);  // walls' occlusion rays blocked
  EXPECT_GT(own_box_rounds, 4);
  // Shadowed and lit samples both occur often.
  EXPECT_GT(shadowed, asked / 20);
  EXPECT_LT(shadowed, asked - asked / 20);
}

}  // namespace
}  // namespace granray::test
