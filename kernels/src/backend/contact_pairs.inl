// A frame's contact pairs as the backend reads them (contract 2g): by index into the frame's
// grains or given whole, which of them are drawable, their census over the frame, and each made
// whole for the gather across ranks. Part of the backend (thrust_backend.inl).
#pragma once

#include <cstdint>

#include "backend_prelude.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The frame's pair values: the largest, their sum and how many pairs are drawable, the smallest.
struct PairCensus {
  float lo;
  float hi;
  double sum;
  std::uint64_t count;
  std::uint64_t top_id;     // the largest grain id of a drawable pair
  std::uint64_t bottom_id;  // the smallest
};

GRANRAY_HD_INLINE PairCensus empty_pair_census() {
  return {INFINITY, -INFINITY, 0.0, 0u, 0u, ~std::uint64_t{0}};
}

// A frame's pairs as the kernels read them: by index into the frame's grains, or given whole
// (both grains' spheres and ids per pair, ContactView::spheres). A pair is drawable when both
// grains are renderable (and, by index, are the frame's) and its value is a finite f >= 0; any
// other pair is left out (a broken particle never stops a frame). Where every grain of the frame
// is renderable (`grains_renderable`, from the grains' bounds), a pair by index is drawable without
// reading its grains: the census then reads the pairs alone (on the H200, 3 M pairs: 58 -> 45 us).
struct PairSource {
  const Vec4* spheres;  // the frame's grains
  std::uint32_t particles;
  bool grains_renderable;
  const std::uint64_t* ids;  // the grains' global ids; null: index + id_offset
  std::uint64_t id_offset;
  const std::uint32_t* first;
  const std::uint32_t* second;
  const float* value;
  const Vec4* pair_spheres;       // 2 per pair, or null: by index
  const std::uint64_t* pair_ids;  // 2 per pair, with pair_spheres

  GRANRAY_HD bool drawable(std::uint32_t k) const {
    const float f = value[k];
    if (!(is_finite(f) && f >= 0.0f)) return false;
    if (pair_spheres != nullptr) {
      return pair_ids[2 * k] != pair_ids[2 * k + 1] && is_renderable(pair_spheres[2 * k]) &&
             is_renderable(pair_spheres[2 * k + 1]);
    }
    const std::uint32_t i = first[k], j = second[k];
    return i < particles && j < particles && i != j &&
           (grains_renderable || (is_renderable(spheres[i]) && is_renderable(spheres[j])));
  }
  // Grain `side` (0 or 1) of pair k, and its global id; only for a drawable pair (by index, an
  // index inside the frame).
  GRANRAY_HD Vec4 sphere(std::uint32_t k, int side) const {
    if (pair_spheres != nullptr) return pair_spheres[2 * k + side];
    return spheres[side == 0 ? first[k] : second[k]];
  }
  GRANRAY_HD std::uint64_t id(std::uint32_t k, int side) const {
    if (pair_ids != nullptr) return pair_ids[2 * k + side];
    const std::uint32_t i = side == 0 ? first[k] : second[k];
    if (i >= particles) return ~std::uint64_t{0};
    return ids != nullptr ? ids[i] : id_offset + i;
  }
};

// Pair k given whole (RankStages::copy_contacts_to_host): both grains' spheres and ids; a grain
// past the frame's gets a broken sphere and the id ~0, as PairSource::id gives it.
struct WholePair {
  PairSource pairs;
  Vec4* spheres;
  std::uint64_t* ids;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const std::uint32_t grain[2] = {pairs.first[k], pairs.second[k]};
    for (int side = 0; side < 2; ++side) {
      spheres[2 * k + side] =
          grain[side] < pairs.particles ? pairs.spheres[grain[side]] : Vec4{NAN, NAN, NAN, 0.0f};
      ids[2 * k + side] = pairs.id(k, side);
    }
  }
};

struct CensusOfPair {
  PairSource pairs;
  GRANRAY_HD PairCensus operator()(std::uint32_t k) const {
    if (!pairs.drawable(k)) return empty_pair_census();
    const float f = pairs.value[k];
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return {f, f, static_cast<double>(f), 1u, a < b ? b : a, a < b ? a : b};
  }
};

struct MergeCensus {
  GRANRAY_HD PairCensus operator()(const PairCensus& a, const PairCensus& b) const {
    return {a.lo < b.lo ? a.lo : b.lo,
            a.hi > b.hi ? a.hi : b.hi,
            a.sum + b.sum,
            a.count + b.count,
            a.top_id > b.top_id ? a.top_id : b.top_id,
            a.bottom_id < b.bottom_id ? a.bottom_id : b.bottom_id};
  }
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
