// What travels between ranks in a lit frame across ranks by halo (kernels/lit_exchange.h).
#pragma once

#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray {

// A rank's grains' box (radius included), grown by a margin that covers rounding.
struct RankBox {
  Vec3 lo;
  Vec3 hi;
};

// A sample whose secondary rays another rank answers: what the answering rank needs to cast
// them as the asking rank does (the primary ray comes from the sample's index).
struct SecondaryQuery {
  Vec4 sphere;           // the visible sphere, or a wall's (normal, 0)
  float t;               // along the sample's primary ray
  std::uint32_t sample;  // pixel * samples + sample of the pixel, in the frame's window
  std::uint64_t id;      // the visible surface's id (its own rays skip it)
};
static_assert(sizeof(SecondaryQuery) == 32, "queries travel as raw bytes");

}  // namespace granray
