// contract 2g's capsule, checked from its definition alone: the points within rho of a segment.
// The kernels' capsule_entry_distance (a cylinder and the end sphere its root points to) against
// the double-precision reference written another way (contact_reference.h: a ray from outside
// first enters a convex union where it enters the first of its parts).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "contact_reference.h"
#include "granray/kernels/capsule.h"
#include "reference_math.h"
#include "test_support.h"

namespace granray::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

D3 random_point(Rng& rng, double lo, double hi) {
  return {uniform(rng, float(lo), float(hi)), uniform(rng, float(lo), float(hi)),
          uniform(rng, float(lo), float(hi))};
}

Vec3 f3(D3 v) { return {float(v.x), float(v.y), float(v.z)}; }

// How far the ray passes from the capsule's surface, relative to rho: near 0 the float and double
// answers may rightly differ on hit or miss.
double grazing(D3 o, D3 d, D3 a, D3 b, double r) {
  double closest = kInf;
  const D3 du = unit(d);
  for (int k = 0; k <= 4000; ++k) {  // the ray's nearest approach, sampled finely enough here
    const double t = 0.01 * k;
    closest = std::min(closest, to_segment(o + du * t, a, b));
  }
  return std::abs(closest - r) / r;
}

TEST(Capsule, EntryDistanceFollowsTheDefinition) {
  Rng rng(fresh_seed());
  int hits = 0, sides = 0, ends = 0;
  for (int k = 0; k < 20000; ++k) {
    const D3 a = random_point(rng, -1, 1);
    const D3 b = rng() % 20 == 0 ? a : a + random_point(rng, -1.5, 1.5);  // some are spheres
    const double r = uniform(rng, 0.02f, 0.6f);
    // Rays from outside a box around the capsule toward a point near it.
    const D3 o = random_point(rng, -1, 1) + unit(random_point(rng, -1, 1)) * 8.0;
    const D3 aim = a + (b - a) * uniform(rng, -0.3f, 1.3f) + random_point(rng, -0.8, 0.8);
    D3 d = aim - o;
    if (rng() % 2 == 0) d = unit(d);  // the kernels take unnormalised directions too
    const Ray ray{f3(o), f3(d)};
    const Capsule c{f3(a), f3(b), float(r)};
    // The reference of the capsule the floats hold.
    const D3 fa = d3(c.a), fb = d3(c.b), fo = d3(ray.origin), fd = d3(ray.dir);
    const double expected = capsule_entry(fo, fd, fa, fb, c.radius);
    const float got = capsule_entry_distance(ray, c);
    if (std::isinf(expected) != std::isinf(got)) {
      EXPECT_LT(grazing(fo, fd, fa, fb, c.radius), 2e-3)
          << "hit/miss away from the silhouette, ray " << k;
      continue;
    }
    if (std::isinf(expected)) continue;
    ++hits;
    // Near the silhouette the entry moves fast with the last bits of the inputs.
    if (grazing(fo, fd, fa, fb, c.radius) < 1e-2) continue;
    const D3 x = fo + fd * expected;
    const D3 ba = fb - fa;
    const double s = dot(ba, ba) > 0 ? dot(x - fa, ba) / dot(ba, ba) : 0.0;
    (s > 1e-3 && s < 1 - 1e-3 ? sides : ends) += 1;
    EXPECT_NEAR(got, expected, 1e-4 * expected + 1e-4 * c.radius * std::sqrt(dot(fd, fd))) << k;
    // The normal at the hit points from the segment's nearest point, of unit length.
    const Vec3 n = capsule_normal(c, ray.origin + ray.dir * got);
    const D3 nearest = fa + ba * std::min(1.0, std::max(0.0, s));
    const D3 expected_n = unit(x - nearest);
    EXPECT_NEAR(dot(d3(n), expected_n), 1.0, 1e-3) << k;
  }
  // The draw exercised both the sides and the ends.
  EXPECT_GT(hits, 3000);
  EXPECT_GT(sides, 500);
  EXPECT_GT(ends, 500);
}

