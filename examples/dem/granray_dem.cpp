// granray-dem: the example CUDA/CPU DEM with granray rendering in its time loop.
//   granray-dem [INPUT.toml] [--set table.key=value ...]
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "dem_simulation.h"
#include "granray/errors.h"
#include "granray/insitu/insitu_renderer.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int run(const std::string& input, const std::vector<std::string>& overrides) {
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
  InsituRenderer vis(parse_insitu_config(text, source, insitu_overrides), {"speed"});
  auto sim = dem::DemSimulation::create(params);

  const InsituConfig& vc = vis.config();
  std::printf("granray-dem: %zu grains, %lld steps of %g s, DEM on %s; rendering %dx%d on %s",
              sim->size(), static_cast<long long>(params.steps), params.dt,
              backend_name(sim->backend()), vc.render.width, vc.render.height,
              backend_name(vis.backend()));
  if (vc.every > 0) std::printf(" every %lld steps", static_cast<long long>(vc.every));
  if (vc.every_time > 0) std::printf(" every %g s", vc.every_time);
  std::printf("%s%s\n", vc.png.empty() ? "" : " to ", vc.png.c_str());
  std::fflush(stdout);

  double dem_seconds = 0.0;
  const Clock::time_point start = Clock::now();
  for (std::int64_t step = 0;; ++step) {
    if (vis.due(step, sim->time())) {
      const FrameRecord& f = vis.render(step, sim->time(), sim->particles());
      if (f.rendered) {
        std::printf(
            "frame step %lld t=%.4f s: %llu particles, grid %.2f ms, render %.2f ms, "
            "output %.2f ms%s%s\n",
            static_cast<long long>(step), sim->time(),
            static_cast<unsigned long long>(f.stats.particles), f.stats.grid_ms, f.stats.render_ms,
            f.output_ms, f.png_path.empty() ? "" : " -> ", f.png_path.c_str());
        std::fflush(stdout);
      }
    }
    if (step == params.steps) break;
    const Clock::time_point t0 = Clock::now();
    sim->step();
    dem_seconds += seconds_since(t0);
  }
  vis.finish();  // the writer thread may still hold the last frames
  const InsituCounters c = vis.counters();
  const double frames = c.rendered > 0 ? static_cast<double>(c.rendered) : 1.0;
  std::printf(
      "granray-dem: %lld steps in %.1f s: DEM %.3f ms/step on %s; %llu frames on %s, "
      "%.2f ms/frame rendering, %.2f ms/frame handing over; %llu written, %llu failed, "
      "%llu dropped, %llu lost\n",
      static_cast<long long>(params.steps), seconds_since(start),
      params.steps > 0 ? 1e3 * dem_seconds / params.steps : 0.0, backend_name(sim->backend()),
      static_cast<unsigned long long>(c.rendered), backend_name(vis.backend()),
      c.render_ms / frames, c.output_ms / frames, static_cast<unsigned long long>(c.written),
      static_cast<unsigned long long>(c.failed), static_cast<unsigned long long>(c.dropped),
      static_cast<unsigned long long>(c.lost));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Example DEM (spheres poured into a box) rendered in situ by granray",
               "granray-dem"};
  std::string input;
  std::vector<std::string> overrides;
  app.add_option("input", input, "TOML input with [simulation] and [insitu] (default: a pour)");
  app.add_option("--set", overrides, "override table.key=value (TOML value)")
      ->allow_extra_args(false);
  CLI11_PARSE(app, argc, argv);
  try {
    return run(input, overrides);
  } catch (const granray::Error& e) {
    std::cerr << "granray-dem: error: " << e.what() << "\n";
    return 2;
  }
}
