// granray-render: renders particle files with the plugin's settings and renderer (SPEC 4).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "granray/errors.h"
#include "granray/insitu/config.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/image_file.h"
#include "granray/io/particle_file.h"
#include "granray/renderer.h"

namespace {

struct Options {
  std::string config;
  std::vector<std::string> overrides;
  std::string format = "auto";
  std::vector<std::string> inputs;
  std::string out;
};

struct NamedFrame {
  granray::io::ParticleFrame frame;
  std::string source;
  std::int64_t number;  // the snapshot's step, or its index when the file has none
};

int run(const Options& options) {
  using namespace granray;
  const InsituConfig config = options.config.empty()
                                  ? parse_insitu_config("", "<defaults>", options.overrides)
                                  : load_insitu_config(options.config, options.overrides);
  if (!config.output.empty()) {
    throw ConfigError("key 'insitu.output' = \"" + config.output +
                      "\": HDF5 output is not available in this build yet; unset it");
  }
  const io::ParticleFormat format = io::parse_particle_format(options.format);

  std::vector<NamedFrame> frames;
  for (const std::string& input : options.inputs) {
    for (auto& frame :
         io::read_particle_file(input, format, config.color ? config.color->field : "")) {
      const auto index = static_cast<std::int64_t>(frames.size());
      const std::int64_t number = frame.step.value_or(index);
      frames.push_back({std::move(frame), input, number});
    }
  }
  if (frames.size() > 1 && !io::has_frame_placeholder(options.out)) {
    throw ConfigError("--out " + options.out + ": " + std::to_string(frames.size()) +
                      " frames to write but no '*' in the name for the step");
  }

  Renderer renderer(config.backend);
  Image image;
  for (const NamedFrame& f : frames) {
    const FrameStats stats = renderer.render(f.frame.view(), config.render, image);
    const std::string path = io::expand_frame_pattern(options.out, f.number);
    io::write_image(path, image);
    std::printf(
        "%s: step %lld, %llu particles (%llu skipped), %s backend, grid %.1f ms, "
        "render %.1f ms -> %s\n",
        f.source.c_str(), static_cast<long long>(f.number),
        static_cast<unsigned long long>(stats.particles),
        static_cast<unsigned long long>(stats.skipped), backend_name(renderer.backend()),
        stats.grid_ms, stats.render_ms, path.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Render DEM particle files (xyzr text, LAMMPS/LIGGGHTS dumps, sphere .bin)",
               "granray-render"};
  Options options;
  app.add_option("--config", options.config, "TOML file whose [insitu] table sets the image")
      ->check(CLI::ExistingFile);
  app.add_option("--set", options.overrides,
                 "override a key of [insitu], value in TOML: --set camera.fov=45")
      ->allow_extra_args(false);  // one value per --set: inputs may follow
  app.add_option("--format", options.format, "input format")
      ->check(CLI::IsMember({"auto", "xyzr", "lammps", "sphere"}));
  app.add_option("--out", options.out, "image name (.png or .ppm); '*' becomes the step")
      ->required();
  app.add_option("inputs", options.inputs, "particle files")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options);
  } catch (const granray::Error& e) {
    std::cerr << "granray-render: error: " << e.what() << "\n";
    return 1;
  }
}
