// granray-dem: the example CUDA/CPU DEM with granray rendering in its time loop.
//   granray-dem [INPUT.toml] [--set table.key=value ...]
//   mpirun -np 4 granray-dem ...   (slabs along x, one GPU per rank when there are GPUs)
//   granray-dem ... --grains-out end.xyzr   (the last step's grains, for granray-render)
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>

#include "dem_simulation.h"
#include "frame_timings.h"
#include "granray/errors.h"
#include "granray/insitu/insitu_renderer.h"

#if defined(GRANRAY_DEM_HAVE_MPI)
#include "dem_mpi.h"
#include "granray/insitu/mpi_frame.h"
#endif

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The ranks this run spreads over: one, or MPI_COMM_WORLD when started by an MPI launcher.
struct Ranks {
  int rank = 0;
  int size = 1;
  int gpu = -1;  // the GPU this rank uses under MPI, -1 if none or one rank
  std::shared_ptr<granray::dem::SlabExchange> slabs;
  std::shared_ptr<granray::RankGroup> group;

  std::vector<int> gpus;                   // on rank 0: every rank's GPU
  std::vector<unsigned long long> grains;  // and its grains at the start

  // Collects every rank's GPU and grain count on rank 0 (collective under MPI).
  void gather(unsigned long long mine) {
    gpus.assign(size, gpu);
    grains.assign(size, mine);
#if defined(GRANRAY_DEM_HAVE_MPI)
    if (size > 1) {
      granray::mpi::check(MPI_Gather(&gpu, 1, MPI_INT, gpus.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
                          "MPI_Gather");
      granray::mpi::check(MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, grains.data(), 1,
                                     MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD),
                          "MPI_Gather");
    }
#endif
  }

  // The slowest and the fastest rank's value (collective under MPI).
  double slowest(double mine) const { return reduce(mine, true); }
  double fastest(double mine) const { return reduce(mine, false); }

 private:
  double reduce(double mine, bool largest) const {
#if defined(GRANRAY_DEM_HAVE_MPI)
    if (size > 1) {
      granray::mpi::check(MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE,
                                        largest ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD),
                          "MPI_Allreduce");
    }
#else
    (void)largest;
#endif
    return mine;
  }
};

// The grains of the last step as "x y z r speed" text (granray-render reads it as xyzr): a run's
// end state, rendered again offline with other settings. In global-id order, so that a grain's
// line is its id there; speed as the plugin was given it. One rank's run only.
void write_grains(const std::string& path, const granray::dem::DemSimulation& sim) {
  const std::vector<granray::Vec4> positions = sim.positions();
  const std::vector<granray::Vec4> velocities = sim.velocities();
  const std::vector<std::uint64_t> ids = sim.ids();
  std::vector<std::size_t> order(positions.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) throw granray::Error(path + ": cannot write the grains");
  std::fprintf(out, "# x y z r speed (m, m/s): %zu grains at t = %.9g s\n", positions.size(),
               sim.time());
  bool ok = true;
  for (std::size_t k : order) {
    const granray::Vec4 p = positions[k], v = velocities[k];
    const float speed = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);  // as dem::Speed
    // %.9g gives every float back exactly.
    ok = ok && std::fprintf(out, "%.9g %.9g %.9g %.9g %.9g\n", p.x, p.y, p.z, p.w, speed) > 0;
  }
  if (std::fclose(out) != 0 || !ok) throw granray::Error(path + ": writing the grains failed");
}

