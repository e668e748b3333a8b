// The grid's walk (3D-DDA over cells grown by the reach) visits exactly the cells whose grown box
// a segment crosses inside the grid, front to back.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <map>
#include <vector>

#include "granray/kernels/dda.h"
#include "test_support.h"

namespace granray::test {
namespace {

// A visit: a cell, and the walk's time when it came (-inf for the cells at the start).
struct Visit {
  std::uint32_t cell;
  float t;
};

struct Recorder {
  std::vector<Visit> visits;
  float now = -INFINITY;
  bool done_before(float t) {
    EXPECT_GE(t, now) << "not front to back";
    now = t;
    return false;
  }
  void visit(std::uint32_t first, std::uint32_t last) {
    EXPECT_LE(first, last);
    for (std::uint32_t c = first; c <= last; ++c) visits.push_back({c, now});
  }
};

std::vector<Visit> walk(const GridGeometry& g, const Ray& ray, float t_max) {
  Recorder recorder;
  walk_grown_cells(g, ray, 0.0f, t_max, recorder);
  return recorder.visits;
}

// The parameter interval, computed in double, in which the ray lies inside the box from lo[] to
// hi[] and inside [t0, t1]; its length in enter/exit, negative when it misses.
struct Span {
  double enter, exit;
};
Span inside(const Ray& ray, double t0, double t1, const double lo[3], const double hi[3]) {
  for (int a = 0; a < 3; ++a) {
    const double o = component(ray.origin, a), d = component(ray.dir, a);
    if (d == 0.0) {
      if (o < lo[a] || o > hi[a]) return {1.0, -1.0};
      continue;
    }
    double a0 = (lo[a] - o) / d, a1 = (hi[a] - o) / d;
    if (a0 > a1) std::swap(a0, a1);
    t0 = std::max(t0, a0);
    t1 = std::min(t1, a1);
  }
  return {t0, t1};
}

// Where the ray, inside the grid's box and [0, t_max], lies inside cell (x, y, z) grown by
// reach + grow on every side.
Span inside_grown_cell(const GridGeometry& g, const Ray& ray, double t_max, int x, int y, int z,
                       double grow) {
  double grid_lo[3], grid_hi[3], lo[3], hi[3];
  const int idx[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) {
    grid_lo[a] = component(g.origin, a);
    grid_hi[a] = grid_lo[a] + g.dims[a] * double(g.cell_size);
    lo[a] = grid_lo[a] + idx[a] * double(g.cell_size) - g.reach - grow;
    hi[a] = lo[a] + double(g.cell_size) + 2 * (g.reach + grow);
  }
  const Span in_grid = inside(ray, 0.0, t_max, grid_lo, grid_hi);
  if (in_grid.exit < in_grid.enter) return in_grid;
  return inside(ray, in_grid.enter, in_grid.exit, lo, hi);
}

// Every cell whose grown box the segment crosses inside the grid is visited once, none it does
// not reach, and none later than the ray enters its grown box (what ending the walk relies on).
void expect_walk_matches_brute_force(const GridGeometry& g, const Ray& ray, float t_max) {
  const auto visits = walk(g, ray, t_max);
  const double eps = 1e-4 * g.cell_size;
  std::map<std::uint32_t, float> visited;
  for (const Visit& v : visits) {
    ASSERT_TRUE(visited.emplace(v.cell, v.t).second) << "cell visited twice";
  }
  for (int z = 0; z < g.dims[2]; ++z)
    for (int y = 0; y < g.dims[1]; ++y)
      for (int x = 0; x < g.dims[0]; ++x) {
        const std::uint32_t cell = cell_index(g, x, y, z);
        const Span crosses = inside_grown_cell(g, ray, t_max, x, y, z, -eps);
        const Span touches = inside_grown_cell(g, ray, t_max, x, y, z, eps);
        const auto found = visited.find(cell);
        if (crosses.exit > crosses.enter) {
          ASSERT_NE(found, visited.end()) << "missed cell " << x << "," << y << "," << z;
          const double length = std::max(1.0, std::abs(crosses.enter));
          EXPECT_LE(found->second, crosses.enter + 1e-5 * length)
              << "cell " << x << "," << y << "," << z << " visited after the ray entered it";
        }
        if (found != visited.end()) {
          EXPECT_GE(touches.exit, touches.enter)
              << "visited cell " << x << "," << y << "," << z << " the segment does not reach";
        }
      }
}

GridGeometry random_grid(Rng& rng) {
  GridGeometry g{};
  g.origin = {uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5)};
  g.cell_size = uniform(rng, 0.1f, 2.0f);
  g.inv_cell_size = 1.0f / g.cell_size;
  for (int a = 0; a < 3; ++a) g.dims[a] = std::uniform_int_distribution<int>(1, 12)(rng);
  // No reach (a plain DDA), or up to a little more than one cell.
  g.reach = rng() % 4 == 0 ? 0.0f : uniform(rng, 0.0f, 1.2f) * g.cell_size;
  g.centre_radius = g.reach;
  return g;
}

Vec3 point_in(const GridGeometry& g, Rng& rng, float outside) {
  Vec3 p;
  for (int a = 0; a < 3; ++a) {
    const float extent = g.dims[a] * g.cell_size;
    (a == 0   ? p.x
     : a == 1 ? p.y
              : p.z) =
        component(g.origin, a) + uniform(rng, -outside * extent, (1 + outside) * extent);
  }
  return p;
}

TEST(Dda, RandomRaysVisitTheCrossedCells) {
  Rng rng(fresh_seed());
  for (int k = 0; k < 400; ++k) {
    const GridGeometry g = random_grid(rng);
    const bool inside = k % 2 == 0;  // half the rays start inside the grid
    const Vec3 o = point_in(g, rng, inside ? 0.0f : 1.0f);
    const Vec3 target = point_in(g, rng, 0.0f);
    const Ray ray{o, normalize(target - o)};
    const float t_max = (k % 3 == 0) ? uniform(rng, 0.1f, 30.0f) : INFINITY;
    SCOPED_TRACE(k);
    expect_walk_matches_brute_force(g, ray, std::isinf(t_max) ? 1e30f : t_max);
  }
}

TEST(Dda, AxisEdgeAndCornerRays) {
  Rng rng(fresh_seed());
  const Vec3 directions[] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0}, {0, 0, -1},  {1, 1, 0},
                             {1, -1, 0}, {0, 1, 1},  {1, 1, 1}, {-1, 1, -1}, {1, 0, 1}};
  for (int k = 0; k < 200; ++k) {
    GridGeometry g = random_grid(rng);
    g.cell_size = 0.5f;  // exact in binary: lattice points are exact too
    g.inv_cell_size = 2.0f;
    g.reach = 0.25f * static_cast<float>(rng() % 3);  // grown faces on the lattice too
    g.origin = {std::floor(uniform(rng, -3, 3)), std::floor(uniform(rng, -3, 3)), 0.0f};
    // Start on a cell corner, edge or face: integer or half-integer multiples of the cell size.
    Vec3 o;
    for (int a = 0; a < 3; ++a) {
      const int steps = std::uniform_int_distribution<int>(-2, 2 * g.dims[a] + 2)(rng);
      const float along = component(g.origin, a) + 0.5f * g.cell_size * steps;
      (a == 0 ? o.x : a == 1 ? o.y : o.z) = along;
    }
    const Vec3 d = normalize(directions[k % 10]);
    SCOPED_TRACE(k);
    expect_walk_matches_brute_force(g, {o, d}, 1e30f);
    expect_walk_matches_brute_force(g, {o, d * -1.0f}, 1e30f);
  }
}

