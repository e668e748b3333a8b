// granray-render's spatial shares under mpirun (io/spatial_share.h): a partition of the
// snapshot into equal counts separated by planes, the same on every rank.
#include <gtest/gtest.h>

#include <algorithm>
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

}  // namespace
}  // namespace granray::test
