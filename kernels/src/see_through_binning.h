// Host: the screen tiles of a camera's window in which each see-through triangle may show
// (kernels/walls.h SeeThroughTiles). A see-through box adds two layers to most pixels; walking
// the wall tree for them cost the CPU twice a frame's casting, and its box tests were most of it.
#pragma once

#include <cstdint>
#include <vector>

#include "granray/kernels/walls.h"

namespace granray::detail {

struct SeeThroughBins {
  std::vector<std::uint32_t> offsets;  // screen_tile_count + 1
  std::vector<std::uint32_t> slots;
  std::vector<float> nearest;  // per slot entry: no ray through the tile meets it nearer
};

// Bins triangles[0, n) (slots of the see-through tree) into `camera`'s screen tiles: a tile lists
// every triangle whose projection, widened by a pixel and by a margin for float rounding, meets
// the tile's pixel squares, so that it lists every triangle any ray through its pixels (pixel
// centres and antialiasing samples) can meet. A triangle reaching to or behind the eye's plane
// goes into every tile. An entry carries kCoversTile when the triangle's projection, narrowed by
// the same margin, holds every pixel square of the tile. Returns false, with `bins` undefined, when
// the lists would hold more than `max_entries` slots. Every entry's `nearest` is 0 (no bound).
bool bin_see_through(const CameraFrame& camera, const WallTriangle* triangles, std::uint32_t n,
                     std::uint64_t max_entries, SeeThroughBins& bins);

// Sets each entry's `nearest` in the lists bin_see_through made for these triangles and camera:
// a lower bound on the distance at which any ray through the tile meets the triangle's plane (0
// where none is useful), so that a ray whose visible surface lies nearer skips the triangle's
// test. Worth its cost (tens of nanoseconds an entry) only for lists that serve several frames.
void bound_see_through(const CameraFrame& camera, const WallTriangle* triangles, std::uint32_t n,
                       SeeThroughBins& bins);

}  // namespace granray::detail
