#include "contact_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "granray/kernels/contact_capsules.h"
#include "granray/kernels/walls.h"

namespace granray::test {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

double sphere_entry(D3 o, D3 d, D3 centre, double r) {
  const D3 oc = o - centre;
  const double a = dot(d, d), b = dot(oc, d), c = dot(oc, oc) - r * r;
  const double disc = b * b - a * c;
  if (disc <= 0.0 || c <= 0.0) return kInf;
  const double t = (-b - std::sqrt(disc)) / a;
  return t > 0.0 ? t : kInf;
}

double to_segment(D3 x, D3 a, D3 b) {
  const D3 ba = b - a;
  const double len2 = dot(ba, ba);
  double s = len2 > 0.0 ? dot(x - a, ba) / len2 : 0.0;
  s = std::min(1.0, std::max(0.0, s));
  const D3 q = a + ba * s;
  return std::sqrt(dot(x - q, x - q));
}

// A ray from outside first enters a convex union where it enters the first of its parts: the
// finite cylinder (its side, by cross products) or either end's sphere.
double capsule_entry(D3 o, D3 d, D3 a, D3 b, double r) {
  if (to_segment(o, a, b) <= r) return kInf;
  double best = std::min(sphere_entry(o, d, a, r), sphere_entry(o, d, b, r));
  const D3 ba = b - a;
  const double len = std::sqrt(dot(ba, ba));
  if (len > 0.0) {
    const D3 u = ba * (1.0 / len);
    const D3 w = cross(o - a, u), v = cross(d, u);
    const double qa = dot(v, v), qb = dot(w, v), qc = dot(w, w) - r * r;
    const double disc = qb * qb - qa * qc;
    if (qa > 0.0 && disc > 0.0) {
      const double t = (-qb - std::sqrt(disc)) / qa;
      const double along = dot(o + d * t - a, u);
      if (t > 0.0 && along >= 0.0 && along <= len) best = std::min(best, t);
    }
  }
  return best;
}

std::vector<RefCapsule> reference_capsules(const std::vector<Vec4>& spheres,
                                           const std::vector<RefContact>& contacts, double width,
                                           bool scale_by_force, double threshold) {
  double f_max = 0.0, sum = 0.0;
  for (const RefContact& c : contacts) f_max = std::max(f_max, c.value), sum += c.value;
  const double mean = contacts.empty() ? 0.0 : sum / contacts.size();
  std::vector<RefCapsule> capsules;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const RefContact& c = contacts[k];
    if (c.value < threshold * mean) continue;
    const Vec4 i = spheres[c.first], j = spheres[c.second];
    const double r_min = std::min<double>(i.w, j.w);
    const double share = scale_by_force ? (f_max > 0.0 ? std::sqrt(c.value / f_max) : 0.0) : 1.0;
    const double rho = width * r_min * share;
    if (!(rho > 0.0)) continue;  // a pair without force draws nothing
    capsules.push_back({{i.x, i.y, i.z}, {j.x, j.y, j.z}, rho, k});
  }
  return capsules;
}

RefHit nearest_hit(D3 o, D3 d, const std::vector<Vec4>& spheres,
                   const std::vector<RefCapsule>& capsules) {
  RefHit hit;
  hit.t = kInf;
  // Spheres first, then capsules, each in index order, and only a strictly nearer hit replaces
  // the one held: equal t keeps a sphere over a capsule and the smaller index.
  for (std::size_t k = 0; k < spheres.size(); ++k) {
    const Vec4 s = spheres[k];
    const double t = sphere_entry(o, d, {s.x, s.y, s.z}, s.w);
    if (t < hit.t) hit = {RefHit::sphere, k, t};
  }
  for (std::size_t k = 0; k < capsules.size(); ++k) {
    const RefCapsule& c = capsules[k];
    const double t = capsule_entry(o, d, c.a, c.b, c.radius);
    if (t < hit.t) hit = {RefHit::capsule, k, t};
  }
  return hit;
}

std::vector<RefContact> true_contacts(Rng& rng, const std::vector<Vec4>& grains, float most) {
  std::vector<RefContact> pairs;
  for (std::uint32_t i = 0; i < grains.size(); ++i) {
    for (std::uint32_t j = i + 1; j < grains.size(); ++j) {
      const Vec4 a = grains[i], b = grains[j];
      const double gap =
          std::sqrt(double(a.x - b.x) * (a.x - b.x) + double(a.y - b.y) * (a.y - b.y) +
                    double(a.z - b.z) * (a.z - b.z));
      if (gap < a.w + b.w) pairs.push_back({i, j, uniform(rng, 0.0f, most)});
    }
  }
  return pairs;
}

void expect_pairs_given_whole(const HostPairs& got, const std::vector<Vec4>& grains,
                              const std::vector<std::uint64_t>& ids, std::uint64_t id_offset,
                              const std::vector<std::uint32_t>& first,
                              const std::vector<std::uint32_t>& second,
                              const std::vector<float>& value) {
  const std::size_t n = value.size();
  ASSERT_EQ(got.value.size(), n);
  ASSERT_EQ(got.spheres.size(), 2 * n);
  ASSERT_EQ(got.ids.size(), 2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    ASSERT_TRUE(same_bits(got.value[k], value[k])) << "pair " << k;
    const std::uint32_t grain[2] = {first[k], second[k]};
    for (int side = 0; side < 2; ++side) {
      const std::uint32_t i = grain[side];
      const Vec4 s = got.spheres[2 * k + side];
      if (i >= grains.size()) {
        EXPECT_TRUE(std::isnan(s.x) && std::isnan(s.y) && std::isnan(s.z))
            << "pair " << k << " names grain " << i << " past the frame's";
        EXPECT_EQ(got.ids[2 * k + side], ~std::uint64_t{0}) << "pair " << k;
        continue;
      }
      const Vec4 e = grains[i];
      ASSERT_TRUE(same_bits(s.x, e.x) && same_bits(s.y, e.y) && same_bits(s.z, e.z) &&
                  same_bits(s.w, e.w))
          << "pair " << k << " side " << side;
      EXPECT_EQ(got.ids[2 * k + side], ids.empty() ? id_offset + i : ids[i])
          << "pair " << k << " side " << side;
    }
  }
}

bool shows_capsule(std::uint64_t id) { return id >= kCapsuleIdBase && id < kWallIdBase; }

std::size_t capsule_pixels(const Image& image) {
  return std::count_if(image.hit_id.begin(), image.hit_id.end(), shows_capsule);
}

}  // namespace granray::test
