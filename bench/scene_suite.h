// The scenes granray is measured on: the beds users simulate, not only grains filling their box.
// Each is generated from a seed for any grain count, polydisperse where real beds are, with the
// container walls the scene has (the drum's cylinder, the hopper's cone). granray-bench renders
// them (--scene), granray-scene writes them as 'x y z r' text (bench/mitsuba_compare.py --scene).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "granray/kernels/vec.h"
#include "granray/walls.h"

namespace granray::bench {

struct SuiteScene {
  std::vector<Vec4> grains;  // x, y, z, radius
  WallList walls;            // the container, when the scene has one
};

// dense (grains filling their box: the bed every earlier figure was measured on), dilute (a gas of
// about 1 % solids), heap (a cone on a floor), drum (a half-filled rotating drum inside its
// cylinder), pour (a narrow falling column over a settled layer), hopper (a full cone of grains
// above a thin stream, inside its conical walls), clusters (a gas of dense clusters and voids).
const std::vector<std::string>& suite_scene_names();

// Throws granray::ConfigError for a name not in suite_scene_names(). `polydispersity` p makes
// the dense bed's radii uniform in [1 - p, 1]; the other scenes have radii of their own kind.
SuiteScene make_suite_scene(const std::string& name, std::size_t count, std::uint64_t seed,
                            float polydispersity = 0.0f);

}  // namespace granray::bench
