// The in-situ plugin: one object per simulation, one call in the time loop.
//
//   granray::InsituRenderer vis("input.toml", {"speed"});    // reads [insitu]; fields offered
//   for (step = 0; ...) {
//     if (vis.due(step, time)) vis.render(step, time, adapters::device_particles(x, n, stream)
//                                                          .with_field("speed", speed));
//   }
//
// Under MPI, pass granray::mpi::rank_group(comm) (granray/insitu/mpi_frame.h): every rank calls
// render() with its own particles, the frame is composited across the ranks and rank 0 writes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "granray/image.h"
#include "granray/insitu/config.h"
#include "granray/insitu/rank_group.h"
#include "granray/insitu/simulation_particles.h"
#include "granray/io/frame_writer.h"
#include "granray/renderer.h"

namespace granray {

struct FrameRecord {
  std::int64_t step = 0;
  double time = 0.0;
  bool rendered = false;  // false: skipped, `error` says why
  std::string error;
  FrameStats stats;
  double output_ms = 0.0;  // handing the frame to the writer, waiting for room included
  bool dropped = false;    // rendered, but dropped because the writer was behind (drop = true)
  std::string png_path;    // "" when no PNG is written
};

struct InsituCounters {
  std::uint64_t rendered = 0;
  std::uint64_t failed = 0;   // frames skipped because rendering failed
  std::uint64_t banded = 0;   // frames too large for the tile budget, rendered in bands of rows
  std::uint64_t written = 0;  // frames durable on disk (HDF5 and/or PNG)
  std::uint64_t dropped = 0;  // frames dropped because the writer was behind (drop = true)
  std::uint64_t lost = 0;     // frames whose writing failed (full disk, ...)
  double render_ms = 0.0;     // summed over rendered frames
  double output_ms = 0.0;     // time the time loop spent handing frames to the writer
};

class InsituRenderer {
 public:
  // Reads the [insitu] table of the simulation's input file. `fields` names the scalars the
  // simulation offers to colour by; overrides are "key=value" relative to [insitu].
  // Throws ConfigError (unknown key, wrong type, impossible value, unknown field) or DeviceError
  // (backend "cuda" without a GPU): mistakes show at start-up, not hours into a run.
  // With a rank group the constructor is collective: when rank 0 cannot open the output, every
  // rank throws.
  InsituRenderer(const std::string& input_file, const std::vector<std::string>& fields,
                 const std::vector<std::string>& overrides = {},
                 std::shared_ptr<RankGroup> ranks = nullptr);
  InsituRenderer(InsituConfig config, const std::vector<std::string>& fields,
                 std::shared_ptr<RankGroup> ranks = nullptr);
  ~InsituRenderer();

  const InsituConfig& config() const { return config_; }
  BackendKind backend() const { return renderer_.backend(); }

  // Whether a frame is due at this step: step a multiple of `every`, or the first step at or
  // past the next multiple of `every_time`. Cheap; call it every step.
  bool due(std::int64_t step, double time) const noexcept;

  // Renders and writes the frame if it is due. Never throws: a failure (no memory, a broken
  // buffer, a full disk) skips the frame, is counted and logged, and the next frame is tried.
  // With a rank group it is collective, and a failure on any rank skips the frame on all.
  // Returns the record of this frame (rendered = false and empty error when it was not due).
  const FrameRecord& render(std::int64_t step, double time,
                            const SimulationParticles& particles) noexcept;

  InsituCounters counters() const;

  // Waits until every frame handed over is written (or lost). The destructor does it too.
  void finish();
  const FrameRecord& last_frame() const { return last_; }

  // The most memory a frame may take on the backend (Renderer::set_memory_limit): a frame that
  // needs more is skipped and recorded, as when the device itself runs out.
  void set_memory_limit(std::size_t bytes) { renderer_.set_memory_limit(bytes); }

  // Where failures, drops and lost frames are reported (default: standard error). The writer
  // thread calls it too: set it before the first frame.
  void set_logger(std::function<void(const std::string&)> logger);

 private:
  void render_frame(std::int64_t step, double time, const SimulationParticles& particles);
  // Renders into `image`; `same_particles`: a further view of the frame just rendered.
  FrameStats render_image(const ParticleView& view, const RenderSettings& settings, Image& image,
                          bool same_particles);
  std::vector<io::ViewJob> render_views(const ParticleView& view, const RenderSettings& settings,
                                        std::int64_t step, double time);
  std::string png_path(const std::string& view, std::int64_t step) const;
  int agreed_band_rows(const RenderSettings& settings, std::size_t budget);
  void check_bands_fit(const RenderSettings& settings, std::size_t budget);
  FrameStats render_banded(const ParticleView& view, const RenderSettings& settings, int rows,
                           Image& target);

  InsituConfig config_;
  std::shared_ptr<RankGroup> ranks_;
  Renderer renderer_;
  std::function<void(const std::string&)> log_;
  std::unique_ptr<io::FrameWriter> writer_;  // after log_: its thread logs through it
  Image image_;
  FrameRecord last_;
  InsituCounters counters_;
  double next_time_mark_ = 0.0;
  bool warned_empty_selection_ = false;
  bool warned_no_contacts_ = false;  // [insitu.contacts] without pairs from the simulation
};

}  // namespace granray
