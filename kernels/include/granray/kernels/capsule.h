// A capsule (contract 2g): the points within `radius` of the segment [a, b], a contact of two
// grains drawn as a force chain. Its entry distance and normal, written once for both backends,
// as intersect.h has the sphere's.
#pragma once

#include <cmath>

#include "granray/kernels/intersect.h"
#include "granray/kernels/ray.h"
#include "granray/kernels/vec.h"

namespace granray {

struct Capsule {
  Vec3 a;
  Vec3 b;
  float radius;
};

// Entry distance of a ray into a capsule, or +inf when the ray misses it or starts inside or in
// front of it (as sphere_entry_distance). The side is a cylinder about [a, b]; where its root
// falls beyond an end, the ray meets that end's sphere first or not at all: a capsule is convex.
GRANRAY_HD_INLINE float capsule_entry_distance(const Ray& ray, const Capsule& c) {
  const Vec3 ba = c.b - c.a;
  const float dd = dot(ray.dir, ray.dir);
  // The roots from the ray's point nearest the capsule's middle, not from its origin: from far
  // away the quadratic's terms would cancel in float (sphere_entry_distance avoids it alike).
  const float shift = dot((c.a + ba * 0.5f) - ray.origin, ray.dir) / dd;
  const Vec3 origin = ray.origin + ray.dir * shift;
  const Vec3 oa = origin - c.a;
  const float baba = dot(ba, ba);
  const float bard = dot(ba, ray.dir);
  const float baoa = dot(ba, oa);
  const float rdoa = dot(ray.dir, oa);
  const float rr = c.radius * c.radius;
  float y = -1.0f;  // where along [a, b] (scaled by baba) the side's root lies; <= 0: end a
  if (baba > 0.0f) {
    const float k2 = baba * dd - bard * bard;
    const float k1 = baba * rdoa - baoa * bard;
    const float k0 = baba * dot(oa, oa) - baoa * baoa - rr * baba;
    if (k2 > 0.0f) {
      // Only a ray across the axis can tell from the side that it misses: along the axis k2 and
      // k1 are rounding, and h's sign with them (4 of 10 rays along a capsule's axis missed it).
      const float h = k1 * k1 - k2 * k0;
      if (!(h >= 0.0f)) return INFINITY;  // the ray misses the infinite cylinder, hence the capsule
      const float t = (-k1 - sqrtf(h)) / k2;
      y = baoa + t * bard;
      if (y > 0.0f && y < baba) return t + shift > 0.0f ? t + shift : INFINITY;
    } else {
      y = bard > 0.0f ? 0.0f : baba;  // along the axis: in through the end it comes from
    }
  }
  // The end's sphere as every grain is tested: capsules that meet at a grain's centre with the
  // same radius share that sphere bit for bit, so their equal distances go to the smaller index
  // (contract 2g) as the reference's do.
  const Vec3 end = y <= 0.0f ? c.a : c.b;
  return sphere_entry_distance(ray, {end.x, end.y, end.z, c.radius});
}

// How far inside a grain, as a share of its radius, a capsule cut back at that grain still
// reaches (capsule_outside_spheres): the part cut off then lies this deep inside the grain, far
// beyond the rounding of the cut and of the grain's test.
constexpr float kCutInsideGrain = 0.01f;

// Capsule c (from a's grain, radius ra, to b's, radius rb; c.a and c.b their centres) cut back at
// the ends whose grain hides what lies inside it (hide_a, hide_b), to the part that can show
// outside the lens the two grains make. With A = (1 - kCutInsideGrain) ra, the points of c whose
// nearest point on the segment lies at s <= sqrt(A^2 - rho^2) from a lie within A of a (s^2 +
// rho^2 <= A^2), inside a's grain, and so does the cut end's new cap; the same at b. A ray that
// starts outside a grain and meets that part enters the grain first (or at the same t, where the
// sphere wins), so the part cut off never shows, blocks or is hit where the grain is drawn: the
// cut capsule gives every ray the same answer. Where the two parts cut off meet, the capsule is
// hidden whole and comes back with radius 0, which no pass draws or lists (on a packing's
// lattice, as the benchmarks' dense bed is, that is nearly half its near-contacts' capsules).
// Unchanged, bit for bit, where neither end is cut.
GRANRAY_HD_INLINE Capsule capsule_outside_spheres(const Capsule& c, float ra, float rb, bool hide_a,
                                                  bool hide_b) {
  if (!hide_a && !hide_b) return c;
  const Vec3 ab = c.b - c.a;
  const float length = sqrtf(dot(ab, ab));
  if (!(length > 0.0f)) return c;
  const float inside = 1.0f - kCutInsideGrain;
  const float rr = c.radius * c.radius;
  // How far along the segment each hiding grain covers the capsule whole (0: not at all, where
  // the capsule is as thick as the grain's inner sphere).
  const float a_reach = ra * inside, b_reach = rb * inside;
  const float covered_a = hide_a && rr < a_reach * a_reach ? sqrtf(a_reach * a_reach - rr) : 0.0f;
  const float covered_b = hide_b && rr < b_reach * b_reach ? sqrtf(b_reach * b_reach - rr) : 0.0f;
  if (covered_a > 0.0f && covered_b > 0.0f && covered_a + covered_b >= length) {
    return {c.a, c.b, 0.0f};  // hidden whole inside the two grains
  }
  float from = covered_a;
  float to = length - covered_b;
  from = from < length ? from : length;
  to = to < length ? (to > from ? to : from) : length;
  Capsule cut = c;
  if (from > 0.0f) cut.a = c.a + ab * (from / length);
  if (to < length) cut.b = c.a + ab * (to / length);
  return cut;
}

// The point of the segment [a, b] nearest x.
GRANRAY_HD_INLINE Vec3 nearest_on_segment(const Capsule& c, Vec3 x) {
  const Vec3 ba = c.b - c.a;
  const float baba = dot(ba, ba);
  float s = baba > 0.0f ? dot(x - c.a, ba) / baba : 0.0f;
  s = s < 0.0f ? 0.0f : s > 1.0f ? 1.0f : s;
  return c.a + ba * s;
}

// The outward unit normal at a point x of the capsule's surface: from the segment's nearest
// point toward x.
GRANRAY_HD_INLINE Vec3 capsule_normal(const Capsule& c, Vec3 x) {
  return normalize(x - nearest_on_segment(c, x));
}

}  // namespace granray
