// How a gathered lit frame on CPU ranks cuts its rows into bands (mpi::detail::band_edges): equal
// rows without a frame before, equal estimated costs with one.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mpi_gathered_frame.h"
#include "test_support.h"

namespace granray::test {
namespace {

void expect_cover(const std::vector<int>& edges, int rows, int bands) {
  ASSERT_EQ(edges.size(), std::size_t(bands) + 1);
  EXPECT_EQ(edges.front(), 0);
  EXPECT_EQ(edges.back(), rows);
  for (int b = 0; b < bands; ++b) {
    EXPECT_LE(edges[b], edges[b + 1]);
    if (rows >= bands) EXPECT_LT(edges[b], edges[b + 1]) << "band " << b << " has no row";
  }
}

// A frame's true cost of each row: a picture whose rows cost unevenly (sky above, a bed below).
std::vector<double> random_row_costs(Rng& rng, int rows) {
  std::vector<double> cost(static_cast<std::size_t>(rows));
  const int horizon = static_cast<int>(rng() % static_cast<unsigned>(rows));
  for (int y = 0; y < rows; ++y) {
    cost[y] = (y < horizon ? 0.01 : 1.0) * uniform(rng, 0.5f, 1.5f);
  }
  return cost;
}

double cost_of(const std::vector<double>& cost, int y0, int y1) {
  double c = 0.0;
  for (int y = y0; y < y1; ++y) c += cost[y];
  return c;
}

TEST(BandEdges, EqualRowsWithoutAFrameBeforeAndEqualCostsWithOne) {
  Rng rng(fresh_seed());
  for (int trial = 0; trial < 50; ++trial) {
    const int bands = 1 + static_cast<int>(rng() % 16);
    const int rows = 1 + static_cast<int>(rng() % 1200);
    const std::vector<int> equal = mpi::detail::band_edges(rows, bands, nullptr);
    expect_cover(equal, rows, bands);
    for (int b = 0; b < bands; ++b) EXPECT_LE(equal[b + 1] - equal[b], rows / bands + 1);
    if (rows < bands) continue;

    // Times measured on the bands of frames whose rows cost `cost` each: after eight frames the
    // bands cost about the same, far more evenly than equal rows.
    const std::vector<double> cost = random_row_costs(rng, rows);
    mpi::BandCosts learnt;
    std::vector<int> edges = equal;
    for (int frame = 0; frame < 8; ++frame) {
      std::vector<double> ms;
      for (int b = 0; b < bands; ++b) ms.push_back(cost_of(cost, edges[b], edges[b + 1]));
      mpi::detail::learn_band_costs(learnt, edges, ms);
      ASSERT_EQ(learnt.rows.size(), std::size_t(rows));
      edges = mpi::detail::band_edges(rows, bands, &learnt);
      expect_cover(edges, rows, bands);
    }
    double most_equal = 0.0, most = 0.0, largest_row = 0.0;
    for (int b = 0; b < bands; ++b) {
      most_equal = std::max(most_equal, cost_of(cost, equal[b], equal[b + 1]));
      most = std::max(most, cost_of(cost, edges[b], edges[b + 1]));
    }
    for (const double c : cost) largest_row = std::max(largest_row, c);
    const double total = cost_of(cost, 0, rows);
    EXPECT_LE(most, std::max(1.6 * total / bands, total / bands + 3.0 * largest_row))
        << rows << " rows, " << bands << " bands";
    EXPECT_LE(most, most_equal + 3.0 * largest_row);
  }
  // An estimate of other rows, or of nothing but zeros, is not used.
  const mpi::BandCosts other{std::vector<double>(100, 1.0)};
  EXPECT_EQ(mpi::detail::band_edges(120, 2, &other), (std::vector<int>{0, 60, 120}));
  const mpi::BandCosts none{std::vector<double>(120, 0.0)};
  EXPECT_EQ(mpi::detail::band_edges(120, 2, &none), (std::vector<int>{0, 60, 120}));
  mpi::BandCosts learnt;
  mpi::detail::learn_band_costs(learnt, {0, 60, 120}, {1.0, 9.0});
  EXPECT_GT(mpi::detail::band_edges(120, 2, &learnt)[1], 60) << "the costly lower half is split";
}

}  // namespace
}  // namespace granray::test
