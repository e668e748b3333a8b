// The grid lists every sphere once, in its centre's cell, or, one larger than the grid's
// centre_radius, in exactly the cells its box overlaps. Built once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "capsule_walk_census.h"
#include "contact_pairs.h"
#include "granray/kernels/trace.h"
#include "grid_census.h"
#include "scene_suite.h"
#include "test_support.h"
#include "walk_census.h"

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

// Each block's clearance is its Chebyshev distance, in blocks, to the nearest block with a cell
// that lists a sphere, capped at kMostClearance: checked block by block against a search of the
// blocks around it, on beds that leave their box partly empty (fresh seeds), where walks then have
// cells to leap from.
TEST_F(GridTest, ClearanceIsTheDistanceToTheNearestListingBlock) {
  Rng rng(fresh_seed());
  // Grains spread over most of their box get no clearance: the box, the drum, the gases.
  for (const std::string name : {"dense", "drum", "clusters", "dilute"}) {
    const bench::SuiteScene scene = bench::make_suite_scene(name, 20000 + rng() % 10000, rng());
    EXPECT_TRUE(build(scene.grains).clearance.empty()) << name;
  }
  for (const std::string name : {"heap", "pour", "hopper"}) {
    const bench::SuiteScene scene = bench::make_suite_scene(name, 20000 + rng() % 10000, rng());
    const HostGrid grid = build(scene.grains);
    const GridGeometry& g = grid.geometry;
    const int blocks[3] = {clearance_blocks(g.dims[0]), clearance_blocks(g.dims[1]),
                           clearance_blocks(g.dims[2])};
    ASSERT_EQ(grid.clearance.size(), std::size_t(blocks[0]) * blocks[1] * blocks[2]) << name;
    // Whether a cell of block (x, y, z) lists a sphere.
    const auto lists = [&](int x, int y, int z) {
      for (int k = z * kClearanceBlock; k < std::min(g.dims[2], (z + 1) * kClearanceBlock); ++k)
        for (int j = y * kClearanceBlock; j < std::min(g.dims[1], (y + 1) * kClearanceBlock); ++j)
          for (int i = x * kClearanceBlock; i < std::min(g.dims[0], (x + 1) * kClearanceBlock);
               ++i) {
            const std::uint32_t c = cell_index(g, i, j, k);
            if (grid.cell_offsets[c + 1] > grid.cell_offsets[c]) return true;
          }
      return false;
    };
    std::size_t checked = 0, leaping = 0;
    for (int q = 0; q < 600; ++q) {
      const int at[3] = {int(rng() % blocks[0]), int(rng() % blocks[1]), int(rng() % blocks[2])};
      int lo[3], hi[3];
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::max(0, at[a] - (kMostClearance - 1));
        hi[a] = std::min(blocks[a] - 1, at[a] + (kMostClearance - 1));
      }
      int want = kMostClearance;
      for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y)
          for (int x = lo[0]; x <= hi[0]; ++x) {
            const int d = std::max({std::abs(x - at[0]), std::abs(y - at[1]), std::abs(z - at[2])});
            if (d < want && lists(x, y, z)) want = d;
          }
      const std::size_t b = (std::size_t(at[2]) * blocks[1] + at[1]) * blocks[0] + at[0];
      ASSERT_EQ(int(grid.clearance[b]), want)
          << name << ", block " << at[0] << " " << at[1] << " " << at[2];
      ++checked;
      leaping += cell_clearance(want) > leap_margin_cells(g);
    }
    // The heap, pour and hopper leave whole cubes of their box clear.
    EXPECT_GT(leaping, checked / 10) << name << ": too few blocks to leap from";
  }
}

