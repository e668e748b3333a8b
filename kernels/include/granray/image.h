#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace granray {

struct Image;

// Pixels a renderer is still copying into an image (RenderOptions::defer_pixels): the copy runs
// on the GPU's copy engine while the simulation goes on, and whoever reads the image first
// completes it, on any thread.
class PendingPixels {
 public:
  virtual ~PendingPixels() = default;
  // Waits for the copy and puts the pixels into image.rgb; throws DeviceError when it failed.
  virtual void complete(Image& image) = 0;
};

// 8-bit RGB, row 0 at the top, pixels interleaved.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;
  // Filled only when RenderOptions::with_hits is set (compositing, tests): per pixel the distance
  // to the visible sphere (+inf for background) and its global id (~0 for background).
  std::vector<float> depth;
  std::vector<std::uint64_t> hit_id;
  // Set while rgb is still on its way from the renderer: settle() before reading rgb.
  std::shared_ptr<PendingPixels> pending;
};

// Completes the image's pending pixels, if any. When that throws, the image holds no frame (its
// rgb is whatever it held before) and is no longer pending.
inline void settle(Image& image) {
  if (!image.pending) return;
  const std::shared_ptr<PendingPixels> pending = std::move(image.pending);  // leaves it null
  pending->complete(image);
}

}  // namespace granray
