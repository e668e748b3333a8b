// The writer thread (io::FrameWriter): back-pressure and dropping when its queue is full, the
// images it lends to render into, and pending pixels settled before writing.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "granray/adapters/buffers.h"
#include "granray/errors.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/frame_writer.h"
#include "granray/io/hdf5_frame_file.h"
#include "granray/io/image_file.h"
#include "h5_read.h"
#include "hdf5_output_fixture.h"
#include "test_support.h"

namespace granray::test {
namespace {

TEST_F(Hdf5OutputTest, FullQueueMakesTheCallerWaitOrDrops) {
  for (const bool drop : {false, true}) {
    std::promise<void> entered, release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> first{true};
    io::WriterOptions o;
    o.queue = 2;
    o.drop = drop;
    o.before_write = [&](std::int64_t) {
      if (first.exchange(false)) {
        entered.set_value();
        released.wait();
      }
    };
    io::FrameWriter writer(o);
    auto job = [](std::int64_t step) {
      io::FrameJob j;
      j.meta.step = step;
      return j;
    };
    EXPECT_TRUE(writer.submit(job(0)));
    entered.get_future().wait();  // the writer holds frame 0
    EXPECT_TRUE(writer.submit(job(1)));
    EXPECT_TRUE(writer.submit(job(2)));  // the queue (2) is now full
    std::atomic<bool> returned{false};
    bool accepted = true;
    std::thread producer([&] {
      accepted = writer.submit(job(3));
      returned = true;
    });
    if (drop) {
      // Returns without the writer's help; the deadline only bounds a starved thread's start on
      // a loaded machine, where a fixed short sleep could end before the producer ran.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!returned.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      EXPECT_TRUE(returned.load()) << "drop mode must not wait";
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      EXPECT_FALSE(returned.load()) << "must wait for room";
    }
    release.set_value();
    producer.join();
    writer.drain();
    EXPECT_EQ(accepted, !drop);
    EXPECT_EQ(writer.counters().written, drop ? 3u : 4u);
    EXPECT_EQ(writer.counters().dropped, drop ? 1u : 0u);
  }
}

TEST_F(Hdf5OutputTest, ImagesToRenderIntoAreReadyFromTheStartAndComeBack) {
  Rng rng(fresh_seed());
  io::WriterOptions o;
  o.queue = std::uniform_int_distribution<std::size_t>(1, 5)(rng);
  o.outputs.width = std::uniform_int_distribution<int>(1, 300)(rng);
  o.outputs.height = std::uniform_int_distribution<int>(1, 200)(rng);
  o.drop = true;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  o.before_write = [&](std::int64_t) { released.wait(); };
  io::FrameWriter writer(o);
  // Queue + 2 images, full size, before any frame: the time loop never renders into fresh memory.
  std::vector<Image> pool;
  for (std::size_t k = 0; k < o.queue + 2; ++k) {
    pool.push_back(writer.recycled_image());
    ASSERT_EQ(pool.back().rgb.size(), std::size_t(o.outputs.width) * o.outputs.height * 3) << k;
  }
  EXPECT_TRUE(writer.recycled_image().rgb.empty()) << "no more than queue + 2";
  // Written and dropped frames both give their image back.
  std::size_t submitted = 0;
  for (Image& image : pool) {
    io::FrameJob job;
    job.meta.step = std::int64_t(submitted++);
    job.image = std::move(image);
    writer.submit(std::move(job));
  }
  release.set_value();
  writer.drain();
  EXPECT_GE(writer.counters().dropped, 1u) << "the queue of " << o.queue << " overflowed";
  EXPECT_EQ(writer.counters().written + writer.counters().dropped, submitted);
  for (std::size_t k = 0; k < o.queue + 2; ++k) {
    EXPECT_EQ(writer.recycled_image().rgb.size(),
              std::size_t(o.outputs.width) * o.outputs.height * 3)
        << k;
  }
}

// Pixels a renderer would still be copying: complete() fills the image with this frame's pattern
// (or fails, as a lost GPU copy would), and the counters say who was completed and released.
struct PatternPending final : PendingPixels {
  std::vector<std::uint8_t> pattern;
  bool fails = false;
  std::atomic<int>* completed;
  std::atomic<int>* released;
  PatternPending(std::vector<std::uint8_t> p, bool f, std::atomic<int>* c, std::atomic<int>* r)
      : pattern(std::move(p)), fails(f), completed(c), released(r) {}
  ~PatternPending() override { ++*released; }
  void complete(Image& image) override {
    ++*completed;
    if (fails) throw DeviceError("test: the copy of this frame failed");
    ASSERT_EQ(image.rgb.size(), pattern.size());
    image.rgb = pattern;
  }
};

TEST_F(Hdf5OutputTest, PendingPixelsAreSettledBeforeWritingAndDroppedWithTheirFrame) {
  Rng rng(fresh_seed());
  const int width = std::uniform_int_distribution<int>(1, 90)(rng);
  const int height = std::uniform_int_distribution<int>(1, 60)(rng);
  const int frames = std::uniform_int_distribution<int>(4, 9)(rng);
  const int failing = std::uniform_int_distribution<int>(0, frames - 1)(rng);
  std::atomic<int> completed{0}, released{0};
  std::vector<std::string> log;
  std::mutex log_mutex;
  std::vector<std::vector<std::uint8_t>> written;
  const std::string h5 = dir_ + "/pending.h5";
  {
    io::WriterOptions o;
    o.outputs.hdf5_path = h5;
    o.outputs.width = width;
    o.outputs.height = height;
    o.log = [&](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mutex);
      log.push_back(line);
    };
    io::FrameWriter writer(o);
    for (int k = 0; k < frames; ++k) {
      io::FrameJob job;
      job.meta.step = k;
      job.png_path = io::expand_frame_pattern(dir_ + "/p_*.png", k, 8);
      job.image = writer.recycled_image();
      std::vector<std::uint8_t> pattern(job.image.rgb.size());
      for (auto& b : pattern) b = static_cast<std::uint8_t>(rng());
      job.image.pending =
          std::make_shared<PatternPending>(pattern, k == failing, &completed, &released);
      if (k != failing) written.push_back(pattern);
      EXPECT_TRUE(writer.submit(std::move(job)));
    }
    writer.drain();
    EXPECT_EQ(completed.load(), frames);
    EXPECT_EQ(released.load(), frames) << "every pending part is let go once settled";
    EXPECT_EQ(writer.counters().written, std::uint64_t(frames - 1));
    EXPECT_EQ(writer.counters().lost, 1u);
  }
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("step " + std::to_string(failing)), std::string::npos) << log[0];
  EXPECT_NE(log[0].find("the copy of this frame failed"), std::string::npos) << log[0];
  EXPECT_FALSE(std::filesystem::exists(io::expand_frame_pattern(dir_ + "/p_*.png", failing, 8)));
  H5File file(h5);
  ASSERT_GE(file.id, 0);
  const auto rgb = read_all<std::uint8_t>(file.id, "/frames/rgb", H5T_NATIVE_UINT8);
  const std::size_t size = std::size_t(width) * height * 3;
  ASSERT_EQ(rgb.size(), written.size() * size);
  for (std::size_t k = 0; k < written.size(); ++k) {
    EXPECT_TRUE(std::equal(written[k].begin(), written[k].end(), rgb.begin() + k * size)) << k;
  }

