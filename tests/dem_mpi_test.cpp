// The example DEM on slabs under mpirun -np 1..4: the same grains, in the same places, as one
// rank, and the in-situ frames composited across the ranks equal one rank's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "dem_mpi.h"
#include "dem_simulation.h"
#include "granray/insitu/mpi_frame.h"
#include "mpi_support.h"

namespace granray::test {
namespace {

using dem::DemParams;
using dem::DemSimulation;

struct GrainState {
  Vec4 pos, vel;
};

// Every rank's grains, by id, on rank 0 (empty elsewhere).
std::map<std::uint64_t, GrainState> gather_by_id(const DemSimulation& sim) {
  const auto ids = sim.ids();
  const auto pos = sim.positions();
  const auto vel = sim.velocities();
  std::vector<double> mine;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    mine.insert(mine.end(), {double(ids[k]), pos[k].x, pos[k].y, pos[k].z, pos[k].w, vel[k].x,
                             vel[k].y, vel[k].z, vel[k].w});
  }
  const int size = size_of(MPI_COMM_WORLD);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), offsets(size);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[r] = total;
    total += counts[r];
  }
  std::vector<double> all(rank_of(MPI_COMM_WORLD) == 0 ? total : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
              0, MPI_COMM_WORLD);
  std::map<std::uint64_t, GrainState> out;
  for (std::size_t k = 0; k + 9 <= all.size(); k += 9) {
    const double* g = &all[k];
    const auto id = static_cast<std::uint64_t>(g[0]);
    EXPECT_EQ(out.count(id), 0u) << "grain " << id << " owned by two ranks";
    out[id] = {{float(g[1]), float(g[2]), float(g[3]), float(g[4])},
               {float(g[5]), float(g[6]), float(g[7]), float(g[8])}};
  }
  return out;
}

// A gas of grains with random velocities in a flat box, so that many cross slab faces and
// collide while doing so.
void random_gas(Rng& rng, const DemParams& p, std::size_t n, std::vector<Vec4>& pos,
                std::vector<Vec3>& vel) {
  const float spacing = 3.5f * p.radius_max;
  const int nx = static_cast<int>(p.box.x / spacing), ny = static_cast<int>(p.box.y / spacing);
  for (std::size_t k = 0; k < n; ++k) {
    const int i = static_cast<int>(k % nx), j = static_cast<int>((k / nx) % ny),
              layer = static_cast<int>(k / (nx * ny));
    pos.push_back({(i + 0.5f) * spacing + uniform(rng, -0.05f, 0.05f) * spacing,
                   (j + 0.5f) * spacing + uniform(rng, -0.05f, 0.05f) * spacing,
                   (layer + 0.5f) * spacing, uniform(rng, p.radius_min, p.radius_max)});
    vel.push_back(
        {uniform(rng, -0.8f, 0.8f), uniform(rng, -0.8f, 0.8f), uniform(rng, -0.3f, 0.3f)});
  }
}

// The box the slab tests fill with a gas: long in x, so that 1-4 ranks each get a slab.
DemParams gas_box() {
  DemParams p;
  p.backend = BackendKind::cpu;
  p.box = {0.12f, 0.06f, 0.06f};
  p.dt = 1e-5;
  return p;
}

