// The grid lists every sphere once, in its centre's cell, or, one larger than the grid's
// centre_radius, in exactly the cells its box overlaps. Built once per backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "test_support.h"

namespace granray::test {
namespace {

class GridTest : public OnEachBackend {
 protected:
  HostGrid build(const std::vector<Vec4>& spheres, GridCells cells = GridCells::centres) {
    ParticleView v;
    v.xyzr = spheres.data();
    v.count = spheres.size();
    return Renderer(test_backend()).build_grid(v, cells);
  }
};

// Cells that must or may list sphere s, decided in double: "must" when they hold its centre (a
// sphere listed once) or overlap its padded box (a larger one) by more than a rounding margin,
// "may" when they only touch within it.
void expected_cells(const GridGeometry& g, Vec4 s, std::set<std::uint32_t>& must,
                    std::set<std::uint32_t>& may) {
  const double h = g.cell_size;
  const bool once = s.w <= g.centre_radius;
  const double reach = once ? 0.0 : double(s.w) + double(kCellListingPad) * h;
  const double eps = 1e-4 * h;
  const double c[3] = {s.x, s.y, s.z};
  const double o[3] = {g.origin.x, g.origin.y, g.origin.z};
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::max(0, int(std::floor((c[a] - reach - o[a]) / h)) - 1);
    hi[a] = std::min(g.dims[a] - 1, int(std::floor((c[a] + reach - o[a]) / h)) + 1);
  }
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y)
      for (int x = lo[0]; x <= hi[0]; ++x) {
        const int idx[3] = {x, y, z};
        bool strict = true, loose = true;
        for (int a = 0; a < 3; ++a) {
          // The outermost cells also own everything beyond the grid's faces.
          const double cell_lo = idx[a] == 0 ? -INFINITY : o[a] + idx[a] * h;
          const double cell_hi = idx[a] == g.dims[a] - 1 ? INFINITY : o[a] + (idx[a] + 1) * h;
          if (once) {  // the centre inside the cell (a point: no overlap to measure)
            strict = strict && c[a] > cell_lo + eps && c[a] < cell_hi - eps;
            loose = loose && c[a] > cell_lo - eps && c[a] < cell_hi + eps;
            continue;
          }
          const double overlap = std::min(cell_hi, c[a] + reach) - std::max(cell_lo, c[a] - reach);
          strict = strict && overlap > eps;
          loose = loose && overlap > -eps;
        }
        const std::uint32_t cell = cell_index(g, x, y, z);
        if (strict)
          must.insert(cell);
        else if (loose)
          may.insert(cell);
      }
}

void expect_exact_references(const std::vector<Vec4>& spheres, const HostGrid& grid) {
  const GridGeometry& g = grid.geometry;
  const std::size_t cells = std::size_t(g.dims[0]) * g.dims[1] * g.dims[2];
  ASSERT_EQ(grid.cell_offsets.size(), cells + 1);
  // After the references, empty spheres that a batch of four may read (kernels/sphere_batch.h).
  ASSERT_EQ(grid.ref_index.size() + kSphereBatchPad, grid.ref_spheres.size());
  for (std::size_t k = grid.ref_index.size(); k < grid.ref_spheres.size(); ++k)
    ASSERT_FALSE(is_renderable(grid.ref_spheres[k])) << "padding " << k << " is a sphere";
  ASSERT_EQ(grid.cell_offsets.front(), 0u);
  ASSERT_EQ(grid.cell_offsets.back(), grid.ref_index.size());
  // The traversal's reach covers every sphere listed once, and no more than one cell.
  EXPECT_LE(g.centre_radius, g.cell_size);
  EXPECT_FLOAT_EQ(g.reach, g.centre_radius + kCellListingPad * g.cell_size);

  std::map<std::uint32_t, std::set<std::uint32_t>> listed;  // sphere -> cells
  for (std::uint32_t cell = 0; cell < cells; ++cell) {
    ASSERT_LE(grid.cell_offsets[cell], grid.cell_offsets[cell + 1]);
    for (std::uint32_t k = grid.cell_offsets[cell]; k < grid.cell_offsets[cell + 1]; ++k) {
      const std::uint32_t i = grid.ref_index[k];
      ASSERT_LT(i, spheres.size());
      ASSERT_EQ(0, std::memcmp(&grid.ref_spheres[k], &spheres[i], sizeof(Vec4)))
          << "reference " << k << " is not a copy of particle " << i;
      ASSERT_TRUE(listed[i].insert(cell).second) << "particle " << i << " twice in cell " << cell;
    }
  }

  for (std::uint32_t i = 0; i < spheres.size(); ++i) {
    if (!is_renderable(spheres[i])) {
      EXPECT_EQ(listed.count(i), 0u) << "broken particle " << i << " is listed";
      continue;
    }
    std::set<std::uint32_t> must, may;
    expected_cells(g, spheres[i], must, may);
    const auto& got = listed[i];
    if (spheres[i].w <= g.centre_radius) {
      ASSERT_EQ(got.size(), 1u) << "particle " << i << " is not listed exactly once";
    }
    for (const auto cell : must)
      ASSERT_TRUE(got.count(cell)) << "particle " << i << " missing from cell " << cell;
    for (const auto cell : got) {
      ASSERT_TRUE(must.count(cell) || may.count(cell))
          << "particle " << i << " listed in cell " << cell << " that should not list it";
    }
  }
}

