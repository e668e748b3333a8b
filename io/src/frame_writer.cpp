#include "granray/io/frame_writer.h"

#include <cstdio>

#include <algorithm>

#include "granray/errors.h"

namespace granray::io {

namespace {
// Beyond the queue: the image being written and the one being rendered.
constexpr std::size_t kSpareImages = 2;
}  // namespace

FrameWriter::FrameWriter(WriterOptions options) : options_(std::move(options)) {
  sinks_ = frame_sinks(options_.outputs);
  // Every image the frames will circulate, made and its pages touched now: a frame rendered into
  // fresh memory pays the page faults in the time loop (a 1080p image is 6 MB, milliseconds).
  free_images_.resize(pool_size());
  for (Image& image : free_images_) {
    image.width = options_.outputs.width;
    image.height = options_.outputs.height;
    image.rgb.assign(
        std::size_t(std::max(options_.outputs.width, 0)) * std::max(options_.outputs.height, 0) * 3,
        0);
  }
  if (options_.queue > 0) thread_ = std::thread([this] { run(); });
}

FrameWriter::~FrameWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool FrameWriter::submit(FrameJob&& job) {
  if (options_.queue == 0) {
    write(job);
    give_back(std::move(job));
    return true;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (queue_.size() >= options_.queue) {
    if (options_.drop) {
      ++counters_.dropped;
      const std::int64_t step = job.meta.step;
      lock.unlock();
      give_back(std::move(job));
      if (options_.log) {
        options_.log("granray: frame at step " + std::to_string(step) +
                     " dropped: the writer is behind (queue of " + std::to_string(options_.queue) +
                     " full)");
      }
      return false;
    }
    changed_.wait(lock, [&] { return queue_.size() < options_.queue; });
  }
  queue_.push_back(std::move(job));
  ++in_flight_;
  lock.unlock();
  changed_.notify_all();
  return true;
}

void FrameWriter::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return in_flight_ == 0; });
}

WriterCounters FrameWriter::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

// Each frame in flight holds its own image and its views'.
std::size_t FrameWriter::pool_size() const {
  return (options_.queue + kSpareImages) * (1 + options_.views);
}

void FrameWriter::give_back(FrameJob&& job) {
  give_back(std::move(job.image));
  for (ViewJob& view : job.views) give_back(std::move(view.image));
}

void FrameWriter::give_back(Image&& image) {
  image.pending.reset();  // a dropped frame's pixels are never read
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_images_.size() < pool_size()) free_images_.push_back(std::move(image));
}

Image FrameWriter::recycled_image() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_images_.empty()) return {};
  Image image = std::move(free_images_.back());
  free_images_.pop_back();
  return image;
}

void FrameWriter::run() {
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything is written
    FrameJob job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    changed_.notify_all();  // room in the queue

    write(job);

    give_back(std::move(job));
    lock.lock();
    --in_flight_;
    lock.unlock();
    changed_.notify_all();
  }
}

std::string FrameWriter::finish_image(const FrameJob& job, Image& image,
                                      const AnnotationValues& values) {
  try {
    settle(image);  // pixels the renderer was still copying
  } catch (const std::exception& e) {
    return std::string("its pixels never arrived: ") + e.what();
  }
  if (!any_annotation(job.annotations)) return "";
  try {
    const std::string why = job.full_width > 0
                                ? draw_annotations(image, job.annotations, values, job.window,
                                                   job.full_width, job.full_height)
                                : draw_annotations(image, job.annotations, values);
    if (!why.empty() && !warned_about_annotations_) {
      warned_about_annotations_ = true;
      std::fprintf(stderr, "granray: frames are written without annotations: %s\n", why.c_str());
    }
  } catch (const std::exception& e) {
    return std::string("its annotations failed: ") + e.what();
  }
  return "";
}

void FrameWriter::write(FrameJob& job) {
  if (options_.before_write) options_.before_write(job.meta.step);
  std::string error = finish_image(job, job.image, job.annotation_values);
  for (ViewJob& view : job.views) {
    if (error.empty()) error = finish_image(job, view.image, view.annotation_values);
  }
  if (error.empty()) {
    std::vector<SinkView> views;
    for (const ViewJob& view : job.views) {
      views.push_back(
          {view.name, &view.image, view.camera, view.png_path, view.orbit, view.theta, view.phi});
    }
    // Each sink writes what it can: a full disk under the HDF5 file still leaves the PNGs.
    for (const std::unique_ptr<FrameSink>& sink : sinks_) {
      try {
        sink->begin_frame({job.meta.step, job.meta.time, job.png_path});
        sink->write_rows(job.image);
        for (const SinkView& view : views) sink->write_view(view);
        sink->end_frame(job.meta);
      } catch (const std::exception& e) {
        error += (error.empty() ? "" : "; ") + std::string(e.what());
      }
    }
  }
  const bool ok = error.empty();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++(ok ? counters_.written : counters_.lost);
  }
  if (!ok && options_.log) {
    try {
      options_.log("granray: frame at step " + std::to_string(job.meta.step) + " lost: " + error);
    } catch (...) {
    }
  }
}

}  // namespace granray::io
