#include "granray/insitu/insitu_renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>

#include "granray/errors.h"
#include "granray/insitu/frame_outputs.h"
#include "granray/io/frame_pattern.h"
#include "granray/tiled_render.h"

namespace granray {
namespace {

// PNG names carry the step zero-padded to this many digits, so frames sort by name.
constexpr int kStepDigits = 8;

// Time marks compare with a tolerance: a simulated time summed from dt lands a few ulps off.
double time_tolerance(double every_time) { return 1e-9 * every_time; }

// A field the configuration names ('insitu.color.field', 'insitu.select.field',
// 'insitu.materials[k].field') must be one the simulation offers.
void require_offered(const std::vector<std::string>& fields, const std::string& field,
                     const std::string& key) {
  if (std::find(fields.begin(), fields.end(), field) != fields.end()) return;
  std::string list;
  for (const auto& f : fields) list += (list.empty() ? "" : ", ") + f;
  throw ConfigError("key '" + key + "': the simulation offers no field \"" + field +
                    "\" (it offers: " + (list.empty() ? "none" : list) + ")");
}

InsituConfig checked(InsituConfig config, const std::vector<std::string>& fields,
                     bool writes_output) {
  for (const FieldKey& named : field_keys(config)) require_offered(fields, named.field, named.key);
  if (writes_output && !config.png.empty()) {
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

std::unique_ptr<io::FrameWriter> make_writer(const InsituConfig& config,
                                             std::function<void(const std::string&)> log) {
  io::WriterOptions options;
  options.outputs = frame_outputs(config, false);
  if (options.outputs.hdf5_path.empty() && config.png.empty() && options.outputs.cinema.empty()) {
    return nullptr;
  }
  options.views = config.views.size();
  options.queue = static_cast<std::size_t>(config.queue);
  options.drop = config.drop;
  options.log = std::move(log);
  try {
    return std::make_unique<io::FrameWriter>(std::move(options));
  } catch (const OutputError& e) {
    throw ConfigError(frame_output_keys(config) + ": " + e.what());
  }
}

}  // namespace

InsituRenderer::InsituRenderer(const std::string& input_file,
                               const std::vector<std::string>& fields,
                               const std::vector<std::string>& overrides,
                               std::shared_ptr<RankGroup> ranks)
    : InsituRenderer(load_insitu_config(input_file, overrides), fields, std::move(ranks)) {}

InsituRenderer::InsituRenderer(InsituConfig config, const std::vector<std::string>& fields,
                               std::shared_ptr<RankGroup> ranks)
    : config_(checked(std::move(config), fields, !ranks || ranks->rank() == 0)),
      ranks_(std::move(ranks)),
      renderer_(config_.backend),
      log_([](const std::string& line) { std::cerr << line << std::endl; }) {
  if (!ranks_) {
    writer_ = make_writer(config_, [this](const std::string& line) { log_(line); });
    return;
  }
  // Only rank 0 writes; every rank must learn whether it could, or the others would wait for it
  // in the first frame's collectives.
  std::exception_ptr failure;
  if (ranks_->rank() == 0) {
    try {
      writer_ = make_writer(config_, [this](const std::string& line) { log_(line); });
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (!ranks_->all(failure == nullptr)) {
    if (failure) std::rethrow_exception(failure);
    throw ConfigError("rank 0 cannot open the output of [insitu] (its error says why)");
  }
}

InsituRenderer::~InsituRenderer() = default;

InsituCounters InsituRenderer::counters() const {
  InsituCounters c = counters_;
  if (writer_) {
    const io::WriterCounters w = writer_->counters();
    c.written = w.written;
    c.dropped = w.dropped;
    c.lost = w.lost;
  }
  return c;
}

void InsituRenderer::finish() {
  if (writer_) writer_->drain();
}

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

// The configured walls with this frame's moves applied: a new list, so the renderer rebuilds
// the walls' tree for the frames where something moved and keeps it for the others.
static RenderSettings settings_with_moved_walls(
    const RenderSettings& configured, const std::vector<SimulationParticles::WallMotion>& moves) {
  if (moves.empty()) return configured;
  RenderSettings settings = configured;
  auto walls = std::make_shared<WallList>(configured.walls ? *configured.walls : WallList{});
  for (const SimulationParticles::WallMotion& move : moves) {
    const auto wall = std::find_if(walls->begin(), walls->end(),
                                   [&](const Wall& w) { return w.name == move.name; });
    if (wall == walls->end()) {
      throw ConfigError("the simulation moved wall \"" + move.name +
                        "\", but no [[insitu.walls]] table has that name");
    }
    if (move.triangles != nullptr || move.count > 0) {
      wall->triangles.clear();
      wall->in_place = move.triangles;
      wall->in_place_count = move.count;
      wall->in_place_space = move.space;
    } else {
      wall->triangles = transformed(wall->triangles, move.transform);
    }
  }
  settings.walls = walls;
  return settings;
}

// Rows per band of this frame: the whole window when its buffers fit the tile budget. Across
// ranks every rank must cast the same bands, so they agree on the largest power-of-two share of
// the window that fits every rank's budget.
int InsituRenderer::agreed_band_rows(const RenderSettings& settings, std::size_t budget) {
  const PixelRect window = render_window(settings);
  const int height = window.y1 - window.y0;
  const int rows = band_rows(settings, budget);
  return ranks_ ? agree_on_band_rows(*ranks_, rows, height) : rows;
}

FrameStats InsituRenderer::render_image(const ParticleView& view, const RenderSettings& settings,
                                        Image& image, bool same_particles) {
  const PixelRect window = render_window(settings);
  const int height = window.y1 - window.y0;
  const std::size_t budget = tile_budget(renderer_, config_.tile_memory);
  int rows = agreed_band_rows(settings, budget);
  if (rows < height) check_bands_fit(settings, budget);
  if (rows >= height) {
    try {
      // The writer settles the image on its own thread: the GPU's copy of the pixels then runs
      // beside the simulation's next steps instead of inside this call.
      RenderOptions options;
      options.defer_pixels = writer_ != nullptr;
      options.same_particles = same_particles;
      return ranks_ ? ranks_->render_band(renderer_, view, settings, image, same_particles)
                    : renderer_.render(view, settings, image, options);
    } catch (const OutOfMemoryError&) {
      // The estimate missed (another process took the memory): on one rank, bands instead of a
      // skipped frame. Across ranks every rank has thrown; the frame is skipped.
      if (ranks_ || height < 2) throw;
      rows = (height + 1) / 2;
    }
  }
  for (;;) {
    try {
      return render_banded(view, settings, rows, image);
    } catch (const OutOfMemoryError&) {
      if (ranks_ || rows < 2) throw;
      rows = (rows + 1) / 2;
    }
  }
}

// Bands need a row to fit the tile budget and the whole image to fit the host, where the writer
// takes it; otherwise the frame is skipped.
void InsituRenderer::check_bands_fit(const RenderSettings& settings, std::size_t budget) {
  const PixelRect window = render_window(settings);
  const std::size_t width = std::size_t(window.x1 - window.x0);
  const std::size_t image = width * std::size_t(window.y1 - window.y0) * 3;
  const std::size_t row = width * frame_bytes_per_pixel(settings);
  const auto mib = [](std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; };
  if (row > budget) {
    throw OutOfMemoryError("granray: out of memory: a row of the image needs " +
                           std::to_string(row >> 10) + " KiB of rendering buffers, more than the " +
                           std::to_string(budget >> 10) + " KiB tile budget");
  }
  const std::size_t host = host_memory_available();
  if (image > host / 2) {
    throw OutOfMemoryError("granray: out of memory: the " + std::to_string(width) + " x " +
                           std::to_string(window.y1 - window.y0) + " image needs " + mib(image) +
                           " on the host, and only " + mib(host) + " are free");
  }
}

// A frame larger than the memory it may use (a poster): band after band of rows, each a window
// of the same frame, put together in the host image. Bands render without deferred copies; on
// one rank the later bands reuse the first's measures and grid.
FrameStats InsituRenderer::render_banded(const ParticleView& view, const RenderSettings& settings,
                                         int rows, Image& target) {
  const PixelRect window = render_window(settings);
  const int width = window.x1 - window.x0;
  const bool writes = !ranks_ || ranks_->rank() == 0;
  settle(target);
  target.width = width;
  target.height = window.y1 - window.y0;
  if (writes) target.rgb.resize(std::size_t(width) * target.height * 3);
  target.depth.clear();
  target.hit_id.clear();
  const FrameStats total = render_bands(
      settings, rows, bands_of(ranks_.get(), renderer_, view),
      [&](const PixelRect& band, Image& image, const FrameStats&) {
        if (!writes) return;
        settle(image);
        std::copy(image.rgb.begin(), image.rgb.end(),
                  target.rgb.begin() + std::ptrdiff_t(band.y0 - window.y0) * width * 3);
      });
  ++counters_.banded;
  return total;
}

std::string InsituRenderer::png_path(const std::string& view, std::int64_t step) const {
  if (config_.png.empty()) return "";
  return io::expand_frame_pattern(io::expand_view_pattern(config_.png, view), step, kStepDigits);
}

// contract 2f: each further view from the same particles, whose grid the main view built. Only the
// writing rank keeps the images (the others' are composited away).
std::vector<io::ViewJob> InsituRenderer::render_views(const ParticleView& view,
                                                      const RenderSettings& settings,
                                                      std::int64_t step, double time) {
  std::vector<io::ViewJob> jobs;
  for (const ViewSettings& camera : config_.views) {
    RenderSettings view_settings = settings;
    view_settings.camera = camera.camera;
    io::ViewJob job;
    job.name = camera.name;
    if (writer_) job.image = writer_->recycled_image();  // pages touched: no faults per frame
    const FrameStats stats = render_image(view, view_settings, job.image, true);
    job.camera = stats.camera;
    job.annotation_values = annotation_values(config_, stats, step, time);
    job.png_path = png_path(camera.name, step);
    job.orbit = camera.orbit;
    job.theta = camera.camera.theta;
    job.phi = camera.camera.phi;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

void InsituRenderer::render_frame(std::int64_t step, double time,
                                  const SimulationParticles& particles) {
  ParticleView view = particles.view;
  std::string problem = particles.unusable;
  // Each field the configuration reads, from the simulation's own buffers; the colour field
  // serves the selection and the materials where they name it too.
  const io::FieldNames names = field_names(config_);
  const auto take = [&](const std::string& name, const float*& into) {
    into = nullptr;
    if (name.empty() || !problem.empty()) return;
    into = particles.field(name);
    // A rank with no particles may pass its (empty) field as a null pointer.
    if (!particles.has_field(name) || (into == nullptr && view.count > 0)) {
      problem = "field \"" + name + "\" was not passed with this frame";
    }
  };
  take(names.color, view.scalar);
  take(names.select, view.select_scalar);
  for (int slot = 0; slot < kMaterialFields; ++slot) {
    const std::string& name = names.materials[slot];
    take(name == names.color ? std::string() : name, view.material_values[slot]);
  }
  // Across ranks, a rank that cannot take part must not leave the others in a collective.
  if (ranks_ && !ranks_->all(problem.empty()) && problem.empty()) {
    problem = "another rank could not pass its particles (its log says why)";
  }
  if (!problem.empty()) throw Error(problem);
  if (config_.render.contacts && !particles.passes_contacts && view.contacts.value == nullptr &&
      !warned_no_contacts_ && (!ranks_ || ranks_->rank() == 0)) {
    warned_no_contacts_ = true;  // once: the simulation will not start passing them
    log_(
        "granray: warning: [insitu.contacts] is set, but this simulation passes no contact "
        "pairs with its particles: no network is drawn");
  }
  RenderSettings settings = settings_with_moved_walls(config_.render, particles.walls);
  settings.camera = frame_camera(config_.camera_path, config_.render.camera, step, time);
  if (writer_ && image_.rgb.empty()) image_ = writer_->recycled_image();
  last_.stats = render_image(view, settings, image_, false);
  std::vector<io::ViewJob> views = render_views(view, settings, step, time);
  const FrameStats& s = last_.stats;
  // Across ranks the counts are every rank's (render_distributed sums them); rank 0 says it.
  if (config_.select && (!ranks_ || ranks_->rank() == 0) && !warned_empty_selection_ &&
      s.particles > s.skipped && s.hidden == s.particles - s.skipped) {
    warned_empty_selection_ = true;  // once: a bed may stay outside the range for long
    log_("granray: warning: [insitu.select] " + config_.select->field + " in [" +
         std::to_string(config_.render.select->lo) + ", " +
         std::to_string(config_.render.select->hi) + "] keeps none of the " +
         std::to_string(s.particles - s.skipped) + " grains at step " + std::to_string(step) +
         ": the frame shows the background");
  }
  if (!writer_) return;

  io::FrameJob job;
  job.meta = io::frame_metadata(last_.stats, step, time);
  job.annotations = config_.annotations;
  job.window = render_window(settings);
  job.full_width = settings.width;
  job.full_height = settings.height;
  job.annotation_values = annotation_values(config_, last_.stats, step, time);
  if (!config_.png.empty()) {
    last_.png_path = png_path(io::kMainView, step);
    job.png_path = last_.png_path;
  }
  job.views = std::move(views);
  const auto start = std::chrono::steady_clock::now();
  job.image = std::move(image_);
  image_ = Image{};
  last_.dropped = !writer_->submit(std::move(job));
  last_.output_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace granray
