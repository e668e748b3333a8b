// What the force network's walk would do for rays leaving the grains (a lit frame's shadow and
// occlusion rays start there) under three ways of listing the capsules, counted on the host: by
// their boxes and by their midpoints (the renderer's two, GRANRAY_CAPSULE_LISTING), and through the
// grains' own grid (the frame's, Renderer::build_grid), each capsule with the grain it starts from
// and the walk grown by the farthest capsule point from that grain's centre (docs/design.md, "The
// network's own grid, and what it costs"). Per unit length of ray: cell runs entered and capsules
// tested (granray-bench --capsule-walk-census).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contact_pairs.h"
#include "granray/render_settings.h"

namespace granray::bench {

// One listing's grid and what its walk does, per unit length of ray.
struct CapsuleListingCount {
  std::string name;
  int dims[3];
  float cell;
  std::uint64_t references;  // (cell, item) pairs: capsules, or grains for `behind_spheres`
  double reach_cells;        // the walk's reach, in cells
  double runs;               // runs of cells entered
  double tests;              // capsules tested (and, behind spheres, the spheres)
};

struct CapsuleWalkCensus {
  std::size_t capsules = 0;  // drawn
  std::size_t rays = 0;
  float length = 0.0f;  // each ray's walk
  CapsuleListingCount by_boxes, by_midpoints, through_grains, behind_spheres;
};

// The network of `pairs` between `grains` drawn as `settings` draws it, every grain drawn.
CapsuleWalkCensus capsule_walk_census(const std::vector<Vec4>& grains, const ContactPairs& pairs,
                                      const ContactSettings& settings);

// One line a listing.
std::string describe(const CapsuleWalkCensus& census);

}  // namespace granray::bench
