// Which ranks a lit frame across ranks asks about a sample's rays (lit_exchange.h): a rank's halo
// holds every other rank's grain that reaches within `reach` of its box, so a shadow ray needs
// another rank only where it meets that rank's box after leaving the covered box, and a wall's
// occlusion rays none where their whole ball lies near the box. Checked against every grain on
// random beds and gases split among ranks as slabs, boxes cut across random directions,
// round-robin (boxes that overlap wholly) and at random.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "granray/io/spatial_share.h"
#include "granray/kernels/lit_exchange.h"
#include "granray/kernels/occlusion.h"
#include "test_support.h"

namespace granray::test {
namespace {

enum class SplitKind { slabs, boxes, round_robin, random_owner };
const char* split_name(SplitKind k) {
  switch (k) {
    case SplitKind::slabs:
      return "slabs";
    case SplitKind::boxes:
      return "boxes across random directions";
    case SplitKind::round_robin:
      return "round-robin";
    default:
      return "random owners";
  }
}

// The owner of each grain. Slabs and boxes are granray-render's spatial shares (recursive
// bisection at the median, io/spatial_share.h): slabs along one axis, boxes along the longest of
// three random directions (as shares cut across a picture, whose boxes overlap in the world).
std::vector<int> owners(Rng& rng, const std::vector<Vec4>& spheres, int ranks, SplitKind kind) {
  std::vector<int> owner(spheres.size(), 0);
  if (kind == SplitKind::round_robin) {
    for (std::size_t k = 0; k < spheres.size(); ++k) owner[k] = static_cast<int>(k % ranks);
    return owner;
  }
  if (kind == SplitKind::random_owner) {
    for (int& o : owner) o = std::uniform_int_distribution<int>(0, ranks - 1)(rng);
    return owner;
  }
  std::vector<Vec3> axes;
  if (kind == SplitKind::slabs) {
    const int a = std::uniform_int_distribution<int>(0, 2)(rng);
    axes.push_back({a == 0 ? 1.0f : 0.0f, a == 1 ? 1.0f : 0.0f, a == 2 ? 1.0f : 0.0f});
  } else {
    for (int k = 0; k < 3; ++k) axes.push_back(random_unit(rng));
  }
  io::ParticleFrame frame;
  frame.xyzr = spheres;
  for (int r = 0; r < ranks; ++r) {
    for (const std::size_t k : io::spatial_share_indices(frame, r, ranks, axes)) owner[k] = r;
  }
  return owner;
}

// Each rank's box: its grains, radius included, grown a little (as every rank's box is).
std::vector<RankBox> boxes_of(const std::vector<Vec4>& spheres, const std::vector<int>& owner,
                              int ranks) {
  std::vector<RankBox> boxes(
      ranks, RankBox{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}});
  for (std::size_t k = 0; k < spheres.size(); ++k) {
    const Vec4 s = spheres[k];
    RankBox& b = boxes[owner[k]];
    b.lo = {std::min(b.lo.x, s.x - s.w), std::min(b.lo.y, s.y - s.w), std::min(b.lo.z, s.z - s.w)};
    b.hi = {std::max(b.hi.x, s.x + s.w), std::max(b.hi.y, s.y + s.w), std::max(b.hi.z, s.z + s.w)};
  }
  for (RankBox& b : boxes) {
    if (box_empty(b)) continue;
    const Vec3 pad{1e-4f, 1e-4f, 1e-4f};
    b.lo = b.lo - pad;
    b.hi = b.hi + pad;
  }
  return boxes;
}

// Every point of the covered box lies within the reach of the box (so no grain the halo lacks
// has a point in it), whatever the box's shape.
TEST(HaloCoverage, TheCoveredBoxLiesWithinTheReach) {
  Rng rng(fresh_seed());
  for (int b = 0; b < 200; ++b) {
    const Vec3 lo{uniform(rng, -5.0f, 5.0f), uniform(rng, -5.0f, 5.0f), uniform(rng, -5.0f, 5.0f)};
    const RankBox box{lo, lo + Vec3{uniform(rng, 0.0f, 4.0f), uniform(rng, 0.0f, 4.0f),
                                    uniform(rng, 0.0f, 4.0f)}};
    const float reach = uniform(rng, 0.01f, 3.0f);
    const RankBox covered = covered_box(box, reach);
    const Vec3 size = covered.hi - covered.lo;
    for (int q = 0; q < 50; ++q) {
      // Corners and edges half the time, where the box grown along the axes reaches furthest.
      const auto coordinate = [&](float l, float s) {
        return q % 2 == 0
                   ? l + s * static_cast<float>(std::uniform_int_distribution<int>(0, 1)(rng))
                   : l + s * uniform(rng, 0.0f, 1.0f);
      };
      const Vec3 p{coordinate(covered.lo.x, size.x), coordinate(covered.lo.y, size.y),
                   coordinate(covered.lo.z, size.z)};
      ASSERT_LE(box_distance(p, box), reach) << "box " << b << ", point " << q;
    }
  }
}

TEST(HaloCoverage, EveryGrainBeyondTheHaloThatBlocksIsInABoxTheRayIsAskedOf) {
  Rng rng(fresh_seed());
  const SceneCase cases[] = {{"dense monodisperse bed", 2000, 0.5f, 0.5f, false},
                             {"dense polydisperse bed", 2000, 0.2f, 0.6f, false},
                             {"dilute polydisperse gas", 1500, 0.05f, 0.6f, true}};
  const SplitKind kinds[] = {SplitKind::slabs, SplitKind::boxes, SplitKind::round_robin,
                             SplitKind::random_owner};
  long beyond_halo_blockers = 0, asks_before = 0, asks_now = 0, covered_walls = 0;
  long covered_ranks = 0, beyond_halo_grains = 0, silent_ranks = 0;
  for (const SceneCase& c : cases) {
    const std::vector<Vec4> spheres = random_scene(rng, c, 12.0f);
    float max_radius = 0.0f;
    for (const Vec4& s : spheres) max_radius = std::max(max_radius, s.w);
    for (const SplitKind kind : kinds) {
      const int ranks = std::uniform_int_distribution<int>(2, 5)(rng);
      const std::vector<int> owner = owners(rng, spheres, ranks, kind);
      const std::vector<RankBox> boxes = boxes_of(spheres, owner, ranks);
      const float ao_distance = uniform(rng, 0.2f, 2.0f) * max_radius;
      const float reach = ao_distance + 1e-4f + 1e-3f * max_radius;
      for (int a = 0; a < ranks; ++a) {
        if (box_empty(boxes[a])) continue;
        const std::string where = std::string(c.label) + ", " + split_name(kind) + ", " +
                                  std::to_string(ranks) + " ranks, rank " + std::to_string(a);
        std::vector<std::uint32_t> mine, beyond;  // rank a's grains; the others' not in its halo
        const ReachesBox in_halo{spheres.data(), boxes[a], reach};
        for (std::uint32_t k = 0; k < spheres.size(); ++k) {
          if (owner[k] == a) {
            mine.push_back(k);
          } else if (!in_halo(k)) {
            beyond.push_back(k);
          }
        }
        const RankBox covered = covered_box(boxes[a], reach);
        // A rank that may ask nobody (no wall point) skips the pass: none of its rays is asked.
        const bool may_ask = may_ask_another_rank(boxes.data(), ranks, a, reach, true, false);
        silent_ranks += !may_ask;
        // No point of a grain beyond the halo lies in the covered box.
        for (const std::uint32_t k : beyond) {
          ASSERT_GT(box_distance(center_of(spheres[k]), covered), spheres[k].w)
              << where << ": grain " << k << " of rank " << owner[k];
        }
        beyond_halo_grains += static_cast<long>(beyond.size());
        for (int q = 0; q < 250; ++q) {  // shadow rays from shading points of rank a's grains
          const Vec4 s =
              spheres[mine[std::uniform_int_distribution<std::size_t>(0, mine.size() - 1)(rng)]];
          const Ray ray{center_of(s) + random_unit(rng) * (s.w * (1.0f + 1e-4f)), random_unit(rng)};
          const float from = covered_until(ray, covered);
          for (const std::uint32_t k : beyond) {
            if (!blocks(ray, spheres[k], INFINITY)) continue;
            ++beyond_halo_blockers;
            ASSERT_TRUE(ray_meets_box_after(ray, boxes[owner[k]], from))
                << where << ": grain " << k << " of rank " << owner[k] << " blocks a ray not asked";
          }
          for (int r = 0; r < ranks; ++r) {
            if (r == a) continue;
            const bool now = ray_meets_box_after(ray, boxes[r], from);
            const bool before = ray_meets_box_after(ray, boxes[r], 0.0f);
            EXPECT_TRUE(before || !now) << where;  // asks only where it asked before
            asks_now += now;
            EXPECT_TRUE(may_ask || !now) << where << ": a rank that may ask nobody asked " << r;
            asks_before += before;
            // A rank whose box lies inside the covered box (round-robin boxes overlap almost
            // wholly) is never asked: a ray does not come back into the covered box.
            if (box_empty(boxes[r]) || !inside_covered(boxes[r], covered, reach)) continue;
            ++covered_ranks;
            EXPECT_FALSE(now) << where << ": rank " << r << " inside the covered box asked";
          }
        }
        // A wall's point whose occlusion rays' ball the halo covers: no grain beyond the halo
        // comes within the occlusion distance of it.
        for (int q = 0; q < 100; ++q) {
          const Vec3 size = boxes[a].hi - boxes[a].lo;
          const Vec3 p{boxes[a].lo.x + size.x * uniform(rng, -0.1f, 1.1f),
                       boxes[a].lo.y + size.y * uniform(rng, -0.1f, 1.1f),
                       boxes[a].lo.z + size.z * uniform(rng, -0.1f, 1.1f)};
          if (box_distance(p, boxes[a]) > 0.5f * (reach - ao_distance)) continue;
          ++covered_walls;
          for (const std::uint32_t k : beyond) {
            const Vec3 d = p - center_of(spheres[k]);
            ASSERT_GT(std::sqrt(dot(d, d)) - spheres[k].w, ao_distance) << where;
          }
        }
      }
    }
  }
  EXPECT_GT(beyond_halo_grains, 2000);
  EXPECT_GT(beyond_halo_blockers, 500);  // grains beyond the halo do block rays
  EXPECT_GT(covered_walls, 1000);
  EXPECT_LT(asks_now, asks_before);  // fewer asks than by the boxes alone
  EXPECT_GT(covered_ranks, 200);
  EXPECT_GT(silent_ranks, 4);  // ranks that may ask nobody (13-24 a run in 8 runs)
}

}  // namespace
}  // namespace granray::test
