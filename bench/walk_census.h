// What the GPU's walk does for each primary ray of a frame's grid, and for rays that leave the
// grains as a path's first bounce does, counted on the host: its turns (slabs entered, leaps and
// grains tested), over every cell and leaping over empty space (GridView::clearance), and per
// warp (16 x 2 pixels, or 32 rays) the longest lane's, which a warp waits for
// (granray-bench --walk-census).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "granray/renderer.h"

namespace granray::bench {

struct WalkCount {
  double rays = 0;           // that enter the grid
  double hits = 0;           // that meet a grain
  double slabs = 0;          // slabs entered and leaps taken, summed over the rays
  double tests = 0;          // grains tested, summed
  double longest_lanes = 0;  // per warp, the most turns of a lane, summed over the warps
};

struct WalkCensus {
  WalkCount every_cell;
  WalkCount leaping;  // the grid's clearance used (as every_cell without one)
  // Rays leaving the grains' surfaces, cosine-distributed (a path's first bounce), per warp of
  // 32 rays in the grains' order.
  WalkCount bounce_every_cell;
  WalkCount bounce_leaping;
  int width = 0, height = 0;
};

// A ray leaving grain g as a path's first bounce does: from a point of its surface (a uniform
// normal), cosine-distributed about the normal.
Ray ray_leaving_grain(Vec4 g, std::mt19937& random);

// The frame's primary rays (RenderSettings' camera, auto by default) over `grid`, built from
// `view` (the grains of `view` frame the camera).
WalkCensus walk_census(const HostGrid& grid, const ParticleView& view, const RenderSettings& s);

// One line a walk: turns a ray, and the warps' longest lanes.
std::string describe(const WalkCensus& census);

}  // namespace granray::bench
