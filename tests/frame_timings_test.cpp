// granray-dem's per-frame timings: a run of any length keeps a bounded, evenly spaced sample.
#include "frame_timings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "test_support.h"

namespace granray::test {
namespace {

dem::FrameTiming timing(double frame_ms) {
  dem::FrameTiming t;
  t.frame_ms = frame_ms;
  t.render_ms = 0.5 * frame_ms;
  return t;
}

TEST(FrameTimings, ALongRunKeepsAnEvenSampleInBoundedMemory) {
  Rng rng(fresh_seed());
  const std::size_t runs[] = {
      1, 2, 3, 2049, 2050, std::uniform_int_distribution<std::size_t>(3000, 40000)(rng)};
  for (const std::size_t frames : runs) {
    SCOPED_TRACE(frames);
    // Frame k takes k ms, after a slow first frame: the median of the later ones is known.
    dem::FrameTimingSample sample;
    sample.add(timing(1e6));
    for (std::size_t k = 1; k < frames; ++k) sample.add(timing(double(k)));
    const auto& kept = sample.kept();
    EXPECT_EQ(sample.seen(), frames);
    ASSERT_LE(kept.size(), dem::FrameTimingSample::kCapacity + 1);
    EXPECT_EQ(kept.front().frame_ms, 1e6);
    if (frames > 2 * dem::FrameTimingSample::kCapacity) {
      EXPECT_GE(kept.size(), dem::FrameTimingSample::kCapacity / 2);
    }
    // Later frames kept are 1, 1 + s, 1 + 2s, ... for one stride s.
    for (std::size_t i = 2; i < kept.size(); ++i) {
      EXPECT_EQ(kept[i].frame_ms - kept[i - 1].frame_ms, kept[2].frame_ms - kept[1].frame_ms);
    }
    const dem::TimingSummary summary = dem::summarize(sample);
    EXPECT_EQ(summary.frames, kept.size() > 1 ? kept.size() - 1 : 1);
    EXPECT_EQ(summary.sampled_from, frames > 1 ? frames - 1 : 1);
    if (frames == 1) {
      EXPECT_EQ(summary.median.frame_ms, 1e6);
      continue;
    }
    // The whole run's median is frames / 2; the sample's lies within one stride of it.
    const double stride = kept.size() > 2 ? kept[2].frame_ms - kept[1].frame_ms : 1.0;
    EXPECT_NEAR(summary.median.frame_ms, 0.5 * double(frames), stride);
    EXPECT_EQ(summary.median.render_ms, 0.5 * summary.median.frame_ms);
  }
}

}  // namespace
}  // namespace granray::test