// The census that granray-bench --grid-census prints, on a grid whose answers are known: two of
// its four cells list three references, the two of its second block let a walk leap.
TEST(GridCensus, CountsCellsListingCellsAndCellsToLeapFrom) {
  HostGrid grid;
  grid.geometry.dims[0] = 4;
  grid.geometry.dims[1] = grid.geometry.dims[2] = 1;
  grid.geometry.cell_size = 1.0f;
  grid.geometry.inv_cell_size = 1.0f;
  grid.geometry.reach = 0.5f;  // leap_margin_cells 2: a block of clearance 2 (3 cells) leaps
  grid.cell_offsets = {0, 2, 2, 3, 3};
  grid.ref_index = {0, 1, 2};
  grid.clearance = {0, 2};  // two blocks of two cells
  const bench::GridCensus c = bench::grid_census(grid, 2);
  EXPECT_DOUBLE_EQ(c.cells_per_grain, 2.0);
  EXPECT_DOUBLE_EQ(c.grains_per_listing_cell, 1.5);
  EXPECT_TRUE(c.has_clearance);
  EXPECT_DOUBLE_EQ(c.leaping_cells, 0.5);
  EXPECT_EQ(bench::describe(grid, c),
            "grid 4 x 1 x 1, 2.00 cells a grain, 1.50 grains a listing cell, walks leap from 50 % "
            "of the cells");
  grid.clearance.clear();
  const bench::GridCensus none = bench::grid_census(grid, 2);
  EXPECT_FALSE(none.has_clearance);
  EXPECT_EQ(bench::describe(grid, none),
            "grid 4 x 1 x 1, 2.00 cells a grain, 1.50 grains a listing cell, no clearance (walks "
            "visit every cell)");
}

// granray-walk-census counts the primary rays' walk: leaping, the heap's rays meet the same grains
// in fewer turns, and a warp's longest lane takes fewer; the dense box, which has no clearance,
// counts the same both ways (fresh seeds).
TEST(WalkCensus, LeapingMeetsTheSameGrainsInFewerTurns) {
  Rng rng(fresh_seed());
  RenderSettings settings = sized_random_settings(rng, false, 96, 64);
  for (const std::string name : {"heap", "dense"}) {
    const bench::SuiteScene scene = bench::make_suite_scene(name, 20000 + rng() % 10000, rng());
    ParticleView view;
    view.xyzr = scene.grains.data();
    view.count = scene.grains.size();
    const HostGrid grid = Renderer(BackendKind::cpu).build_grid(view);
    const bench::WalkCensus c = bench::walk_census(grid, view, settings);
    EXPECT_EQ(c.width, 96);
    EXPECT_GT(c.every_cell.hits, 0.0) << name;
    EXPECT_EQ(c.leaping.rays, c.every_cell.rays) << name;
    EXPECT_EQ(c.leaping.hits, c.every_cell.hits) << name;
    const double plain = c.every_cell.slabs + c.every_cell.tests;
    const double leaping = c.leaping.slabs + c.leaping.tests;
    if (name == std::string("heap")) {
      EXPECT_LT(leaping, plain) << bench::describe(c);
      EXPECT_LT(c.leaping.longest_lanes, c.every_cell.longest_lanes) << bench::describe(c);
    } else {
      EXPECT_EQ(leaping, plain) << bench::describe(c);
    }
  }
}

// granray-bench --capsule-walk-census counts the network's walk on a random dense bed's
// near-contacts (fresh seeds) under three listings: by midpoints and through the grains' cells each
// drawn capsule that shows is listed once, by boxes at least once; through the grains' cells the
// walk tests more capsules a unit of ray than by boxes (docs/design.md, "The network's own grid").
// (Behind one sphere a grain, it tests fewer only where the grains show several capsules each:
// since capsules hidden whole are left out, a bed with few that show tests more spheres than it
// saves capsules.) Above the threshold none is drawn.
TEST(CapsuleWalkCensus, ListsEveryCapsuleAndCountsEachWalk) {
  Rng rng(fresh_seed());
  const bench::SuiteScene scene = bench::make_suite_scene("dense", 4000 + rng() % 4000, rng());
  const bench::ContactPairs pairs = bench::near_pairs(scene.grains, uniform(rng, 0.1f, 0.3f));
  ContactSettings settings;
  settings.width = uniform(rng, 0.2f, 0.6f);
  const bench::CapsuleWalkCensus c = bench::capsule_walk_census(scene.grains, pairs, settings);
  ASSERT_GT(c.capsules, 0u) << "the network shows";
  // Where neighbours overlap, their grains hide capsules whole (capsule_outside_spheres), and the
  // census lists only those that show.
  EXPECT_LE(c.capsules, pairs.value.size());
  EXPECT_EQ(c.by_midpoints.references, c.capsules);
  EXPECT_EQ(c.through_grains.references, c.capsules);
  EXPECT_EQ(c.behind_spheres.references, scene.grains.size());
  EXPECT_GE(c.by_boxes.references, c.capsules);
  EXPECT_GT(c.by_boxes.runs, 0.0);
  EXPECT_GT(c.through_grains.tests, c.by_boxes.tests) << bench::describe(c);
  EXPECT_GT(c.behind_spheres.tests, 0.0) << bench::describe(c);
  settings.threshold = 1e6f;
  const bench::CapsuleWalkCensus none = bench::capsule_walk_census(scene.grains, pairs, settings);
  EXPECT_EQ(none.capsules, 0u);
  EXPECT_EQ(bench::describe(none), "no capsule drawn");
}

