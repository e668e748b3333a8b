// The example DEM's physics. Built once per backend, like the renderer's tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#if defined(GRANRAY_TEST_CUDA)  // the tests' own copies of device arrays to the host
#include <cuda_runtime.h>
#endif

#include "dem_simulation.h"
#include "granray/errors.h"
#include "test_support.h"

namespace granray::test {
namespace {

using dem::DemParams;
using dem::DemSimulation;

class DemTest : public OnEachBackend {
 protected:
  static DemParams params() {
    DemParams p;
    p.backend = test_backend();
    return p;
  }
  // `particles` grains poured from a random seed into an 8 x 8 x 20 cm box.
  static DemParams pour(Rng& rng, long long particles) {
    DemParams p = params();
    p.seed = rng();
    p.particles = particles;
    p.box = {0.08f, 0.08f, 0.2f};
    p.pour_width = 0.6f;
    return p;
  }
};

TEST_F(DemTest, SingleGrainFallsAsHalfGTSquared) {
  Rng rng(fresh_seed());
  DemParams p = params();
  p.box = {1.0f, 1.0f, 10.0f};
  p.dt = uniform(rng, 5e-4f, 1e-3f);
  p.gravity = {0.0f, 0.0f, -uniform(rng, 5.0f, 20.0f)};
  const float z0 = uniform(rng, 8.0f, 9.5f);
  auto sim = DemSimulation::create(p, {{0.5f, 0.5f, z0, 3e-3f}}, {{0.0f, 0.0f, 0.0f}});
  const int steps = std::uniform_int_distribution<int>(400, 600)(rng);
  for (int k = 0; k < steps; ++k) sim->step();
  const double t = sim->time();
  const double expected = z0 + 0.5 * p.gravity.z * t * t;
  ASSERT_GT(expected, 1.0) << "still in free fall";
  // Velocity Verlet is exact under constant force: what remains is float32 rounding.
  const double fall = z0 - expected;
  EXPECT_NEAR(sim->positions()[0].z, expected, 5e-4 * fall + 2e-4);
  EXPECT_NEAR(sim->velocities()[0].z, p.gravity.z * t, 1e-4 * std::fabs(p.gravity.z * t));
  EXPECT_FLOAT_EQ(sim->positions()[0].x, 0.5f);
}

TEST_F(DemTest, PourSettlesInsideTheBoxWithSmallOverlaps) {
  Rng rng(fresh_seed());
  DemParams p = pour(rng, 800);
  p.steps = 40000;
  auto sim = DemSimulation::create(p);
  const dem::Energy start = sim->energy();
  const double e0 = start.kinetic + start.potential;
  double kinetic_at_two_thirds = 0.0;
  float worst_overlap = 0.0f, closest_wall = INFINITY;
  for (std::int64_t k = 1; k <= p.steps; ++k) {
    sim->step();
    if (k % 500 == 0) {
      const dem::Energy e = sim->energy();
      worst_overlap = std::max(worst_overlap, e.max_overlap);
      closest_wall = std::min(closest_wall, e.min_gap);
      if (kinetic_at_two_thirds == 0.0 && 3 * k >= 2 * p.steps) kinetic_at_two_thirds = e.kinetic;
    }
  }
  const dem::Energy end = sim->energy();
  const double e1 = end.kinetic + end.potential;
  EXPECT_LT(e1, e0) << "dissipation must lower the mechanical energy";
  EXPECT_LT(end.kinetic, 1e-3 * (e0 - e1)) << "the pour has settled";
  EXPECT_LT(end.kinetic, kinetic_at_two_thirds) << "energy keeps decaying once settled";
  EXPECT_LT(worst_overlap, 0.05f) << "overlaps stay under 5 % of the radius";
  EXPECT_GT(closest_wall, 0.95f) << "no grain pushes more than 5 % into a wall";
  for (const Vec4& g : sim->positions()) {
    ASSERT_GT(g.z, 0.0f);
    ASSERT_GT(g.x, 0.0f);
    ASSERT_LT(g.x, p.box.x);
    ASSERT_GT(g.y, 0.0f);
    ASSERT_LT(g.y, p.box.y);
  }
}

// A simulation's array, wherever it lives, as a host vector.
template <class T>
std::vector<T> to_host(const T* data, std::size_t count, MemorySpace space) {
  std::vector<T> out(count);
  if (count == 0) return out;
#if defined(GRANRAY_TEST_CUDA)  // the tests' own copies of device arrays to the host
  if (space == MemorySpace::device) {
    EXPECT_EQ(cudaMemcpy(out.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }
#endif
  EXPECT_EQ(space, MemorySpace::host);
  std::copy_n(data, count, out.begin());
  return out;
}

// contract 2g in situ: the DEM passes its own contacts, each overlapping pair of grains once,
// with its normal force, in its own memory; the renderer draws them.
TEST_F(DemTest, PassesEachOverlappingPairOnceWithItsForce) {
  Rng rng(fresh_seed());
  const DemParams p = pour(rng, 500);
  auto sim = DemSimulation::create(p);
  for (int k = 0; k < 25000; ++k) sim->step();
  sim->pass_contacts(true);
  const SimulationParticles particles = sim->particles();
  const ContactView& c = particles.view.contacts;
  ASSERT_GT(c.count, 100u) << "the pour has piled up";
  ASSERT_NE(c.spheres, nullptr);
  const auto spheres = to_host(c.spheres, 2 * c.count, particles.view.space);
  const auto pair_ids = to_host(c.ids, 2 * c.count, particles.view.space);
  const auto force = to_host(c.value, c.count, particles.view.space);
  const std::vector<Vec4> g = sim->positions();
  const std::vector<std::uint64_t> ids = sim->ids();
  std::map<std::uint64_t, std::uint32_t> index_of;
  for (std::uint32_t i = 0; i < ids.size(); ++i) index_of[ids[i]] = i;
  const auto gap = [&](std::uint32_t i, std::uint32_t j) {  // centre distance / (r_i + r_j)
    const double dx = double(g[i].x) - g[j].x, dy = double(g[i].y) - g[j].y,
                 dz = double(g[i].z) - g[j].z;
    return std::sqrt(dx * dx + dy * dy + dz * dz) / (double(g[i].w) + g[j].w);
  };
  std::set<std::pair<std::uint32_t, std::uint32_t>> passed;
  for (std::size_t k = 0; k < c.count; ++k) {
    ASSERT_LT(pair_ids[2 * k], pair_ids[2 * k + 1]) << "seen from the grain of the smaller id";
    const std::uint32_t i = index_of.at(pair_ids[2 * k]), j = index_of.at(pair_ids[2 * k + 1]);
    EXPECT_EQ(spheres[2 * k].x, g[i].x);
    EXPECT_EQ(spheres[2 * k + 1].w, g[j].w);
    EXPECT_TRUE(passed.insert({std::min(i, j), std::max(i, j)}).second) << "a pair passed twice";
    EXPECT_LT(gap(i, j), 1.0 + 1e-6) << "a pair that does not touch";
    EXPECT_TRUE(std::isfinite(force[k]) && force[k] >= 0.0f);
  }
  for (std::uint32_t i = 0; i < g.size(); ++i) {
    for (std::uint32_t j = i + 1; j < g.size(); ++j) {
      if (gap(i, j) < 1.0 - 1e-6) EXPECT_TRUE(passed.count({i, j})) << i << ", " << j;
    }
  }
  RenderSettings s;
  s.width = 64;
  s.height = 48;
  s.contacts = ContactSettings{};
  Image image;
  const FrameStats stats = Renderer(test_backend()).render(particles.view, s, image);
  EXPECT_EQ(stats.contacts_skipped, 0u);
  EXPECT_EQ(stats.contacts, std::size_t(std::count_if(force.begin(), force.end(),
                                                      [](float f) { return f > 0.0f; })));
}

TEST_F(DemTest, ParamsErrorsNameTheKey) {
  auto expect_error = [](const std::string& toml, const std::string& fragment) {
    try {
      dem::parse_dem_params(toml, "in.toml", {});
      ADD_FAILURE() << "no error for " << toml;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("[simulation]\nparticles = 0\n", "in.toml:2: key 'simulation.particles'");
  expect_error("[simulation]\ndt = 1.0\n", "simulation.dt");
  expect_error("[simulation]\nradius = [2, 1]\n", "simulation.radius");
  expect_error("[simulation]\nstepz = 3\n", "simulation.stepz");
  expect_error("[simulaton]\n", "unknown key '.simulaton'");
  DemParams p = dem::parse_dem_params("[simulation]\nsteps = 5\n", "in.toml",
                                      {"simulation.steps=9", "simulation.box=[1,2,3]"});
  EXPECT_EQ(p.steps, 9);
  EXPECT_FLOAT_EQ(p.box.y, 2.0f);
  p = DemParams{};
  p.particles = 1000000;
  EXPECT_THROW(DemSimulation::create(p), ConfigError) << "a million grains do not fit";
}

}  // namespace
}  // namespace granray::test
