// Where the primary rays of a block of pixels can first meet a grain: the least entry bound
// (sphere_footprint's `near`) of every grain whose footprint covers a pixel of the block, +inf
// where none does. A primary ray then walks the grid from its block's bound, not from the eye:
// the empty space between the eye and a heap, a pour or a hopper is not walked at all, and a
// block that no grain covers casts no ray at the grains. Exact: every ray through a pixel that
// meets a grain meets it at or beyond that grain's bound, and the grain is counted in the block
// of every pixel its footprint (padded by a pixel, so that a pixel's samples are covered) reaches.
#pragma once

#include <cstdint>

#include "granray/kernels/camera_frame.h"
#include "granray/kernels/platform.h"
#include "granray/kernels/screen_tiles.h"

namespace granray {

// Blocks of 8 x 8 pixels: on a slope a block's rays meet the grains at depths that differ by
// about as much as the block is wide, and a ray walks from its block's nearest.
constexpr int kNearBlockShift = 3;

GRANRAY_HD_INLINE int near_block_columns(const CameraFrame& cam) {
  return (cam.width + (1 << kNearBlockShift) - 1) >> kNearBlockShift;
}
GRANRAY_HD_INLINE int near_block_rows(const CameraFrame& cam) {
  return (cam.height + (1 << kNearBlockShift) - 1) >> kNearBlockShift;
}

// A grain whose footprint spans more blocks than this, or than a quarter of the window's (one
// across the eye's plane, or close to the eye), marks none: the frame's walks then start at the
// eye, as without bounds. A few such grains would otherwise cost the pass more than the walks.
constexpr std::uint32_t kMostNearBlocksPerGrain = 1024;

GRANRAY_HD_INLINE std::uint32_t most_near_blocks_per_grain(const CameraFrame& cam) {
  const auto quarter = static_cast<std::uint32_t>(near_block_columns(cam)) *
                       static_cast<std::uint32_t>(near_block_rows(cam)) / 4u;
  if (quarter < 4u) return 4u;
  return quarter < kMostNearBlocksPerGrain ? quarter : kMostNearBlocksPerGrain;
}

constexpr std::uint32_t kNoGrainNear = 0x7f800000u;  // +inf's bits

struct NearBoundsView {
  const std::uint32_t* bits;     // per block: its bound's bits (ordered as the bound, >= 0)
  const std::uint32_t* bounded;  // 0: a grain spanned too many blocks; walks start at the eye
  int columns;

  // Where pixel (i, j)'s walk may start: +inf when no grain can show there.
  GRANRAY_HD float at(int i, int j) const {
    if (*bounded == 0u) return 0.0f;
    return float_of_bits(bits[(j >> kNearBlockShift) * columns + (i >> kNearBlockShift)]);
  }
};

// Grain k's bound into every block its footprint reaches.
struct MarkNearBounds {
  CameraFrame camera;
  const Vec4* spheres;
  std::uint32_t* bits;
  std::uint32_t* bounded;
  int columns;
  std::uint32_t most_blocks;  // most_near_blocks_per_grain
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const Vec4 s = spheres[k];
    if (!is_renderable(s)) return;
    const Footprint f = sphere_footprint(camera, s);
    if (f.x0 > f.x1) return;
    const int x0 = f.x0 >> kNearBlockShift, x1 = f.x1 >> kNearBlockShift;
    const int y0 = f.y0 >> kNearBlockShift, y1 = f.y1 >> kNearBlockShift;
    if (static_cast<std::uint32_t>(x1 - x0 + 1) * static_cast<std::uint32_t>(y1 - y0 + 1) >
        most_blocks) {
      atomic_fetch_min(bounded, 0u);
      return;
    }
    const std::uint32_t near = bits_of(f.near);
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        // A block's bound only falls, so a value read no larger than ours is final for us: most
        // grains lie behind others and skip the atomic (a block is reached by dozens).
        std::uint32_t* block = bits + y * columns + x;
        if (near < atomic_load_relaxed(block)) atomic_fetch_min(block, near);
      }
    }
  }
};

}  // namespace granray