// Cells are sized by the volume the grains occupy where it is a small share of their box: a pour
// or a hopper, whose box is mostly air, lists about as few grains per listing cell as the dense
// box does (one cell per grain over the box would give them several), unless the cap of eight
// cells a grain binds first. Beds spread over more of their box, the dense box, the gas, the heap
// and the drum, keep one cell per grain.
TEST_F(GridTest, CellsAreSizedByTheVolumeTheGrainsOccupy) {
  Rng rng(fresh_seed());
  const auto fill_of = [&](const std::string& name) {
    const bench::SuiteScene scene = bench::make_suite_scene(name, 20000 + rng() % 10000, rng());
    const HostGrid grid = build(scene.grains);
    expect_exact_references(scene.grains, grid);
    return bench::grid_census(grid, scene.grains.size());
  };
  const bench::GridCensus dense = fill_of("dense");
  for (const std::string name : {"dense", "dilute", "heap", "drum"}) {
    EXPECT_LE(fill_of(name).cells_per_grain, 1.05) << name;
  }
  for (const std::string name : {"pour", "hopper"}) {
    const bench::GridCensus fill = fill_of(name);
    EXPECT_GT(fill.cells_per_grain, 2.0) << name;
    EXPECT_LE(fill.cells_per_grain, 8.0 * 1.05) << name;  // the layout's cap: 8 cells a grain
    // The pour's column and layer occupy so little of its tall box that the cap binds first.
    const bool capped = fill.cells_per_grain > 0.9 * 8.0;
    EXPECT_TRUE(capped || fill.grains_per_listing_cell < 1.5 * dense.grains_per_listing_cell)
        << name << ": " << fill.grains_per_listing_cell
        << " grains a listing cell against the dense box's " << dense.grains_per_listing_cell;
  }
}

// The listing cells a walk meets, in order, and how many cells it visits.
struct ListingCellsMet {
  const HostGrid& grid;
  std::vector<std::uint32_t> cells;
  std::size_t visited = 0;
  bool done_before(float) const { return false; }
  void visit(std::uint32_t first, std::uint32_t last) {
    visited += last - first + 1;
    for (std::uint32_t c = first; c <= last; ++c) {
      if (grid.cell_offsets[c + 1] > grid.cell_offsets[c]) cells.push_back(c);
    }
  }
};

