// 3D-DDA visits exactly the cells a segment crosses, front to back.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <set>
#include <vector>

#include "granray/kernels/dda.h"
#include "test_support.h"

namespace granray::test {
namespace {

struct Visit {
  std::uint32_t cell;
  float t0, t1;
};

std::vector<Visit> walk(const GridGeometry& g, const Ray& ray, float t_max) {
  std::vector<Visit> visits;
  walk_cells(g, ray, 0.0f, t_max, [&](std::uint32_t cell, float t0, float t1) {
    visits.push_back({cell, t0, t1});
    return false;
  });
  return visits;
}

// The parameter interval of the segment inside cell (x, y, z) grown (grow > 0) or shrunk
// (grow < 0) by |grow| on every side; its length, negative when it misses. Computed in double.
double inside_length(const GridGeometry& g, const Ray& ray, double t_max, int x, int y, int z,
                     double grow) {
  const int idx[3] = {x, y, z};
  double t0 = 0.0, t1 = t_max;
  for (int a = 0; a < 3; ++a) {
    const double o = component(ray.origin, a), d = component(ray.dir, a);
    const double lo = double(component(g.origin, a)) + idx[a] * double(g.cell_size) - grow;
    const double hi = lo + double(g.cell_size) + 2 * grow;
    if (d == 0.0) {
      if (o <= lo || o >= hi) return -1.0;
      continue;
    }
    double a0 = (lo - o) / d, a1 = (hi - o) / d;
    if (a0 > a1) std::swap(a0, a1);
    t0 = std::max(t0, a0);
    t1 = std::min(t1, a1);
  }
  return t1 - t0;
}

void expect_walk_matches_brute_force(const GridGeometry& g, const Ray& ray, float t_max) {
  const auto visits = walk(g, ray, t_max);
  const double eps = 1e-4 * g.cell_size;
  std::set<std::uint32_t> visited;
  for (std::size_t k = 0; k < visits.size(); ++k) {
    ASSERT_TRUE(visited.insert(visits[k].cell).second) << "cell visited twice";
    if (k > 0) ASSERT_GE(visits[k].t0, visits[k - 1].t0) << "not front to back";
  }
  for (int z = 0; z < g.dims[2]; ++z)
    for (int y = 0; y < g.dims[1]; ++y)
      for (int x = 0; x < g.dims[0]; ++x) {
        const std::uint32_t cell = cell_index(g, x, y, z);
        const bool crosses = inside_length(g, ray, t_max, x, y, z, -eps) > 0.0;
        const bool touches = inside_length(g, ray, t_max, x, y, z, eps) >= 0.0;
        if (crosses) {
          EXPECT_TRUE(visited.count(cell)) << "missed cell " << x << "," << y << "," << z;
        }
        if (visited.count(cell)) {
          EXPECT_TRUE(touches) << "visited cell " << x << "," << y << "," << z
                               << " the segment does not reach";
        }
      }
}

GridGeometry random_grid(Rng& rng) {
  GridGeometry g{};
  g.origin = {uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5)};
  g.cell_size = uniform(rng, 0.1f, 2.0f);
  g.inv_cell_size = 1.0f / g.cell_size;
  for (int a = 0; a < 3; ++a) g.dims[a] = std::uniform_int_distribution<int>(1, 12)(rng);
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
