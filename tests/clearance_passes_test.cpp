// The clearance field's passes along y and z (kernels/clearance_passes.h): the CPU's sweep over
// runs of blocks and the GPU's thread a block give the same field, and both the definition's
// value, on random fields and block counts (fresh seeds). Host code, so CI checks the GPU's pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "granray/kernels/clearance_passes.h"
#include "test_support.h"

namespace granray::test {
namespace {

// out(b) = min over b's line of max(|b - q|, in(q)), capped at kMostClearance, by its definition.
std::vector<std::uint8_t> by_definition(const std::vector<std::uint8_t>& in, const int dims[3],
                                        int axis) {
  std::vector<std::uint8_t> out(in.size());
  const auto at = [&](int x, int y, int z) { return (std::size_t(z) * dims[1] + y) * dims[0] + x; };
  for (int z = 0; z < dims[2]; ++z)
    for (int y = 0; y < dims[1]; ++y)
      for (int x = 0; x < dims[0]; ++x) {
        const int p = axis == 1 ? y : z;
        int best = kMostClearance;
        for (int q = 0; q < dims[axis]; ++q) {
          const int v = in[axis == 1 ? at(x, q, z) : at(x, y, q)];
          best = std::min(best, std::max(std::abs(p - q), v));
        }
        out[at(x, y, z)] = static_cast<std::uint8_t>(best);
      }
  return out;
}

TEST(ClearancePasses, RunsAndBlocksGiveTheDefinitionsField) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 40; ++round) {
    const int dims[3] = {1 + int(rng() % 24), 1 + int(rng() % 80), 1 + int(rng() % 80)};
    const std::size_t count = std::size_t(dims[0]) * dims[1] * dims[2];
    // Mostly clear blocks, a few listing ones (0) and some in between, as the pass along x
    // leaves them.
    std::vector<std::uint8_t> in(count);
    const double listing = uniform(rng, 0.0f, 0.2f);
    for (std::uint8_t& v : in) {
      const double u = uniform(rng, 0.0f, 1.0f);
      v = static_cast<std::uint8_t>(u < listing ? 0
                                    : u < 0.6   ? kMostClearance
                                                : 1 + rng() % kMostClearance);
    }
    const auto row = static_cast<std::uint32_t>(dims[0]);
    const std::uint32_t layer = row * static_cast<std::uint32_t>(dims[1]);
    for (const int axis : {1, 2}) {
      // The arguments GridClearance::measure passes for the pass along y, then z.
      const std::uint32_t lines = axis == 1 ? row * static_cast<std::uint32_t>(dims[2]) : layer;
      const std::uint32_t inner = axis == 1 ? row : layer;
      const std::uint32_t skip = axis == 1 ? layer : 0u;
      const std::uint32_t stride = axis == 1 ? row : layer;
      const int dim = dims[axis];
      std::vector<std::uint8_t> swept(count, 0xff), blockwise(count, 0xff);
      const auto runs = static_cast<std::uint32_t>((dim + kClearanceRun - 1) / kClearanceRun);
      const ClearanceAlongAxis sweep{in.data(), swept.data(), lines, inner, skip, stride, dim};
      for (std::uint32_t t = 0; t < lines * runs; ++t) sweep(t);
      const ClearanceOfBlockAlongAxis each{in.data(), blockwise.data(), lines, inner,
                                           skip,      stride,           dim};
      for (std::uint32_t t = 0; t < lines * static_cast<std::uint32_t>(dim); ++t) each(t);
      const std::vector<std::uint8_t> want = by_definition(in, dims, axis);
      ASSERT_EQ(swept, want) << "the runs, round " << round << ", axis " << axis;
      ASSERT_EQ(blockwise, want) << "a block at a time, round " << round << ", axis " << axis;
    }
  }
}

}  // namespace
}  // namespace granray::test
