#pragma once

#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray {

struct Ray {
  Vec3 origin;
  Vec3 dir;
};

// Nearest visible sphere along a ray. `index` is the position in the frame's particle array,
// `id` the global id used to break ties so that images never depend on the rank count.
struct Hit {
  float t;
  std::uint64_t id;
  std::uint32_t index;
};

constexpr std::uint32_t kNoHit = 0xffffffffu;

GRANRAY_HD_INLINE Hit no_hit() { return {INFINITY, ~std::uint64_t{0}, kNoHit}; }

// Smaller entry distance wins; equal distances go to the smaller global id (contract 2).
GRANRAY_HD_INLINE bool closer(float t, std::uint64_t id, const Hit& best) {
  return t < best.t || (t == best.t && id < best.id);
}

}  // namespace granray
