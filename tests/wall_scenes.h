// Random walls and clip planes around random grains (contract 2b-2d), for the wall, see-through and
// rank tests.
#pragma once

#include <memory>
#include <vector>

#include "granray/walls.h"
#include "test_support.h"

namespace granray::test {

// The spheres' box (p - r .. p + r).
SceneBounds box_of(const std::vector<Vec4>& spheres);

// A point of the box grown by `grow` times its size on every side (negative: shrunk).
Vec3 random_point(Rng& rng, const SceneBounds& b, float grow);

// Triangles of every size and slant through and around the grains.
std::vector<Triangle> triangle_soup(Rng& rng, const SceneBounds& b, std::size_t n);

// A scene's walls: a soup of up to `most_soup` triangles, a container box (back faces) around
// the grains, a cylinder. Each wall is see-through (opacity in [0.1, 0.9]) with probability
// `see_through`.
std::shared_ptr<WallList> random_walls(Rng& rng, const SceneBounds& b, int most_soup = 300,
                                       double see_through = 0.0);

// Up to two clip planes through the box's middle part.
std::vector<ClipPlane> random_clip(Rng& rng, const SceneBounds& b);

}  // namespace granray::test