int run(const std::string& input, const std::vector<std::string>& overrides,
        const std::string& grains_out, Ranks& ranks) {
  using namespace granray;
  std::string text = dem::default_pour_toml();
  std::string source = "<default pour>";
  if (!input.empty()) {
    std::ifstream in(input, std::ios::binary);
    if (!in) throw ConfigError(input + ": cannot open the input file");
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
    source = input;
  }
  // --set insitu.key=... goes to the plugin (keys relative to [insitu]), the rest to the DEM.
  std::vector<std::string> insitu_overrides;
  for (const std::string& o : overrides) {
    if (o.rfind("insitu.", 0) == 0) insitu_overrides.push_back(o.substr(7));
  }
  const dem::DemParams params = dem::parse_dem_params(text, source, overrides);
  InsituRenderer vis(parse_insitu_config(text, source, insitu_overrides), {"speed"}, ranks.group);
  auto sim = dem::DemSimulation::create(params, ranks.slabs);
  ranks.gather(sim->size());

  const InsituConfig& vc = vis.config();
  // contract 2g: the DEM's own contacts, each pair passed once across ranks.
  sim->pass_contacts(vc.render.contacts.has_value());
  const bool root = ranks.rank == 0;
  if (root) {
    std::printf("granray-dem: %lld grains, %lld steps of %g s, DEM on %s; rendering %dx%d on %s",
                static_cast<long long>(params.particles), static_cast<long long>(params.steps),
                params.dt, backend_name(sim->backend()), vc.render.width, vc.render.height,
                backend_name(vis.backend()));
    if (vc.every > 0) std::printf(" every %lld steps", static_cast<long long>(vc.every));
    if (vc.every_time > 0) std::printf(" every %g s", vc.every_time);
    std::printf("%s%s\n", vc.png.empty() ? "" : " to ", vc.png.c_str());
    if (ranks.size > 1) {
      std::printf("granray-dem: %d ranks, slabs along x, %s\n", ranks.size,
                  ranks.gpu >= 0 ? "one GPU per rank (node-local rank mod GPUs):" : "no GPU");
      for (std::size_t r = 0; ranks.gpu >= 0 && r < ranks.gpus.size(); ++r) {
        std::printf("  rank %zu: GPU %d, %llu grains\n", r, ranks.gpus[r],
                    static_cast<unsigned long long>(ranks.grains[r]));
      }
    }
    std::fflush(stdout);
  }

  double dem_seconds = 0.0;
  dem::FrameTimingSample timings;  // on rank 0
  const Clock::time_point start = Clock::now();
  for (std::int64_t step = 0;; ++step) {
    if (vis.due(step, sim->time())) {
      const Clock::time_point f0 = Clock::now();
      const FrameRecord& f = vis.render(step, sim->time(), sim->particles());
      const double frame_ms = 1e3 * seconds_since(f0);
      if (f.rendered && root) {
        const dem::FrameTiming timing = dem::frame_timing(f, frame_ms);
        timings.add(timing);
        std::printf("frame step %lld t=%.4f s: %llu particles, %s%s%s\n",
                    static_cast<long long>(step), sim->time(),
                    static_cast<unsigned long long>(f.stats.particles),
                    dem::describe(timing, ranks.size).c_str(), f.png_path.empty() ? "" : " -> ",
                    f.png_path.c_str());
        std::fflush(stdout);
      }
    }
    if (step == params.steps) break;
    const Clock::time_point t0 = Clock::now();
    sim->step();
    dem_seconds += seconds_since(t0);
  }
  vis.finish();  // the writer thread may still hold the last frames
  if (!grains_out.empty()) write_grains(grains_out, *sim);
  const InsituCounters c = vis.counters();
  const double frames = c.rendered > 0 ? static_cast<double>(c.rendered) : 1.0;
  const double dem_slowest = ranks.slowest(dem_seconds);
  const double dem_fastest = ranks.fastest(dem_seconds);
  const std::uint64_t migrated = ranks.slabs ? ranks.slabs->sum(sim->migrated()) : 0;
  if (!root) return 0;
  const auto per_step = [&](double seconds) {
    return params.steps > 0 ? 1e3 * seconds / params.steps : 0.0;
  };
  if (ranks.size > 1) {
    std::printf("granray-dem: %llu grains crossed slab faces; DEM %.3f-%.3f ms/step over ranks\n",
                static_cast<unsigned long long>(migrated), per_step(dem_fastest),
                per_step(dem_slowest));
  }
  const dem::TimingSummary summary = dem::summarize(timings);
  if (summary.frames > 0) {
    std::string over = std::to_string(summary.frames);
    if (summary.sampled_from > summary.frames)
      over += " sampled from " + std::to_string(summary.sampled_from);
    if (timings.seen() > summary.sampled_from) over += " after the first";
    std::printf("granray-dem: per frame, median of %s: %s\n", over.c_str(),
                dem::describe(summary.median, ranks.size).c_str());
  }
  std::printf(
      "granray-dem: %lld steps in %.1f s: DEM %.3f ms/step (slowest rank) on %s; %llu frames on "
      "%s, "
      "%.2f ms/frame rendering, %.2f ms/frame handing over; %llu written, %llu failed, "
      "%llu dropped, %llu lost\n",
      static_cast<long long>(params.steps), seconds_since(start), per_step(dem_slowest),
      backend_name(sim->backend()), static_cast<unsigned long long>(c.rendered),
      backend_name(vis.backend()), c.render_ms / frames, c.output_ms / frames,
      static_cast<unsigned long long>(c.written), static_cast<unsigned long long>(c.failed),
      static_cast<unsigned long long>(c.dropped), static_cast<unsigned long long>(c.lost));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Example DEM (spheres poured into a box) rendered in situ by granray",
               "granray-dem"};
  std::string input;
  std::vector<std::string> overrides;
  std::string grains_out;
  app.add_option("input", input, "TOML input with [simulation] and [insitu] (default: a pour)");
  app.add_option("--set", overrides, "override table.key=value (TOML value)")
      ->allow_extra_args(false);
  app.add_option("--grains-out", grains_out,
                 "write the last step's grains as 'x y z r speed' text (one rank only)");
  CLI11_PARSE(app, argc, argv);
  Ranks ranks;
#if defined(GRANRAY_DEM_HAVE_MPI)
  // A plain run stays a one-rank run that never touches MPI.
  const bool mpi = granray::mpi::launched_by_mpi();
  if (mpi) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &ranks.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks.size);
  }
#endif
  int status = 0;
  try {
#if defined(GRANRAY_DEM_HAVE_MPI)
    if (ranks.size > 1) {
      ranks.gpu = granray::mpi::use_node_local_gpu(MPI_COMM_WORLD);
      granray::mpi::share_cores(MPI_COMM_WORLD, ranks.gpu < 0);  // a thread a core of the node
      ranks.slabs = granray::dem::make_mpi_slabs(MPI_COMM_WORLD);
      ranks.group = granray::mpi::rank_group(MPI_COMM_WORLD);
    }
#endif
    if (!grains_out.empty() && ranks.size > 1) {
      throw granray::ConfigError("--grains-out: writes the grains of a one-rank run only");
    }
    status = run(input, overrides, grains_out, ranks);
  } catch (const granray::Error& e) {
    std::cerr << "granray-dem: "
              << (ranks.size > 1 ? "rank " + std::to_string(ranks.rank) + ": " : "")
              << "error: " << e.what() << "\n";
    status = 2;
  }
#if defined(GRANRAY_DEM_HAVE_MPI)
  if (mpi) MPI_Finalize();
#endif
  return status;
}
