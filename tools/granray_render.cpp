// granray-render: renders particle files with the plugin's settings and renderer (contract 4).
// Under mpirun each rank renders an equal share of every frame's particles, the frame is
// composited across the ranks, and rank 0 writes it.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contact_pairs.h"
#include "frame_source.h"
#include "granray/errors.h"
#include "granray/insitu/config.h"
#include "granray/insitu/frame_outputs.h"
#include "granray/insitu/rank_group.h"
#include "granray/io/annotations.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/frame_sinks.h"
#include "granray/io/particle_file.h"
#include "granray/io/spatial_share.h"
#include "granray/io/stl_file.h"
#include "granray/renderer.h"
#include "granray/tiled_render.h"
#include "serial_worker.h"

#if defined(GRANRAY_RENDER_HAVE_MPI)
#include "granray/insitu/mpi_frame.h"
#endif

namespace {

using granray::tools::FrameSource;
using granray::tools::NamedFrame;

// "\rgranray-render: 3/10 frames, 2.1 frames/s, 3 s left", rewritten in place.
void print_progress(std::size_t done, std::size_t total,
                    std::chrono::steady_clock::time_point start) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = seconds > 0.0 ? static_cast<double>(done) / seconds : 0.0;
  const double left = rate > 0.0 ? static_cast<double>(total - done) / rate : 0.0;
  std::fprintf(stderr, "\rgranray-render: %zu/%zu frames, %.2f frames/s, %.0f s left   ", done,
               total, rate, left);
  std::fflush(stderr);
}

struct Options {
  std::string config;
  std::vector<std::string> overrides;
  std::string format = "auto";
  std::vector<std::string> inputs;
  std::string out;
  std::vector<std::string> meshes;  // STL walls; '*' becomes the frame's step
  std::string contacts;             // contract 2g: dump local of contacts; '*' becomes the step
  std::string contact_columns = "pos id force";
};

