// granray-scene: writes a scene of the benchmark suite (bench/scene_suite.h) as 'x y z r' text,
// for renderers that read files (granray-render, bench/mitsuba_compare.py --scene). The
// container walls of the drum and the hopper are not written: granray-bench draws them.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "granray/errors.h"
#include "scene_suite.h"

int main(int argc, char** argv) {
  CLI::App app{"Write a benchmark scene as 'x y z r' text", "granray-scene"};
  std::string name;
  std::size_t count = 100000;
  std::uint64_t seed = 1;
  app.add_option("scene", name, "one of the suite's scenes")
      ->required()
      ->check(CLI::IsMember(granray::bench::suite_scene_names()));
  app.add_option("particles", count, "how many grains")->check(CLI::PositiveNumber);
  app.add_option("seed", seed, "the generator's seed");
  CLI11_PARSE(app, argc, argv);
  try {
    const granray::bench::SuiteScene scene = granray::bench::make_suite_scene(name, count, seed);
    std::printf("# granray-scene %s %zu %llu: x y z radius\n", name.c_str(), count,
                static_cast<unsigned long long>(seed));
    for (const granray::Vec4& g : scene.grains) {
      std::printf("%.9g %.9g %.9g %.9g\n", g.x, g.y, g.z, g.w);
    }
  } catch (const granray::Error& e) {
    std::fprintf(stderr, "granray-scene: error: %s\n", e.what());
    return 1;
  }
  return std::ferror(stdout) != 0 ? 1 : 0;
}
