#pragma once

#include <cstdint>
#include <vector>

namespace granray {

// 8-bit RGB, row 0 at the top, pixels interleaved.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;
  // Filled only when RenderOptions::with_hits is set (compositing, tests): per pixel the distance
  // to the visible sphere (+inf for background) and its global id (~0 for background).
  std::vector<float> depth;
  std::vector<std::uint64_t> hit_id;
};

}  // namespace granray
