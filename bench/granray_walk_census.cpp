// granray-walk-census: for a scene of the suite, what the primary rays' walk over its frame's
// grid does, counted on the host (bench/walk_census.h): over every cell and leaping over empty
// space. The layout is the backend's, so the counts are the GPU's walk's too.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "granray/errors.h"
#include "grid_census.h"
#include "scene_suite.h"
#include "walk_census.h"

int main(int argc, char** argv) {
  CLI::App app{"Count the primary walk's turns on the suite's scenes", "granray-walk-census"};
  std::vector<std::string> names;
  std::size_t count = 1000000;
  std::string size = "1920x1080";
  app.add_option("--scene", names, "scenes of the suite")
      ->required()
      ->check(CLI::IsMember(granray::bench::suite_scene_names()));
  app.add_option("-n,--particles", count, "grains")->check(CLI::PositiveNumber);
  app.add_option("-r,--resolution", size, "image size, WxH");
  CLI11_PARSE(app, argc, argv);
  try {
    granray::RenderSettings settings;
    if (std::sscanf(size.c_str(), "%dx%d", &settings.width, &settings.height) != 2) {
      throw granray::ConfigError("--resolution: expected WxH, got '" + size + "'");
    }
    for (const std::string& name : names) {
      const granray::bench::SuiteScene scene = granray::bench::make_suite_scene(name, count, 1);
      granray::ParticleView view;
      view.xyzr = scene.grains.data();
      view.count = scene.grains.size();
      granray::Renderer renderer(granray::BackendKind::cpu);
      const granray::HostGrid grid = renderer.build_grid(view);
      std::printf(
          "%s: %s\n%s\n", name.c_str(),
          granray::bench::describe(grid, granray::bench::grid_census(grid, view.count)).c_str(),
          granray::bench::describe(granray::bench::walk_census(grid, view, settings)).c_str());
    }
  } catch (const granray::Error& e) {
    std::fprintf(stderr, "granray-walk-census: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
