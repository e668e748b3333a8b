// granray-render's spatial shares under mpirun (io/spatial_share.h): a partition of the
// snapshot into equal counts separated by planes, the same on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "granray/io/spatial_share.h"
#include "test_support.h"

namespace granray::test {
namespace {

TEST(SpatialShare, EqualCountsInBoxesSeparatedByPlanes) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 20; ++round) {
    io::ParticleFrame frame;
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 3000)(rng);
    const bool ids = rng() % 2 == 0;
    for (std::size_t i = 0; i < n; ++i) {
      // Coarse coordinates: many equal ones, which the split must still share out exactly.
      frame.xyzr.push_back({float(rng() % 17), uniform(rng, 0, 40), float(rng() % 5), 0.5f});
      frame.scalar.push_back(uniform(rng, 0, 1));
      if (ids) frame.ids.push_back(1000000 - 3 * i);
    }
    if (n > 0 && rng() % 2 == 0) frame.xyzr[rng() % n].x = NAN;  // a broken grain
    const int ranks = 1 + static_cast<int>(rng() % 7);
    std::multiset<std::uint64_t> seen;
    std::vector<io::ParticleFrame> shares;
    std::size_t most = 0, fewest = n;
    for (int r = 0; r < ranks; ++r) {
      shares.push_back(io::spatial_share(frame, r, ranks));
      const io::ParticleFrame& share = shares.back();
      most = std::max(most, share.xyzr.size());
      fewest = std::min(fewest, share.xyzr.size());
      ASSERT_EQ(share.ids.size(), share.xyzr.size());
      ASSERT_EQ(share.scalar.size(), share.xyzr.size());
      for (std::size_t k = 0; k < share.xyzr.size(); ++k) {
        seen.insert(share.ids[k]);
        // The same grain: its id names it (the file's, or its index).
        const std::size_t i = ids ? (1000000 - share.ids[k]) / 3 : share.ids[k];
        ASSERT_LT(i, n);
        EXPECT_EQ(share.scalar[k], frame.scalar[i]);
        EXPECT_TRUE(share.xyzr[k].y == frame.xyzr[i].y);
      }
    }
    ASSERT_EQ(seen.size(), n) << ranks << " ranks";
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(seen.count(ids ? frame.ids[i] : i), 1u) << "grain " << i << " not in one share";
    }
    EXPECT_LE(most - fewest, 1u) << n << " grains on " << ranks << " ranks";
    // Any two shares lie on either side of a plane along some axis (finite coordinates).
    for (int a = 0; a < ranks; ++a) {
      for (int b = a + 1; b < ranks; ++b) {
        if (shares[a].xyzr.empty() || shares[b].xyzr.empty()) continue;
        bool apart = false;
        for (int axis = 0; axis < 3 && !apart; ++axis) {
          const auto c = [axis](const Vec4& p) { return axis == 0 ? p.x : axis == 1 ? p.y : p.z; };
          float lo_a = INFINITY, hi_a = -INFINITY, lo_b = INFINITY, hi_b = -INFINITY;
          for (const Vec4& p : shares[a].xyzr) {
            if (!std::isfinite(c(p))) continue;
            lo_a = std::min(lo_a, c(p));
            hi_a = std::max(hi_a, c(p));
          }
          for (const Vec4& p : shares[b].xyzr) {
            if (!std::isfinite(c(p))) continue;
            lo_b = std::min(lo_b, c(p));
            hi_b = std::max(hi_b, c(p));
          }
          apart = hi_a <= lo_b || hi_b <= lo_a;
        }
        EXPECT_TRUE(apart) << "shares " << a << " and " << b << " of " << ranks;
      }
    }
  }
}

// Cut across the picture: a column of grains, tall along the view direction, seen from a random
// camera on its axis. Shares along the picture's axes each span the column's whole depth and
// lie apart across the picture; the default axes would cut the column along its depth instead.
TEST(SpatialShare, PictureAxesCutAcrossThePicture) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 10; ++round) {
    const float theta = uniform(rng, 10.0f, 80.0f), phi = uniform(rng, -180.0f, 180.0f);
    const float t = theta * 3.14159265f / 180.0f, f = phi * 3.14159265f / 180.0f;
    const Vec3 along{std::sin(t) * std::cos(f), std::sin(t) * std::sin(f), std::cos(t)};
    io::ParticleFrame frame;
    for (int i = 0; i < 2000; ++i) {
      const float depth = uniform(rng, -20.0f, 20.0f);
      frame.xyzr.push_back({depth * along.x + uniform(rng, -1, 1),
                            depth * along.y + uniform(rng, -1, 1),
                            depth * along.z + uniform(rng, -1, 1), 0.1f});
    }
    RenderSettings settings = random_settings(rng, rng() % 2 == 0);
    settings.camera.theta = theta;
    settings.camera.phi = phi;
    settings.camera.target = Vec3{0.0f, 0.0f, 0.0f};
    const std::vector<Vec3> axes = io::picture_axes(frame, settings);
    ASSERT_EQ(axes.size(), 2u);
    for (const Vec3& a : axes) EXPECT_LT(std::fabs(dot(a, along)), 1e-3f);
    const auto depth_span = [&](const io::ParticleFrame& share) {
      float lo = INFINITY, hi = -INFINITY;
      for (const Vec4& p : share.xyzr) {
        const float d = p.x * along.x + p.y * along.y + p.z * along.z;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
      }
      return hi - lo;
    };
    const int ranks = 2 + static_cast<int>(rng() % 3);
    for (int r = 0; r < ranks; ++r) {
      EXPECT_GT(depth_span(io::spatial_share(frame, r, ranks, axes)), 35.0f) << r << " " << ranks;
      EXPECT_LT(depth_span(io::spatial_share(frame, r, ranks)), 35.0f) << r << " " << ranks;
    }
  }
}

}  // namespace
}  // namespace granray::test
