// The contact network the benchmarks draw (contract 2g): every pair of a scene's grains whose gap
// is less than `slack` times the sum of their radii, found through a hash of cells of the largest
// diameter, each pair once, with a value that grows with how close the pair is (a stand-in for
// the contact force, spread like one).
#pragma once

#include <cstdint>
#include <vector>

#include "granray/kernels/vec.h"

namespace granray::bench {

struct ContactPairs {
  std::vector<std::uint32_t> first, second;
  std::vector<float> value;
};

ContactPairs near_pairs(const std::vector<Vec4>& grains, float slack);

}  // namespace granray::bench
