// The in-situ plugin under mpirun -np 1..4: one HDF5 file written by rank 0 with every rank's
// share, the frames equal to one rank's, and a failure on one rank skipping the frame on all.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "granray/adapters/buffers.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/insitu/mpi_frame.h"
#include "h5_read.h"
#include "mpi_support.h"

namespace granray::test {
namespace {

// One path for all ranks (rank 0's temporary directory), new in every run: the directory is
// named for rank 0's process id, which a later run may get again, and the writer appends to a
// file it finds (CI once read /frames/ranks {4, 4, 4, 1, 1, 1}: an np 1 run after an np 4 one).
std::string shared_path(const std::string& name) {
  std::string path;
  if (rank_of(MPI_COMM_WORLD) == 0) {
    path = temp_path(std::to_string(std::random_device{}()) + "-" + name);
    std::filesystem::remove(path);
  }
  unsigned long length = path.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  path.resize(length);
  MPI_Bcast(path.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  return path;
}

InsituConfig config_writing(const std::string& h5) {
  return parse_insitu_config(
      "[insitu]\nevery = 1\nwidth = 96\nheight = 64\nbackend = \"cpu\"\n"
      "[insitu.color]\nfield = \"speed\"\n",
      "sim.toml", {"output=\"" + h5 + "\""});
}

TEST(InsituAcrossRanks, RankZeroWritesEveryRanksShare) {
  Rng rng(shared_seed());
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  const auto all = dense_bed(rng, 1200, 0.3f, 0.5f);
  std::vector<float> all_speed(all.size());
  for (float& v : all_speed) v = uniform(rng, 0.0f, 3.0f);
  std::vector<Vec4> mine;
  std::vector<float> speed;
  std::vector<std::uint64_t> ids;
  std::vector<std::uint64_t> share(size, 0);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const int owner = static_cast<int>(rng() % size);
    ++share[owner];
    if (owner != rank) continue;
    mine.push_back(all[i]);
    speed.push_back(all_speed[i]);
    ids.push_back(i);
  }
  const std::string h5 = shared_path("ranks.h5");
  {
    InsituRenderer vis(config_writing(h5), {"speed"}, mpi::rank_group(MPI_COMM_WORLD));
    for (int step = 0; step < 3; ++step) {
      SimulationParticles p = adapters::host_particles(mine.data(), mine.size());
      p.view.ids = ids.data();
      p.with_field("speed", speed.data());
      const FrameRecord& f = vis.render(step, 0.1 * step, p);
      ASSERT_TRUE(f.rendered) << f.error;
      EXPECT_EQ(f.stats.particles, all.size());
    }
    vis.finish();
    EXPECT_EQ(vis.counters().written, rank == 0 ? 3u : 0u);
  }
  if (rank != 0) return;
  H5File file(h5.c_str());
  ASSERT_GE(file.id, 0);
  EXPECT_EQ(read_all<std::int32_t>(file.id, "/frames/ranks", H5T_NATIVE_INT32),
            std::vector<std::int32_t>(3, size));
  const auto particles =
      read_all<std::uint64_t>(file.id, "/frames/rank_particles", H5T_NATIVE_UINT64);
  ASSERT_EQ(particles.size(), 3u * size);
  for (int f = 0; f < 3; ++f) {
    for (int r = 0; r < size; ++r) EXPECT_EQ(particles[f * size + r], share[r]);
  }
  const auto times = read_all<double>(file.id, "/frames/rank_render_ms", H5T_NATIVE_DOUBLE);
  for (const double t : times) EXPECT_GT(t, 0.0);

  // The written frame is the one-rank picture of all particles.
  const InsituConfig config = config_writing(h5);
  ParticleView view;
  view.xyzr = all.data();
  view.count = all.size();
  view.scalar = all_speed.data();
  Renderer renderer(BackendKind::cpu);
  Image reference;
  renderer.render(view, config.render, reference);
  const auto rgb = read_all<std::uint8_t>(file.id, "/frames/rgb", H5T_NATIVE_UINT8);
  ASSERT_EQ(rgb.size(), 3 * reference.rgb.size());
  EXPECT_TRUE(
      std::equal(reference.rgb.begin(), reference.rgb.end(), rgb.end() - reference.rgb.size()));
}

// contract 2f across ranks: each further view (and the orbit's), composited on rank 0, is the
// one-rank render of all the particles with that camera, lit and in /views/NAME.
TEST(InsituAcrossRanks, ViewsAreTheOneRankFramesOfTheirCameras) {
  Rng rng(shared_seed());
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  const auto all = dense_bed(rng, 900, 0.3f, 0.5f);
  std::vector<Vec4> mine;
  std::vector<std::uint64_t> ids;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (static_cast<int>(rng() % size) != rank) continue;
    mine.push_back(all[i]);
    ids.push_back(i);
  }
  const std::string h5 = shared_path("views.h5");
  const InsituConfig config = parse_insitu_config(
      "[insitu]\nevery = 1\nwidth = 72\nheight = 54\nbackend = \"cpu\"\n"
      "[insitu.shading]\nshadows = true\nao_samples = 2\n"
      "[[insitu.views]]\nname = \"side\"\ntheta = " +
          std::to_string(uniform(rng, 20.0f, 160.0f)) +
          "\nphi = " + std::to_string(uniform(rng, -90.0f, 90.0f)) +
          "\n[insitu.orbit]\ntheta = [70.0]\nphi_count = 2\n",
      "sim.toml", {"output=\"" + h5 + "\""});
  {
    InsituRenderer vis(config, {}, mpi::rank_group(MPI_COMM_WORLD));
    SimulationParticles p = adapters::host_particles(mine.data(), mine.size());
    p.view.ids = ids.data();
    const FrameRecord& f = vis.render(0, 0.0, p);
    ASSERT_TRUE(f.rendered) << f.error;
  }
  if (rank != 0) return;
  H5File file(h5.c_str());
  ASSERT_GE(file.id, 0);
  ParticleView view;
  view.xyzr = all.data();
  view.count = all.size();
  Renderer renderer(BackendKind::cpu);
  ASSERT_EQ(config.views.size(), 3u);
  for (const ViewSettings& v : config.views) {
    RenderSettings settings = config.render;
    settings.camera = v.camera;
    Image reference;
    renderer.render(view, settings, reference);
    const auto rgb =
        read_all<std::uint8_t>(file.id, ("/views/" + v.name + "/rgb").c_str(), H5T_NATIVE_UINT8);
    EXPECT_EQ(rgb, reference.rgb) << v.name << " on " << size << " ranks";
  }
}

TEST(InsituAcrossRanks, AFailureOnOneRankSkipsTheFrameOnAll) {
  Rng rng(shared_seed());
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  const auto grains = dense_bed(rng, 200, 0.3f, 0.5f);
  std::vector<float> speed(grains.size(), 1.0f);
  const std::string h5 = shared_path("skip.h5");
  InsituRenderer vis(config_writing(h5), {"speed"}, mpi::rank_group(MPI_COMM_WORLD));
  std::vector<std::string> log;
  vis.set_logger([&](const std::string& line) { log.push_back(line); });
  const int failing_rank = static_cast<int>(rng() % size);
  for (int step = 0; step < 3; ++step) {
    SimulationParticles p = adapters::host_particles(grains.data(), grains.size());
    p.view.id_offset = 0;
    // At step 1 one rank forgets the field it promised.
    if (!(step == 1 && rank == failing_rank)) p.with_field("speed", speed.data());
    const FrameRecord& f = vis.render(step, step, p);
    EXPECT_EQ(f.rendered, step != 1) << "step " << step << ": " << f.error;
  }
  vis.finish();
  EXPECT_EQ(vis.counters().failed, 1u);
  EXPECT_EQ(vis.counters().rendered, 2u);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find(rank == failing_rank ? "was not passed" : "another rank"),
            std::string::npos)
      << log[0];
}

}  // namespace
}  // namespace granray::test
