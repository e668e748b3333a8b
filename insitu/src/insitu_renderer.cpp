#include "granray/insitu/insitu_renderer.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "granray/errors.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/image_file.h"

namespace granray {
namespace {

// PNG names carry the step zero-padded to this many digits, so frames sort by name.
constexpr int kStepDigits = 8;

// Time marks compare with a tolerance: a simulated time summed from dt lands a few ulps off.
double time_tolerance(double every_time) { return 1e-9 * every_time; }

InsituConfig checked(InsituConfig config, const std::vector<std::string>& fields) {
  if (config.color) {
    bool offered = false;
    for (const auto& f : fields) offered = offered || f == config.color->field;
    if (!offered) {
      std::string list;
      for (const auto& f : fields) list += (list.empty() ? "" : ", ") + f;
      throw ConfigError("key 'insitu.color.field': the simulation offers no field \"" +
                        config.color->field + "\" (it offers: " + (list.empty() ? "none" : list) +
                        ")");
    }
  }
  if (!config.output.empty()) {
    throw ConfigError("key 'insitu.output' = \"" + config.output +
                      "\": HDF5 output is not available in this build yet; set output = \"\"");
  }
  if (!config.png.empty()) {
    const std::filesystem::path dir = std::filesystem::path(config.png).parent_path();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec || (!dir.empty() && !std::filesystem::is_directory(dir))) {
      throw ConfigError("key 'insitu.png' = \"" + config.png + "\": cannot create directory " +
                        dir.string() + (ec ? ": " + ec.message() : ""));
    }
  }
  return config;
}

}  // namespace

InsituRenderer::InsituRenderer(const std::string& input_file,
                               const std::vector<std::string>& fields,
                               const std::vector<std::string>& overrides)
    : InsituRenderer(load_insitu_config(input_file, overrides), fields) {}

InsituRenderer::InsituRenderer(InsituConfig config, const std::vector<std::string>& fields)
    : config_(checked(std::move(config), fields)),
      renderer_(config_.backend),
      log_([](const std::string& line) { std::cerr << line << std::endl; }) {}

InsituRenderer::~InsituRenderer() = default;

void InsituRenderer::set_logger(std::function<void(const std::string&)> logger) {
  log_ = std::move(logger);
}

bool InsituRenderer::due(std::int64_t step, double time) const noexcept {
  if (config_.every > 0 && step % config_.every == 0) return true;
  return config_.every_time > 0.0 && time >= next_time_mark_ - time_tolerance(config_.every_time);
}

const FrameRecord& InsituRenderer::render(std::int64_t step, double time,
                                          const SimulationParticles& particles) noexcept {
  last_ = FrameRecord{};
  last_.step = step;
  last_.time = time;
  if (!due(step, time)) return last_;
  if (config_.every_time > 0.0) {
    const double marks = std::floor(time / config_.every_time + 1e-9);
    next_time_mark_ = (marks + 1.0) * config_.every_time;
  }
  try {
    render_frame(step, time, particles);
    last_.rendered = true;
    ++counters_.rendered;
    counters_.render_ms += last_.stats.total_ms;
    counters_.output_ms += last_.output_ms;
  } catch (const std::exception& e) {
    last_.error = e.what();
  } catch (...) {
    last_.error = "unknown error";
  }
  if (!last_.rendered) {
    ++counters_.failed;
    try {
      log_("granray: frame at step " + std::to_string(step) + " skipped: " + last_.error);
    } catch (...) {
      // A failing logger must not take the simulation down either.
    }
  }
  return last_;
}

void InsituRenderer::render_frame(std::int64_t step, double time,
                                  const SimulationParticles& particles) {
  (void)time;
  ParticleView view = particles.view;
  view.scalar = nullptr;
  if (config_.color) {
    view.scalar = particles.field(config_.color->field);
    if (view.scalar == nullptr) {
      throw Error("field \"" + config_.color->field + "\" was not passed with this frame");
    }
  }
  last_.stats = renderer_.render(view, config_.render, image_);
  const auto start = std::chrono::steady_clock::now();
  if (!config_.png.empty()) {
    last_.png_path = io::expand_frame_pattern(config_.png, step, kStepDigits);
    io::write_png(last_.png_path, image_);
  }
  last_.output_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace granray