TEST(Dda, MissingRayVisitsNothing) {
  Rng rng(fresh_seed());
  const GridGeometry g = random_grid(rng);
  const Vec3 above = {g.origin.x, g.origin.y, g.origin.z + 100.0f};
  EXPECT_TRUE(walk(g, {above, {0, 0, 1}}, INFINITY).empty());
  EXPECT_TRUE(walk(g, {above, {1, 0, 0}}, INFINITY).empty());
}

// The inline min and max the kernels use on the host give what fminf and fmaxf give, a NaN
// operand included (only the sign of a zero result may differ, as the C standard allows).
TEST(KernelMath, NanIgnoringMinAndMaxAreFminfAndFmaxf) {
  Rng rng(fresh_seed());
  const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, 1.0f, -1.0f, FLT_MAX, -FLT_MIN};
  const auto draw = [&]() {
    if (rng() % 4 == 0) return specials[rng() % 8];
    return uniform(rng, -1e6f, 1e6f);
  };
  for (int k = 0; k < 100000; ++k) {
    const float a = draw(), b = draw();
    const float lo = nan_ignoring_min(a, b), hi = nan_ignoring_max(a, b);
    const float want_lo = std::fmin(a, b), want_hi = std::fmax(a, b);
    if (std::isnan(want_lo)) {
      EXPECT_TRUE(std::isnan(lo)) << a << " " << b;
    } else {
      EXPECT_EQ(lo, want_lo) << a << " " << b;
    }
    if (std::isnan(want_hi)) {
      EXPECT_TRUE(std::isnan(hi)) << a << " " << b;
    } else {
      EXPECT_EQ(hi, want_hi) << a << " " << b;
    }
  }
}

}  // namespace
}  // namespace granray::test
