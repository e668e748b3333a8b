// contract 2g's brute-force reference in double precision: a ray's nearest hit among grains and
// the capsules of their contacts, every one tested, with the contract's order for equal
// distances (a sphere, then a capsule, then the smaller index); and the capsules a frame's
// contacts make. Written from the contract's formulas, apart from the kernels' float code; the
// renderer's capsules will be checked against it as its spheres are against seed 001's loop.
#pragma once

#include <cstdint>
#include <vector>

#include "granray/image.h"
#include "granray/kernels/vec.h"
#include "granray/rank_stages.h"
#include "reference_math.h"
#include "test_support.h"

namespace granray::test {

// Smaller root t > 0 of the ray entering the sphere, else +inf (from inside: +inf).
double sphere_entry(D3 o, D3 d, D3 centre, double r);
// Distance from x to the segment [a, b].
double to_segment(D3 x, D3 a, D3 b);
// The ray's entry into the capsule of radius r about [a, b]; +inf from inside or when it misses.
double capsule_entry(D3 o, D3 d, D3 a, D3 b, double r);

struct RefContact {
  std::uint32_t first, second;  // grains, as indices into the frame's spheres
  double value;                 // the pair's f >= 0
};

// Every pair of `grains` that overlap, each with a value drawn from [0, most).
std::vector<RefContact> true_contacts(Rng& rng, const std::vector<Vec4>& grains, float most);

struct RefCapsule {
  D3 a, b;
  double radius;
  std::size_t contact;  // index of the pair it draws
};

// The capsules of `contacts` (2g): rho = width * min(r_i, r_j) * sqrt(f / f_max) with
// scale = "force", or width * min(r_i, r_j) with "fixed"; only pairs with f >= threshold * mean f.
std::vector<RefCapsule> reference_capsules(const std::vector<Vec4>& spheres,
                                           const std::vector<RefContact>& contacts, double width,
                                           bool scale_by_force, double threshold);

struct RefHit {
  enum Kind { none, sphere, capsule } kind = none;
  std::size_t index = 0;  // into the spheres, or the capsules
  double t = 0.0;
};

// The nearest of every sphere and capsule along the ray (2g's order for equal t).
RefHit nearest_hit(D3 o, D3 d, const std::vector<Vec4>& spheres,
                   const std::vector<RefCapsule>& capsules);

// Whether a pixel's hit id is a capsule's (contract 2g), and how many pixels of an image show one.
bool shows_capsule(std::uint64_t id);
std::size_t capsule_pixels(const Image& image);

// Expects `got` to hold the pairs (first[k], second[k], value[k]) between `grains` given whole
// (RankStages::copy_contacts_to_host): both grains' spheres and ids (ids[i], or id_offset + i
// where `ids` is empty) bit for bit, and for an index past the grains a NaN sphere and the id ~0.
void expect_pairs_given_whole(const HostPairs& got, const std::vector<Vec4>& grains,
                              const std::vector<std::uint64_t>& ids, std::uint64_t id_offset,
                              const std::vector<std::uint32_t>& first,
                              const std::vector<std::uint32_t>& second,
                              const std::vector<float>& value);

}  // namespace granray::test