// Leaping over empty space by the cells' clearance leaves out only cells that list nothing: the
// leaping walk meets the same listing cells in the same order as the walk over every cell, and
// finds the same nearest hit bit for bit, on rays from outside and inside the grid, along the
// axes and diagonals, over whole and partial spans (fresh seeds: the heap, the pour, the
// hopper); and it visits fewer cells.
TEST_F(GridTest, LeapingOverEmptySpaceMeetsTheSameListingCells) {
  Rng rng(fresh_seed());
  const IdMap id_of{nullptr, 0};
  for (const std::string name : {"heap", "pour", "hopper"}) {
    // Enough grains that the heap's occupied share stays clear of the gate (a heap of a few
    // thousand grains estimated over half its box now and then).
    const bench::SuiteScene scene = bench::make_suite_scene(name, 20000 + rng() % 10000, rng());
    for (const GridCells kind : {GridCells::centres, GridCells::overlaps}) {
      const HostGrid grid = build(scene.grains, kind);
      const GridView leaping = grid.view(true), plain = grid.view(false);
      ASSERT_NE(leaping.clearance, nullptr) << name;
      const GridGeometry& g = grid.geometry;
      const Vec3 far = grid_far_corner(g), size = far - g.origin;
      std::size_t hits = 0, visited_leaping = 0, visited_plain = 0;
      for (int q = 0; q < 400; ++q) {
        Ray ray;
        const float spread = q % 2 == 0 ? 0.5f : -0.3f;  // outside the grid, or inside it
        ray.origin = {g.origin.x + size.x * uniform(rng, -spread, 1.0f + spread),
                      g.origin.y + size.y * uniform(rng, -spread, 1.0f + spread),
                      g.origin.z + size.z * uniform(rng, -spread, 1.0f + spread)};
        if (q % 2 == 0) {  // towards a point inside, so most rays cross the bed
          const Vec3 target{g.origin.x + size.x * uniform(rng, 0.0f, 1.0f),
                            g.origin.y + size.y * uniform(rng, 0.0f, 1.0f),
                            g.origin.z + size.z * uniform(rng, 0.0f, 1.0f)};
          ray.dir = normalize(target - ray.origin);
        } else {
          ray.dir = normalize(Vec3{uniform(rng, -1.0f, 1.0f), uniform(rng, -1.0f, 1.0f),
                                   uniform(rng, -1.0f, 1.0f)});
        }
        if (q % 7 == 3) ray.dir = normalize(Vec3{ray.dir.x, 0.0f, q % 14 == 3 ? 0.0f : ray.dir.z});
        if (q % 11 == 5) ray.dir = normalize(Vec3{1.0f, q % 22 == 5 ? 1.0f : -1.0f, 1.0f});
        const float length = std::sqrt(dot(size, size));
        const float t_min = q % 3 == 0 ? uniform(rng, 0.0f, length) : 0.0f;
        const float t_max = q % 5 == 0 ? t_min + uniform(rng, 0.0f, length) : INFINITY;
        const std::string where =
            name + (kind == GridCells::overlaps ? ", overlaps" : "") + ", ray " + std::to_string(q);
        ListingCellsMet with{grid, {}}, without{grid, {}};
        walk_grown_cells(leaping, ray, t_min, t_max, with);
        walk_grown_cells(plain, ray, t_min, t_max, without);
        ASSERT_EQ(with.cells, without.cells) << where;
        visited_leaping += with.visited;
        visited_plain += without.visited;
        const Hit expected = trace_grid(plain, id_of, ray);
        const Hit got = trace_grid(leaping, id_of, ray);
        const Hit flat = trace_grid_flat(leaping, id_of, ray);
        const Hit turns = trace_grid_leaping(leaping, id_of, ray);     // the GPU's primary rays
        const Hit every_cell = trace_grid_plain(leaping, id_of, ray);  // clearance not read
        ASSERT_EQ(got.index, expected.index) << where;
        ASSERT_EQ(flat.index, expected.index) << where;
        ASSERT_EQ(turns.index, expected.index) << where;
        ASSERT_EQ(every_cell.index, expected.index) << where;
        if (expected.index != kNoHit) {
          ++hits;
          ASSERT_TRUE(same_bits(got.t, expected.t)) << where;
          ASSERT_TRUE(same_bits(flat.t, expected.t)) << where;
          ASSERT_TRUE(same_bits(turns.t, expected.t)) << where;
          ASSERT_TRUE(same_bits(every_cell.t, expected.t)) << where;
        }
      }
      EXPECT_GT(hits, 20u) << name << ": too few rays met a grain to test the hit";
      // The heap's and the hopper's clear cubes are a few cells across at this size, the pour's
      // air is wide.
      const std::size_t most = name == "pour" ? visited_plain * 3 / 4 : visited_plain - 1;
      EXPECT_LE(visited_leaping, most)
          << name << ": the walks leapt too little (" << visited_leaping << " cells against "
          << visited_plain << ")";
    }
  }
}

}  // namespace
}  // namespace granray::test