TEST(DemSlabs, SameGrainsInTheSamePlacesAsOneRank) {
  Rng rng(shared_seed());
  DemParams p = gas_box();
  p.gravity = {0.0f, 0.0f, -uniform(rng, 0.0f, 2.0f)};  // a lively gas: it must keep crossing
  p.restitution = 0.9f;
  const std::size_t n = 200 + rng() % 75;
  std::vector<Vec4> pos;
  std::vector<Vec3> vel;
  random_gas(rng, p, n, pos, vel);
  auto slabs = DemSimulation::create(p, pos, vel, dem::make_mpi_slabs(MPI_COMM_WORLD));
  auto one = DemSimulation::create(p, pos, vel);  // every rank runs the one-rank reference too
  const int steps = 5000 + static_cast<int>(rng() % 1000);
  for (int k = 0; k < steps; ++k) {
    slabs->step();
    one->step();
  }
  const dem::Energy e_slabs = slabs->energy(), e_one = one->energy();
  const std::uint64_t crossed = dem::make_mpi_slabs(MPI_COMM_WORLD)->sum(slabs->migrated());
  const auto all = gather_by_id(*slabs);
  if (rank_of(MPI_COMM_WORLD) != 0) return;
  std::printf("[ crossed  ] %llu grains crossed slab faces\n",
              static_cast<unsigned long long>(crossed));
  if (size_of(MPI_COMM_WORLD) > 1)
    EXPECT_GT(crossed, 10u * (size_of(MPI_COMM_WORLD) - 1)) << "grains must cross slab faces";
  ASSERT_EQ(all.size(), n) << "every grain is owned by exactly one rank";
  const auto ids = one->ids();
  const auto p1 = one->positions(), v1 = one->velocities();
  float worst = 0.0f;
  for (std::size_t k = 0; k < n; ++k) {
    const GrainState& g = all.at(ids[k]);
    worst = std::max({worst, std::fabs(g.pos.x - p1[k].x), std::fabs(g.pos.y - p1[k].y),
                      std::fabs(g.pos.z - p1[k].z), std::fabs(g.vel.x - v1[k].x),
                      std::fabs(g.vel.y - v1[k].y), std::fabs(g.vel.z - v1[k].z)});
  }
  // Contacts are summed in the same order on any rank count (cells, then ids), so nothing but
  // the rounding of identical operations could differ: the states agree exactly.
  EXPECT_EQ(worst, 0.0f) << "after " << steps << " steps";
  EXPECT_NEAR(e_slabs.kinetic, e_one.kinetic, 1e-9 * e_one.kinetic);
  EXPECT_EQ(e_slabs.max_overlap, e_one.max_overlap);
}

TEST(DemSlabs, PourSettlesAcrossSlabs) {
  Rng rng(shared_seed());
  DemParams p;
  p.backend = BackendKind::cpu;
  p.seed = rng();
  p.particles = 600;
  p.box = {0.08f, 0.08f, 0.2f};
  p.pour_width = 0.6f;
  p.steps = 30000;
  auto sim = DemSimulation::create(p, dem::make_mpi_slabs(MPI_COMM_WORLD));
  const dem::Energy start = sim->energy();
  float worst_overlap = 0.0f;
  for (std::int64_t k = 1; k <= p.steps; ++k) {
    sim->step();
    if (k % 1000 == 0) worst_overlap = std::max(worst_overlap, sim->energy().max_overlap);
  }
  const dem::Energy end = sim->energy();
  const auto all = gather_by_id(*sim);
  if (rank_of(MPI_COMM_WORLD) != 0) return;
  const double e0 = start.kinetic + start.potential, e1 = end.kinetic + end.potential;
  EXPECT_LT(e1, e0);
  EXPECT_LT(end.kinetic, 1e-3 * (e0 - e1)) << "the pour has settled";
  EXPECT_LT(worst_overlap, 0.05f);
  EXPECT_GT(end.min_gap, 0.95f);
  ASSERT_EQ(all.size(), std::size_t(p.particles));
  for (const auto& [id, g] : all) {
    ASSERT_GT(g.pos.z, 0.0f) << id;
    ASSERT_GT(g.pos.x, 0.0f) << id;
    ASSERT_LT(g.pos.x, p.box.x) << id;
  }
}

TEST(DemSlabs, FramesAcrossRanksEqualOneRanks) {
  Rng rng(shared_seed());
  const DemParams p = gas_box();
  std::vector<Vec4> pos;
  std::vector<Vec3> vel;
  random_gas(rng, p, 270, pos, vel);
  auto slabs = DemSimulation::create(p, pos, vel, dem::make_mpi_slabs(MPI_COMM_WORLD));
  auto one = DemSimulation::create(p, pos, vel);
  for (int k = 0; k < 500; ++k) {
    slabs->step();
    one->step();
  }
  RenderSettings s = random_settings(rng, rng() % 2 == 0);
  s.color = ColorMapping{static_cast<int>(rng() % 7), true, 0.0f, 1.0f};  // auto speed range
  Renderer renderer(BackendKind::cpu);
  const SimulationParticles mine = slabs->particles();
  ParticleView view = mine.view;
  view.scalar = mine.field("speed");
  Image composited;
  mpi::render_distributed(renderer, MPI_COMM_WORLD, view, s, composited);
  if (rank_of(MPI_COMM_WORLD) != 0) return;
  const SimulationParticles all = one->particles();
  ParticleView reference_view = all.view;
  reference_view.scalar = all.field("speed");
  Image reference;
  renderer.render(reference_view, s, reference, {RenderMethod::grid, true});
  EXPECT_EQ(composited.rgb, reference.rgb);
  EXPECT_EQ(composited.hit_id, reference.hit_id);
}

}  // namespace
}  // namespace granray::test