// The --mesh walls of each frame, after the configuration's: read once when no name has a '*',
// else again for each step (LIGGGHTS `dump mesh/stl` writes one file per step).
class MeshWalls {
 public:
  explicit MeshWalls(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {}

  const granray::RenderSettings& settings_for(const granray::RenderSettings& configured,
                                              std::int64_t step) {
    if (patterns_.empty()) return configured;
    bool per_step = false;
    for (const std::string& p : patterns_)
      per_step = per_step || granray::io::has_frame_placeholder(p);
    if (settings_.walls && !per_step) return settings_;
    settings_ = configured;
    auto walls = std::make_shared<granray::WallList>(configured.walls ? *configured.walls
                                                                      : granray::WallList{});
    for (const std::string& pattern : patterns_) {
      granray::Wall wall;
      wall.name = pattern;
      wall.triangles = granray::io::read_stl(granray::io::expand_frame_pattern(pattern, step));
      walls->push_back(std::move(wall));
    }
    settings_.walls = walls;
    return settings_;
  }

 private:
  std::vector<std::string> patterns_;
  granray::RenderSettings settings_;
};

// What the writer thread needs of a frame being written band by band.
struct FrameOutput {
  std::string path;
  granray::FrameStats stats;  // the first band's, with the times of all bands summed
};

// The outputs every frame goes to (the plugin's sinks: image files, HDF5, Cinema); rank 0's.
using Sinks = std::vector<std::unique_ptr<granray::io::FrameSink>>;

std::string frame_path(const std::string& pattern, const std::string& view, std::int64_t step) {
  return granray::io::expand_frame_pattern(granray::io::expand_view_pattern(pattern, view), step);
}

// contract 2f: a further view of a snapshot, rendered whole from the particles whose grid the main
// view built, for the writer thread.
struct RenderedView {
  std::string name;
  std::string path;
  granray::Image image;
  granray::FrameStats stats;
  bool orbit = false;  // one of [insitu.orbit]'s ring, at the camera's theta and phi
  float theta = 0.0f, phi = 0.0f;
};

std::shared_ptr<std::vector<RenderedView>> render_views(
    const granray::InsituConfig& config, granray::Renderer& renderer, granray::RankGroup* ranks,
    const granray::ParticleView& view, const granray::RenderSettings& settings, int rows,
    const NamedFrame& frame, const std::string& out) {
  using namespace granray;
  auto views = std::make_shared<std::vector<RenderedView>>();
  const PixelRect window = render_window(settings);
  for (const ViewSettings& camera : config.views) {
    RenderedView v{camera.name,
                   frame_path(out, camera.name, frame.number),
                   {},
                   {},
                   camera.orbit,
                   camera.camera.theta,
                   camera.camera.phi};
    v.image.width = window.x1 - window.x0;
    v.image.height = window.y1 - window.y0;
    v.image.rgb.resize(std::size_t(v.image.width) * v.image.height * 3);
    RenderSettings view_settings = settings;
    view_settings.camera = camera.camera;
    const RenderBand bands = bands_of(ranks, renderer, view);
    v.stats = render_bands(
        view_settings, rows,
        [&](const RenderSettings& band, Image& image, bool) { return bands(band, image, true); },
        [&](const PixelRect& band, Image& image, const FrameStats&) {
          settle(image);
          std::copy(image.rgb.begin(), image.rgb.end(),
                    v.image.rgb.begin() + std::ptrdiff_t(band.y0 - window.y0) * v.image.width * 3);
        });
    views->push_back(std::move(v));
  }
  return views;
}

// On the writer thread, after the frame's last band: the views' annotations, every view to
// every sink, then the frame's end (a Cinema database writes its ring then: the views' images
// live until it has).
void finish_frame(const granray::InsituConfig& config, const std::vector<RenderedView>& rendered,
                  const Sinks& sinks, const granray::io::FrameMetadata& meta) {
  using namespace granray;
  std::vector<Image> images;  // annotated copies
  images.reserve(rendered.size());
  std::vector<io::SinkView> views;
  for (const RenderedView& v : rendered) {
    images.push_back(v.image);
    if (io::any_annotation(config.annotations)) {
      io::draw_annotations(images.back(), config.annotations,
                           annotation_values(config, v.stats, meta.step, meta.time),
                           render_window(config.render), config.render.width, config.render.height);
    }
    views.push_back({v.name, &images.back(), v.stats.camera, v.path, v.orbit, v.theta, v.phi});
  }
  for (const auto& sink : sinks) {
    for (const io::SinkView& view : views) sink->write_view(view);
    sink->end_frame(meta);
  }
}

// `ranks` is null for a one-rank run.
int run(const Options& options, granray::RankGroup* ranks) {
  using namespace granray;
  const int rank = ranks ? ranks->rank() : 0, size = ranks ? ranks->ranks() : 1;
  const InsituConfig config = options.config.empty()
                                  ? parse_insitu_config("", "<defaults>", options.overrides)
                                  : load_insitu_config(options.config, options.overrides);
  const io::ParticleFormat format = io::parse_particle_format(options.format);
  const bool numbered = io::has_frame_placeholder(options.out);
  if (!config.views.empty() && !io::has_view_placeholder(options.out)) {
    throw ConfigError("--out " + options.out + ": [[insitu.views]] need " + io::kViewPlaceholder +
                      " in the name, or every view writes the same file");
  }
  if (options.inputs.size() > 1 && !numbered) {
    throw ConfigError("--out " + options.out + ": " + std::to_string(options.inputs.size()) +
                      " inputs to write but no '*' in the name for the step");
  }
  FrameSource source(options.inputs, format, field_names(config));
  if (config.render.contacts && options.contacts.empty()) {
    throw ConfigError(
        "[insitu.contacts] draws the contact network, and granray-render reads it "
        "from --contacts FILE (a dump local of the pairs)");
  }
  RenderSettings configured = config.render;
  if (!options.contacts.empty() && !configured.contacts) configured.contacts = ContactSettings{};
  tools::ContactPairs contact_pairs(options.contacts, options.contact_columns,
                                    configured.contacts ? configured.contacts->field : "");

  // Rank 0 writes; every rank must learn when it cannot, or the others would wait for it.
  std::string failure;
  auto everyone_fine = [&] {
    const bool fine = ranks ? ranks->all(failure.empty()) : failure.empty();
    if (!fine && failure.empty()) failure = "rank 0 could not write (its error says why)";
    return fine;
  };
  const PixelRect window = render_window(config.render);
  const int width = window.x1 - window.x0, height = window.y1 - window.y0;
  Sinks sinks;
  if (rank == 0) {
    try {
      sinks = io::frame_sinks(frame_outputs(config, true));
    } catch (const Error& e) {
      failure = frame_output_keys(config) + ": " + e.what();
    }
  }
  if (!everyone_fine()) throw OutputError(failure);

  Renderer renderer(config.backend);
  MeshWalls meshes(options.meshes);
  // On a terminal, one line that updates (frames done, rate, time left) instead of a line per
  // frame; a redirected standard output still gets the per-frame lines.
  const bool progress = rank == 0 && isatty(STDERR_FILENO) != 0;
  const bool frame_lines = !progress || isatty(STDOUT_FILENO) == 0;
  const auto started = std::chrono::steady_clock::now();
  std::size_t done = 0, total = options.inputs.size();
  bool warned = false;  // about overlays that cannot be drawn: once
  // Rank 0 writes on this thread while the next band or frame renders; two bands wait at most.
  std::optional<tools::SerialWorker> writer;
  if (rank == 0) writer.emplace(2);
  const auto check_writer = [&] {
    if (!writer) return;
    try {
      writer->check();
    } catch (const Error& e) {
      if (failure.empty()) failure = e.what();
    }
  };
  std::size_t in_file = 0;
  bool first = true;
  while (std::optional<NamedFrame> next = source.next(&in_file)) {
    auto f = std::make_shared<NamedFrame>(std::move(*next));
    if (first && in_file > 1 && !numbered) {
      throw ConfigError("--out " + options.out + ": " + std::to_string(in_file) +
                        " frames to write but no '*' in the name for the step");
    }
    if (first) total += in_file - 1;
    first = false;
    RenderSettings settings = meshes.settings_for(configured, f->number);
    settings.camera =
        frame_camera(config.camera_path, config.render.camera, f->number, f->frame.time);
    // Under mpirun each rank renders a spatial share: equal counts in compact boxes, which the
    // halos of lit frames across ranks need, cut across the picture so that each rank draws
    // and lights its own part of it.
    const io::ParticleFrame share =
        size > 1 ? io::spatial_share(f->frame, rank, size, io::picture_axes(f->frame, settings))
                 : io::ParticleFrame{};
    ParticleView view = size > 1 ? share.view() : f->frame.view();
    if (contact_pairs.any()) {
      view.contacts = contact_pairs.view_for(f->number, f->frame, f->source, rank, size);
    }
    // A frame larger than the tile budget (a poster) renders band by band; each band is written
    // (PNG rows, HDF5 chunks) on the writer thread while the next one renders.
    // The host holds a few bands at once (one rendering, two waiting, one being written): each
    // at most kHostBandBytes of pixels, whatever the GPU could take.
    constexpr std::size_t kHostBandBytes = std::size_t{256} << 20;
    const int own_rows = std::min(
        band_rows(settings, tile_budget(renderer, config.tile_memory)),
        static_cast<int>(std::max<std::size_t>(1, kHostBandBytes / (3 * std::size_t(width)))));
    const int rows = ranks ? agree_on_band_rows(*ranks, own_rows, height) : own_rows;
    auto out = std::make_shared<FrameOutput>();
    out->path = frame_path(options.out, io::kMainView, f->number);
    if (writer) {
      writer->post([out, f, &sinks] {
        for (const auto& sink : sinks) sink->begin_frame({f->number, f->frame.time, out->path});
      });
    }
    // The path-traced still on a terminal: the paths per pixel done so far, as they are cast.
    RenderOptions render_options;
    if (progress && path_traced(settings)) {
      render_options.path_progress = [&, step = f->number](int paths, int all) {
        std::fprintf(stderr, "\rgranray-render: frame %lld: %d/%d paths per pixel   ",
                     static_cast<long long>(step), paths, all);
      };
    }
    render_bands(settings, rows, bands_of(ranks, renderer, view, render_options),
                 [&](const PixelRect& band, Image& rendered, const FrameStats& stats) {
                   if (band.y0 == window.y0) {
                     out->stats = stats;
                   } else {
                     add_band_stats(out->stats, stats);
                   }
                   if (!writer) return;
                   auto image = std::make_shared<Image>(std::move(rendered));
                   // Values, not references, of anything scoped to this frame: the writer runs
                   // later.
                   writer->post([&, image, band, f, out, full_width = settings.width,
                                 full_height = settings.height] {
                     settle(*image);
                     if (io::any_annotation(config.annotations)) {
                       const std::string why = io::draw_annotations(
                           *image, config.annotations,
                           annotation_values(config, out->stats, f->number, f->frame.time), band,
                           full_width, full_height);
                       if (!why.empty() && !warned) {
                         warned = true;
                         std::fprintf(stderr,
                                      "granray-render: frames are written without annotations: "
                                      "%s\n",
                                      why.c_str());
                       }
                     }
                     for (const auto& sink : sinks) sink->write_rows(*image);
                   });
                 });
    auto views = render_views(config, renderer, ranks, view, settings, rows, *f, options.out);
    if (writer) {
      // Values, not references, of this frame's locals (`rows`): the writer runs later.
      writer->post([&, f, out, views, rows] {
        finish_frame(config, *views, sinks,
                     io::frame_metadata(out->stats, f->number, f->frame.time));
        ++done;
        if (progress) print_progress(done, total, started);
        if (!frame_lines) return;
        const FrameStats& stats = out->stats;
        std::printf(
            "%s: step %lld, %llu particles (%llu skipped), %s backend, %s %.1f ms, "
            "render %.1f ms",
            f->source.c_str(), static_cast<long long>(f->number),
            static_cast<unsigned long long>(stats.particles),
            static_cast<unsigned long long>(stats.skipped), backend_name(renderer.backend()),
            render_method_name(stats.method), stats.grid_ms, stats.render_ms);
        if (size > 1) {
          double sent = 0.0;  // the most any rank sent the others
          for (const RankStats& r : stats.ranks) sent = std::max(sent, r.exchange_bytes);
          std::printf(", %d ranks, composite %.1f ms, sent %.2f MB", size, stats.composite_ms,
                      sent / 1e6);
        }
        std::printf(", frame %.1f ms", stats.total_ms);
        if (height > rows) std::printf(", %d bands", (height + rows - 1) / rows);
        std::printf(" -> %s%s%s\n", out->path.c_str(), config.output.empty() ? "" : " and ",
                    config.output.c_str());
        std::fflush(stdout);
      });
    }
    check_writer();
    if (!everyone_fine()) throw OutputError(failure);
  }
  if (writer) {
    try {
      writer->drain();
    } catch (const Error& e) {
      if (failure.empty()) failure = e.what();
    }
  }
  if (!everyone_fine()) throw OutputError(failure);
  if (progress) std::fprintf(stderr, "\n");
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
  app.add_option("--mesh", options.meshes,
                 "STL wall (repeatable); '*' becomes the frame's step (LIGGGHTS dump mesh/stl)")
      ->allow_extra_args(false);
  app.add_option("--contacts", options.contacts,
                 "contact pairs to draw as the force network ([insitu.contacts]): a LIGGGHTS or "
                 "LAMMPS dump local; '*' becomes the frame's step");
  app.add_option("--contact-columns", options.contact_columns,
                 "what the contact dump's columns hold, in its computes' keywords: \"pos id "
                 "force\" (LIGGGHTS pair/gran/local) or \"patom1 patom2 force\" (LAMMPS "
                 "property/local + pair/local)")
      ->capture_default_str();
  app.add_option("inputs", options.inputs, "particle files")->required();
  CLI11_PARSE(app, argc, argv);
  std::shared_ptr<granray::RankGroup> ranks;
#if defined(GRANRAY_RENDER_HAVE_MPI)
  // A plain run stays a one-rank run that never touches MPI.
  const bool mpi = granray::mpi::launched_by_mpi();
  if (mpi) MPI_Init(&argc, &argv);
#endif
  int status = 0;
  try {
#if defined(GRANRAY_RENDER_HAVE_MPI)
    if (mpi) {
      // One thread a core across the node; without a GPU the ranks render on the cores.
      const bool on_cpus = granray::mpi::use_node_local_gpu(MPI_COMM_WORLD) < 0;
      granray::mpi::share_cores(MPI_COMM_WORLD, on_cpus);
      ranks = granray::mpi::rank_group(MPI_COMM_WORLD);
      if (ranks->ranks() == 1) ranks.reset();
    }
#endif
    status = run(options, ranks.get());
  } catch (const granray::Error& e) {
    std::cerr << "granray-render: error: " << e.what() << "\n";
    status = 1;
  }
#if defined(GRANRAY_RENDER_HAVE_MPI)
  if (mpi) MPI_Finalize();
#endif
  return status;
}
