// contract 2g's reference checked from the formulas alone: two grains in contact and their
// capsule, the order of equal distances, the radius by force and the threshold; then the
// kernels' float sphere and capsule functions in the same loop agree with it on random packings
// with their contacts, up to rounding at silhouettes and near-ties.
#include <gtest/gtest.h>

#include <cmath>

#include "contact_reference.h"
#include "granray/kernels/capsule.h"
#include "granray/kernels/intersect.h"
#include "test_support.h"

namespace granray::test {
namespace {

TEST(ContactReference, TheCapsuleShowsAtTheNeckBetweenTouchingGrains) {
  const std::vector<Vec4> grains = {{0, 0, 0, 1}, {1.9f, 0, 0, 1}};
  const auto capsules = reference_capsules(grains, {{0, 1, 4.0}}, 0.4, true, 0.0);
  ASSERT_EQ(capsules.size(), 1u);
  EXPECT_DOUBLE_EQ(capsules[0].radius, 0.4) << "width x r_min x sqrt(f / f_max) = 0.4 x 1 x 1";
  // Down through a grain's centre: the grain, at its top.
  RefHit h = nearest_hit({0, 0, 5}, {0, 0, -1}, grains, capsules);
  EXPECT_EQ(h.kind, RefHit::sphere);
  EXPECT_EQ(h.index, 0u);
  EXPECT_DOUBLE_EQ(h.t, 4.0);
  // Down beside the grains' overlap at y = 0.3: the grains' surfaces are low there
  // (z = sqrt(1 - 0.95^2 - 0.3^2) = 0.087), the capsule's top at sqrt(0.4^2 - 0.3^2) = 0.265.
  h = nearest_hit({0.95, 0.3, 5}, {0, 0, -1}, grains, capsules);
  EXPECT_EQ(h.kind, RefHit::capsule);
  EXPECT_NEAR(h.t, 5.0 - std::sqrt(0.16 - 0.09), 1e-12);
  // Farther out than a thinner capsule's radius: the grain, just inside its rim.
  h = nearest_hit({0.95, 0.31, 5}, {0, 0, -1}, grains, {{{0, 0, 0}, {1.9, 0, 0}, 0.3, 0}});
  EXPECT_EQ(h.kind, RefHit::sphere);
}

TEST(ContactReference, EqualDistancesGoToTheSphereThenTheSmallerIndex) {
  // A capsule as thick as the grain it starts in: its end sphere is the grain, met at the same t.
  const std::vector<Vec4> grains = {{0, 0, 0, 1}, {2, 0, 0, 1}};
  const auto capsules = reference_capsules(grains, {{0, 1, 1.0}, {1, 0, 1.0}}, 1.0, false, 0.0);
  ASSERT_EQ(capsules.size(), 2u);
  RefHit h = nearest_hit({0, 0, 5}, {0, 0, -1}, grains, capsules);
  EXPECT_EQ(h.kind, RefHit::sphere);
  EXPECT_EQ(h.index, 0u);
  // Without the grains, the two identical capsules: the first.
  h = nearest_hit({1, 0, 5}, {0, 0, -1}, {}, capsules);
  EXPECT_EQ(h.kind, RefHit::capsule);
  EXPECT_EQ(h.index, 0u);
  EXPECT_DOUBLE_EQ(h.t, 4.0);
}

TEST(ContactReference, RadiusByForceAndTheStrongNetwork) {
  const std::vector<Vec4> grains = {{0, 0, 0, 1}, {1.9f, 0, 0, 0.5f}, {0, 1.9f, 0, 2}};
  const std::vector<RefContact> pairs = {{0, 1, 1.0}, {0, 2, 2.0}, {1, 2, 9.0}, {1, 0, 0.0}};
  const auto all = reference_capsules(grains, pairs, 0.4, true, 0.0);
  ASSERT_EQ(all.size(), 3u) << "a pair without force draws nothing";
  EXPECT_DOUBLE_EQ(all[0].radius, 0.4 * 0.5 * std::sqrt(1.0 / 9.0));
  EXPECT_DOUBLE_EQ(all[1].radius, 0.4 * 1.0 * std::sqrt(2.0 / 9.0));
  EXPECT_DOUBLE_EQ(all[2].radius, 0.4 * 0.5);
  // The strong network: f >= mean f (3).
  const auto strong = reference_capsules(grains, pairs, 0.4, true, 1.0);
  ASSERT_EQ(strong.size(), 1u);
  EXPECT_EQ(strong[0].contact, 2u);
  // Fixed radius: width x the smaller radius.
  const auto fixed = reference_capsules(grains, pairs, 0.25, false, 0.0);
  EXPECT_DOUBLE_EQ(fixed[1].radius, 0.25);
}

// A packing with its true contacts (every pair of grains that overlap), and the kernels' float
// functions in the same loop: the nearest hit agrees with the reference on all but the pixels
// where two surfaces are within rounding of each other or the ray grazes one.
TEST(ContactReference, KernelsInTheReferencesLoopAgreeOnPackingsWithTheirContacts) {
  Rng rng(fresh_seed());
  for (int scene = 0; scene < 4; ++scene) {
    const auto grains = dense_bed(rng, 300, 0.3f, 0.5f);
    const std::vector<RefContact> pairs = true_contacts(rng, grains, 5.0f);
    ASSERT_GT(pairs.size(), 20u) << "a packing has contacts";
    const auto capsules = reference_capsules(grains, pairs, 0.6, true, scene % 2 ? 1.0 : 0.0);
    std::vector<Capsule> kernel_capsules;
    for (const RefCapsule& c : capsules) {
      kernel_capsules.push_back({{float(c.a.x), float(c.a.y), float(c.a.z)},
                                 {float(c.b.x), float(c.b.y), float(c.b.z)},
                                 float(c.radius)});
    }
    // With the grains (the capsules mostly inside them) and the network alone (grains = false).
    for (const bool with_grains : {true, false}) {
      const std::vector<Vec4> shown = with_grains ? grains : std::vector<Vec4>{};
      int rays = 0, differ = 0, capsule_hits = 0;
      for (int k = 0; k < 3000; ++k) {
        const Vec3 o{uniform(rng, -20, 20), uniform(rng, -20, 20), 30};
        const Vec3 aim{uniform(rng, 0, 8), uniform(rng, 0, 8), uniform(rng, 0, 8)};
        const Ray ray{o, aim - o};
        const RefHit ref = nearest_hit(d3(ray.origin), d3(ray.dir), shown, capsules);
        // The same loop with the kernels' functions, in float.
        float best = INFINITY;
        RefHit got;
        for (std::size_t s = 0; s < shown.size(); ++s) {
          const float t = sphere_entry_distance(ray, shown[s]);
          if (t < best) best = t, got = {RefHit::sphere, s, t};
        }
        for (std::size_t c = 0; c < kernel_capsules.size(); ++c) {
          const float t = capsule_entry_distance(ray, kernel_capsules[c]);
          if (t < best) best = t, got = {RefHit::capsule, c, t};
        }
        ++rays;
        capsule_hits += ref.kind == RefHit::capsule;
        if (got.kind != ref.kind || got.index != ref.index) ++differ;
      }
      if (!with_grains) EXPECT_GT(capsule_hits, 50) << "scene " << scene << ": the network shows";
      EXPECT_LT(differ, rays / 200) << "scene " << scene << (with_grains ? "" : ", network alone");
    }
  }
}

}  // namespace
}  // namespace granray::test
