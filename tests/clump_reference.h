// Random clumps (templates of 1-8 spheres, owners at random positions and orientations) and the
// double-precision positions of their component spheres, written apart from the kernel: the
// rotation matrix of the quaternion, applied to each offset. For the clump gather's tests on the
// host (clump_gather_test.cpp) and on the GPU (cuda_input_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "granray/clump_gather.h"
#include "test_support.h"

namespace granray::test {

struct RandomClumps {
  std::vector<ClumpTemplate> templates;
  std::vector<std::uint32_t> template_of;
  std::vector<float> positions;  // x, y, z per owner
  std::vector<Vec4> orientations;
  std::vector<float> values;
};

inline RandomClumps random_clumps(Rng& rng, std::size_t owners) {
  RandomClumps c;
  c.templates.resize(std::uniform_int_distribution<std::size_t>(1, 6)(rng));
  for (ClumpTemplate& t : c.templates) {
    const int n = std::uniform_int_distribution<int>(1, 8)(rng);
    for (int k = 0; k < n; ++k) {
      t.offsets.push_back({uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)});
      t.radii.push_back(uniform(rng, 0.05f, 0.6f));
    }
  }
  std::uniform_int_distribution<std::uint32_t> which(
      0, static_cast<std::uint32_t>(c.templates.size() - 1));
  for (std::size_t i = 0; i < owners; ++i) {
    c.template_of.push_back(which(rng));
    for (int a = 0; a < 3; ++a) c.positions.push_back(uniform(rng, -50, 50));
    const Vec3 axis = random_unit(rng);
    const float half = uniform(rng, 0, 3.14159f);
    c.orientations.push_back({axis.x * std::sin(half), axis.y * std::sin(half),
                              axis.z * std::sin(half), std::cos(half)});
    c.values.push_back(uniform(rng, 0, 5));
  }
  return c;
}

// Every component sphere of `c` against `spheres` (and `values`, when given) as the gather
// wrote them, owner after owner in template order: within float rounding of the double result.
inline void expect_clump_spheres(const RandomClumps& c, const std::vector<Vec4>& spheres,
                                 const std::vector<float>* values) {
  std::size_t k = 0, checked = 0;
  for (std::size_t i = 0; i < c.template_of.size(); ++i) {
    const Vec4 q = c.orientations[i];
    const double x = q.x, y = q.y, z = q.z, w = q.w;
    const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    const ClumpTemplate& t = c.templates[c.template_of[i]];
    for (std::size_t s = 0; s < t.offsets.size(); ++s, ++k) {
      ASSERT_LT(k, spheres.size());
      const double o[3] = {t.offsets[s].x, t.offsets[s].y, t.offsets[s].z};
      const float got[3] = {spheres[k].x, spheres[k].y, spheres[k].z};
      for (int a = 0; a < 3; ++a) {
        const double expected =
            c.positions[3 * i + a] + r[a][0] * o[0] + r[a][1] * o[1] + r[a][2] * o[2];
        EXPECT_NEAR(got[a], expected, 1e-5 * (1.0 + std::abs(expected)))
            << "owner " << i << ", sphere " << s << ", axis " << a;
      }
      EXPECT_EQ(spheres[k].w, t.radii[s]);
      if (values != nullptr) EXPECT_EQ((*values)[k], c.values[i]);
      ++checked;
    }
  }
  EXPECT_EQ(checked, spheres.size());
}

}  // namespace granray::test