// Rays that graze the side, run along the axis, start inside, or point away.
TEST(Capsule, GrazingAxialInsideAndBehind) {
  const Capsule c{{0, 0, 0}, {2, 0, 0}, 0.5f};
  // Along the axis, from either end: the end sphere's pole.
  EXPECT_FLOAT_EQ(capsule_entry_distance(Ray{{-3, 0, 0}, {1, 0, 0}}, c), 2.5f);
  EXPECT_FLOAT_EQ(capsule_entry_distance(Ray{{5, 0, 0}, {-2, 0, 0}}, c), 1.25f);
  // Across the side, straight down onto the middle.
  EXPECT_FLOAT_EQ(capsule_entry_distance(Ray{{1, 0, 4}, {0, 0, -1}}, c), 3.5f);
  // Grazing the side just outside and just inside the radius.
  EXPECT_TRUE(std::isinf(capsule_entry_distance(Ray{{1, 0.5001f, 4}, {0, 0, -1}}, c)));
  EXPECT_FALSE(std::isinf(capsule_entry_distance(Ray{{1, 0.4999f, 4}, {0, 0, -1}}, c)));
  // From inside, or with the capsule behind: no entry.
  EXPECT_TRUE(std::isinf(capsule_entry_distance(Ray{{1, 0, 0}, {0, 0, 1}}, c)));
  EXPECT_TRUE(std::isinf(capsule_entry_distance(Ray{{1, 0, 4}, {0, 0, 1}}, c)));
  // Beyond an end, down past the cylinder's end plane onto the end sphere: x = 2.3 meets the
  // sphere about b at height sqrt(0.25 - 0.09) = 0.4.
  EXPECT_NEAR(capsule_entry_distance(Ray{{2.3f, 0, 4}, {0, 0, -1}}, c), 3.6f, 1e-5f);
}

// Two grains in contact and their capsule: the capsule lies inside the grains near each centre
// and between them it is what the segment's tube adds; a ray through a grain's centre meets the
// grain (r = 1) before the capsule (rho = 0.2) that starts at that centre.
TEST(Capsule, CapsulesBetweenTouchingGrainsMeetInsideThem) {
  const Vec4 left{0, 0, 0, 1}, right{1.9f, 0, 0, 1};
  const Capsule chain{{0, 0, 0}, {1.9f, 0, 0}, 0.2f};
  const Ray down{{0, 0, 5}, {0, 0, -1}};
  EXPECT_FLOAT_EQ(sphere_entry_distance(down, left), 4.0f);
  EXPECT_NEAR(capsule_entry_distance(down, chain), 4.8f, 1e-5f);
  // Between the grains, through the neck where the spheres leave a gap under the capsule's top.
  const Ray neck{{0.95f, 0, 5}, {0, 0, -1}};
  const float grain =
      std::min(sphere_entry_distance(neck, left), sphere_entry_distance(neck, right));
  EXPECT_LT(grain, 5.0f - 0.2f) << "the grains overlap there: they are met first";
  const Ray gap{{0.95f, 0.6f, 5}, {0, 0, -1}};  // beside the overlap, over the capsule's side
  EXPECT_TRUE(std::isinf(capsule_entry_distance(gap, chain)));
}

// A ray along a capsule's axis, from behind one end, meets that end's sphere: along the axis the
// side's quadratic is rounding alone, and once its sign said "misses the cylinder".
TEST(Capsule, RaysAlongTheAxisMeetTheEnd) {
  Rng rng(fresh_seed());
  for (int k = 0; k < 20000; ++k) {
    const float r = uniform(rng, 0.3f, 1.0f);
    const Vec3 dir = normalize(Vec3{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)});
    const Vec3 a{uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5)};
    const Capsule c{a, a + dir * (1.9f * r), 0.4f * r};
    const float back = uniform(rng, 0.5f, 4.0f);
    const Vec3 eye = a - dir * (back * r);
    const Ray ray{eye, rng() % 2 == 0 ? dir : normalize(c.b - eye)};
    EXPECT_NEAR(capsule_entry_distance(ray, c), (back - 0.4f) * r, 1e-4f * (1.0f + back))
        << "ray " << k;
  }
}

