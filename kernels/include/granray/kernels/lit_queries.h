// What travels between ranks in a lit frame across ranks by halo (kernels/lit_exchange.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "granray/kernels/shading.h"
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

// 64-bit words that name the ranks a sample's rays are asked of, one bit per rank.
GRANRAY_HD_INLINE int target_words(int ranks) { return (ranks + 63) / 64; }

// A sample as one rank shows it (several samples per pixel across ranks): its clamped colour,
// and the depth and id of its surface (+inf and ~0 where it shows none) that decide which
// rank's sample the composite keeps.
struct ShownSample {
  Vec3 color;
  float t;
  std::uint64_t id;
};
static_assert(sizeof(ShownSample) == 24, "samples travel as raw bytes");

// A frame's shown samples in host memory that the renderer owns until its next frame: on the CPU
// its own buffer (a 1080p frame of 4 samples holds 200 MB, which a copy would fault in page by
// page), on the GPU a download kept across frames. The composite may change them in place.
struct HostSamples {
  ShownSample* data;
  std::size_t count;
};

// The pixel of `samples` shown colours summed in sample order: their mean, quantised (contract 2a).
GRANRAY_HD_INLINE Rgb8 mean_color(Vec3 sum, int samples) {
  return to_rgb8(sum * (1.0f / static_cast<float>(samples)));
}

}  // namespace granray