TEST_F(GridTest, ReferencesExactlyTheListedCells) {
  Rng rng(fresh_seed());
  const std::vector<std::vector<Vec4>> scenes = {dense_bed(rng, 2500, 0.5f, 0.5f),
                                                 dense_bed(rng, 2500, 0.1f, 0.7f),
                                                 dilute_gas(rng, 1500, 0.02f, 0.02f, 20.0f),
                                                 dilute_gas(rng, 1500, 0.01f, 1.5f, 10.0f),
                                                 dense_bed(rng, 1, 0.2f, 0.9f),
                                                 dilute_gas(rng, 5, 0.1f, 0.4f, 3.0f)};
  for (const auto& spheres : scenes) {
    SCOPED_TRACE(::testing::Message() << spheres.size() << " spheres");
    const HostGrid grid = build(spheres);
    expect_exact_references(spheres, grid);
  }
}

TEST_F(GridTest, BrokenParticlesAreNeverListed) {
  Rng rng(fresh_seed());
  auto spheres = dense_bed(rng, 800, 0.3f, 0.5f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t i = 0; i < spheres.size(); i += 7) spheres[i].w = (i % 2) ? nan : -1.0f;
  for (std::size_t i = 3; i < spheres.size(); i += 11)
    spheres[i].x = std::numeric_limits<float>::infinity();
  expect_exact_references(spheres, build(spheres));
}

TEST_F(GridTest, EmptyAndAllBrokenSetsBuildNothing) {
  EXPECT_TRUE(build({}).ref_index.empty());
  EXPECT_TRUE(build({{0, 0, 0, 0}, {1, 2, 3, -1}}).ref_index.empty());
}

TEST_F(GridTest, DiluteGasCellCountIsCapped) {
  Rng rng(fresh_seed());
  // Tiny grains in a huge box: cells of one diameter would number about 10^15.
  const auto spheres = dilute_gas(rng, 1000, 1e-4f, 1e-4f, 100.0f);
  const HostGrid grid = build(spheres);
  EXPECT_LE(grid.cell_offsets.size(), 4001u);
  expect_exact_references(spheres, grid);
}

TEST_F(GridTest, HugeGrainsDoNotBlowUpTheReferences) {
  Rng rng(fresh_seed());
  auto spheres = dense_bed(rng, 4000, 0.05f, 0.05f);
  for (int k = 0; k < 5; ++k) spheres[rng() % spheres.size()].w = uniform(rng, 1.0f, 1.5f);
  // Some just larger than a cell (one diameter, 0.1) too.
  for (int k = 0; k < 30; ++k) spheres[rng() % spheres.size()].w = uniform(rng, 0.1f, 0.3f);
  const HostGrid grid = build(spheres);
  EXPECT_LE(grid.ref_index.size(), 8u * spheres.size() + 64u);
  // The small grains are listed once; the huge ones in every cell they overlap.
  EXPECT_GT(grid.ref_index.size(), spheres.size());
  expect_exact_references(spheres, grid);
}

TEST_F(GridTest, GrainsNoLargerThanACellAreListedOnce) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 4; ++round) {
    const float r_min = uniform(rng, 0.05f, 0.5f);
    const float r_max = r_min * uniform(rng, 1.0f, 2.5f);
    auto spheres = round % 2 ? dense_bed(rng, 3000, r_min, r_max)
                             : dilute_gas(rng, 2000, r_min, r_max, 50.0f * r_max);
    std::size_t broken = 0;
    for (std::size_t i = rng() % 13; i < spheres.size(); i += 13, ++broken) spheres[i].w = -1.0f;
    const HostGrid grid = build(spheres);
    SCOPED_TRACE(::testing::Message() << "round " << round << ", radii " << r_min << ".." << r_max);
    EXPECT_EQ(grid.ref_index.size(), spheres.size() - broken);
    expect_exact_references(spheres, grid);
  }
}

// The path-traced still's layout on the CPU: cells of at least two mean diameters, every grain
// listed in each cell its box overlaps, no reach beyond the rounding pad.
TEST_F(GridTest, OverlapCellsListEveryGrainInEachCellItsBoxOverlaps) {
  Rng rng(fresh_seed());
  const std::vector<std::vector<Vec4>> scenes = {
      dense_bed(rng, 2500, 0.5f, 0.5f), dense_bed(rng, 2500, 0.1f, 0.7f),
      dilute_gas(rng, 1500, 0.02f, 0.3f, 20.0f), dense_bed(rng, 1, 0.2f, 0.9f)};
  for (const auto& spheres : scenes) {
    SCOPED_TRACE(::testing::Message() << spheres.size() << " spheres");
    double diameters = 0.0;
    for (const Vec4& s : spheres) diameters += 2.0 * s.w;
    const HostGrid grid = build(spheres, GridCells::overlaps);
    EXPECT_EQ(grid.geometry.centre_radius, 0.0f);
    EXPECT_GE(grid.geometry.cell_size, 2.0 * diameters / double(spheres.size()) * (1.0 - 1e-4));
    EXPECT_GE(grid.ref_index.size(), spheres.size());
    expect_exact_references(spheres, grid);
  }
}

}  // namespace
}  // namespace granray::test