// A capsule cut back at the grains that hide its ends (capsule_outside_spheres) loses only what
// lies deep inside those grains: every point of the whole capsule lies in the cut one or well
// inside a hiding grain, and the cut one lies in the whole; one hidden whole (radius 0) lies well
// inside the two. The cut reaches past what a sphere of rho about the cut end would allow (into
// the lens the grains make). Grains apart, touching, overlapping and one inside the other;
// capsules thin and as thick as a grain.
TEST(Capsule, CapsulesCutBackAtTheirGrainsLoseOnlyWhatTheGrainsHide) {
  Rng rng(fresh_seed());
  int cut_count = 0, whole_hidden = 0, into_the_lens = 0;
  // Well inside a grain: by half the margin the cut keeps.
  const double deep = 1.0 - 0.5 * kCutInsideGrain;
  for (int k = 0; k < 4000; ++k) {
    const double ra = uniform(rng, 0.2f, 1.0f), rb = uniform(rng, 0.2f, 1.0f);
    const D3 a = random_point(rng, -2, 2);
    const double apart = (ra + rb) * uniform(rng, 0.1f, 1.4f);
    const D3 b = a + unit(random_point(rng, -1, 1)) * apart;
    const double rho = std::min(ra, rb) * uniform(rng, 0.01f, 1.0f);
    const bool hide_a = rng() % 4 != 0, hide_b = rng() % 4 != 0;
    const Capsule whole{f3(a), f3(b), float(rho)};
    const Capsule cut = capsule_outside_spheres(whole, float(ra), float(rb), hide_a, hide_b);
    const D3 fa = d3(whole.a), fb = d3(whole.b), ca = d3(cut.a), cb = d3(cut.b);
    if (!hide_a && !hide_b) {
      ASSERT_EQ(std::memcmp(&cut, &whole, sizeof(Capsule)), 0) << "unchanged bit for bit";
      continue;
    }
    const bool hidden = cut.radius == 0.0f;
    if (!hidden) ASSERT_EQ(cut.radius, whole.radius);
    const double length = std::sqrt(dot(fb - fa, fb - fa));
    EXPECT_LT(to_segment(ca, fa, fb), 1e-5 * (1.0 + length)) << "the cut lies on the segment";
    EXPECT_LT(to_segment(cb, fa, fb), 1e-5 * (1.0 + length)) << "the cut lies on the segment";
    cut_count += !hidden && (dot(ca - fa, ca - fa) > 0.0 || dot(cb - fb, cb - fb) > 0.0);
    whole_hidden += hidden;
    // Cut further than a sphere of rho about the cut end, inside the grain, would reach.
    const double inner = 1.0 - kCutInsideGrain;
    into_the_lens +=
        !hidden && hide_a && std::sqrt(dot(ca - fa, ca - fa)) > ra * inner - rho + 1e-3;
    for (int p = 0; p < 200; ++p) {
      // A point of the whole capsule: on the segment, then up to rho away from it.
      const D3 x = fa + (fb - fa) * uniform(rng, 0.0f, 1.0f) +
                   unit(random_point(rng, -1, 1)) * (rho * uniform(rng, 0.0f, 1.0f));
      if (to_segment(x, fa, fb) > rho) continue;
      const bool in_cut = !hidden && to_segment(x, ca, cb) <= rho * (1.0 + 1e-5) + 1e-6;
      const bool in_a = hide_a && std::sqrt(dot(x - fa, x - fa)) < ra * deep;
      const bool in_b = hide_b && std::sqrt(dot(x - fb, x - fb)) < rb * deep;
      ASSERT_TRUE(in_cut || in_a || in_b)
          << "case " << k << ": a point of the capsule neither kept nor deep inside a grain";
    }
    if (hidden) continue;
    // The cut's own ends: the cap about each cut end lies in the whole capsule, and where that
    // end was cut, its points nearer the cut-off side lie deep inside that end's grain.
    for (int p = 0; p < 100; ++p) {
      const bool at_a = p % 2 == 0;
      const D3 end = at_a ? ca : cb, centre = at_a ? fa : fb;
      const double r = at_a ? ra : rb;
      const bool was_cut = std::sqrt(dot(end - centre, end - centre)) > 1e-5 * (1.0 + length);
      const D3 x = end + unit(random_point(rng, -1, 1)) * (rho * uniform(rng, 0.0f, 1.0f));
      ASSERT_LE(to_segment(x, fa, fb), rho * (1.0 + 1e-5) + 1e-6) << "case " << k;
      const D3 back = at_a ? fa - fb : fb - fa;  // toward the cut-off side
      if (was_cut && dot(x - end, back) > 0.0) {
        EXPECT_LT(std::sqrt(dot(x - centre, x - centre)), r * deep)
            << "case " << k << ": the cut end's cap pokes out of its grain";
      }
    }
  }
  EXPECT_GT(cut_count, 1000);
  EXPECT_GT(whole_hidden, 10);
  EXPECT_GT(into_the_lens, 100);
}

}  // namespace
}  // namespace granray::test
