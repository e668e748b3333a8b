// What each in-situ frame cost granray-dem's time loop, stage by stage and rank by rank, and the
// medians the run reports at its end: the numbers a scaling run is judged by.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "granray/insitu/insitu_renderer.h"

namespace granray::dem {

struct FrameTiming {
  RenderMethod method = RenderMethod::grid;  // rank 0's: the grid, or the CPU's screen tiles
  double grid_ms = 0.0;                      // the slowest rank's grid build (or tiles' binning)
  double render_ms = 0.0;                    // the slowest rank's ray casting
  double composite_ms = 0.0;  // rank 0's compositing (it ends last: it gathers the rows)
  double output_ms = 0.0;     // handing the frame to the writer thread
  double sent_mb = 0.0;       // the most any rank sent the others (lit frames across ranks)
  double frame_ms = 0.0;      // all the time loop spent on the frame, on rank 0
  // Grid build + ray casting of the fastest and the slowest rank: their difference is the time
  // the others wait for the slowest before compositing can start.
  double fastest_rank_ms = 0.0;
  double slowest_rank_ms = 0.0;
  int slowest_rank = 0;
};

// `frame_ms` is what the caller measured around InsituRenderer::render.
FrameTiming frame_timing(const FrameRecord& frame, double frame_ms);

// The frames a run's medians are taken over, in bounded memory: the first frame (it pays for
// allocations and start-up), then every later one until `kCapacity` are held, then an evenly
// spaced sample (every 2nd, every 4th, ...) of all of them. A week-long run with a frame every
// step keeps what a short one keeps.
class FrameTimingSample {
 public:
  static constexpr std::size_t kCapacity = 2048;
  void add(const FrameTiming& t);
  std::size_t seen() const { return seen_; }                      // frames added
  const std::vector<FrameTiming>& kept() const { return kept_; }  // first, then the sample

 private:
  std::vector<FrameTiming> kept_;
  std::size_t seen_ = 0;
  std::size_t stride_ = 1;  // later frames kept: every stride-th
};

// Medians of each stage over the sampled frames after the first (with one frame, that one), and
// the rank that was slowest most often.
struct TimingSummary {
  std::size_t frames = 0;        // frames the medians are over
  std::size_t sampled_from = 0;  // frames those were sampled from
  FrameTiming median;
};
TimingSummary summarize(const FrameTimingSample& sample);

// One line for the log: "grid 1.20 ms, render 0.50 ms, ..." ("tiles 1.20 ms" when they ran).
std::string describe(const FrameTiming& t, int ranks);

}  // namespace granray::dem