  // A dropped frame's pending pixels are let go unread, and its image comes back clean.
  completed = released = 0;
  io::WriterOptions o;
  o.queue = 1;
  o.drop = true;
  o.outputs.width = width;
  o.outputs.height = height;
  std::promise<void> entered, release;
  std::shared_future<void> released_writer = release.get_future().share();
  std::atomic<bool> first{true};
  o.before_write = [&](std::int64_t) {
    if (first.exchange(false)) {
      entered.set_value();
      released_writer.wait();
    }
  };
  io::FrameWriter writer(o);
  for (int k = 0; k < 3; ++k) {
    io::FrameJob job;
    job.meta.step = k;
    job.image = writer.recycled_image();
    job.image.pending = std::make_shared<PatternPending>(
        std::vector<std::uint8_t>(job.image.rgb.size(), 7), false, &completed, &released);
    writer.submit(std::move(job));
    if (k == 0) entered.get_future().wait();  // the writer holds frame 0; 1 queues, 2 drops
  }
  EXPECT_EQ(writer.counters().dropped, 1u);
  EXPECT_EQ(released.load(), 1) << "the dropped frame's pending part";
  EXPECT_EQ(completed.load(), 0);
  release.set_value();
  writer.drain();
  EXPECT_EQ(completed.load(), 2);
  EXPECT_EQ(released.load(), 3);
  for (int k = 0; k < 3; ++k) EXPECT_FALSE(writer.recycled_image().pending) << k;
}

}  // namespace
}  // namespace granray::test
