#pragma once

#include <cstdint>
#include <vector>

namespace granray {

// 8-bit RGB, row 0 at the top, pixels interleaved.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;
};

}  // namespace granray
