#include "frame_timings.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace granray::dem {

FrameTiming frame_timing(const FrameRecord& frame, double frame_ms) {
  const FrameStats& s = frame.stats;
  FrameTiming t;
  t.method = s.method;
  t.grid_ms = s.grid_ms;
  t.render_ms = s.render_ms;
  t.composite_ms = s.composite_ms;
  t.output_ms = frame.output_ms;
  t.frame_ms = frame_ms;
  t.fastest_rank_ms = t.slowest_rank_ms = s.grid_ms + s.render_ms;
  for (std::size_t r = 0; r < s.ranks.size(); ++r) {
    const RankStats& rank = s.ranks[r];
    const double work = rank.grid_ms + rank.render_ms;
    t.sent_mb = std::max(t.sent_mb, rank.exchange_bytes / 1e6);
    t.grid_ms = std::max(t.grid_ms, rank.grid_ms);
    t.render_ms = std::max(t.render_ms, rank.render_ms);
    if (r == 0 || work < t.fastest_rank_ms) t.fastest_rank_ms = work;
    if (r == 0 || work > t.slowest_rank_ms) {
      t.slowest_rank_ms = work;
      t.slowest_rank = static_cast<int>(r);
    }
  }
  return t;
}

namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(values.begin(), values.begin() + mid));
}

}  // namespace

void FrameTimingSample::add(const FrameTiming& t) {
  const std::size_t later = seen_++;  // 0 for the first frame
  if (later > 0 && (later - 1) % stride_ != 0) return;
  kept_.push_back(t);
  if (kept_.size() < kCapacity + 1) return;
  // Full: keep every other later frame (those a stride twice as long would have kept).
  std::size_t out = 1;
  for (std::size_t i = 1; i < kept_.size(); i += 2) kept_[out++] = kept_[i];
  kept_.resize(out);
  stride_ *= 2;
}

TimingSummary summarize(const FrameTimingSample& sample) {
  const std::vector<FrameTiming>& frames = sample.kept();
  TimingSummary summary;
  const std::size_t first = frames.size() > 1 ? 1 : 0;
  summary.frames = frames.size() - first;
  summary.sampled_from = sample.seen() - first;
  if (summary.frames == 0) return summary;
  const auto over = [&](double FrameTiming::*field) {
    std::vector<double> values;
    for (std::size_t i = first; i < frames.size(); ++i) values.push_back(frames[i].*field);
    return median(std::move(values));
  };
  FrameTiming& m = summary.median;
  m.method = frames.back().method;
  m.grid_ms = over(&FrameTiming::grid_ms);
  m.render_ms = over(&FrameTiming::render_ms);
  m.composite_ms = over(&FrameTiming::composite_ms);
  m.output_ms = over(&FrameTiming::output_ms);
  m.sent_mb = over(&FrameTiming::sent_mb);
  m.frame_ms = over(&FrameTiming::frame_ms);
  m.fastest_rank_ms = over(&FrameTiming::fastest_rank_ms);
  m.slowest_rank_ms = over(&FrameTiming::slowest_rank_ms);
  std::map<int, std::size_t> slowest;
  for (std::size_t i = first; i < frames.size(); ++i) ++slowest[frames[i].slowest_rank];
  m.slowest_rank =
      std::max_element(slowest.begin(), slowest.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  return summary;
}

std::string describe(const FrameTiming& t, int ranks) {
  char line[320];
  if (ranks > 1) {
    std::snprintf(line, sizeof line,
                  "%s %.2f ms, render %.2f ms, composite %.2f ms, output %.2f ms, frame %.2f ms; "
                  "%s+render over ranks %.2f-%.2f ms (slowest rank %d), sent %.2f MB",
                  render_method_name(t.method), t.grid_ms, t.render_ms, t.composite_ms, t.output_ms,
                  t.frame_ms, render_method_name(t.method), t.fastest_rank_ms, t.slowest_rank_ms,
                  t.slowest_rank, t.sent_mb);
  } else {
    std::snprintf(line, sizeof line, "%s %.2f ms, render %.2f ms, output %.2f ms, frame %.2f ms",
                  render_method_name(t.method), t.grid_ms, t.render_ms, t.output_ms, t.frame_ms);
  }
  return line;
}

}  // namespace granray::dem
