// One writer thread owns every HDF5 and PNG call, so the simulation's render() only hands the
// finished image over; the outputs are the sinks of frame_sinks.h, as granray-render's. A bounded
// queue makes the simulation wait when the disk is slower than the frames, or, with drop = true,
// drops frames instead.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "granray/image.h"
#include "granray/io/annotations.h"
#include "granray/io/frame_sinks.h"
#include "granray/io/hdf5_frame_file.h"

namespace granray::io {

struct WriterOptions {
  SinkOptions outputs;    // where frames go (the image size is outputs.width x outputs.height)
  std::size_t views = 0;  // further views per frame: the image pool holds theirs too
  std::size_t queue = 4;  // frames waiting at most; 0 = write on the caller's thread
  bool drop = false;      // queue full: drop the frame instead of waiting
  std::function<void(const std::string&)> log;  // failures and drops
  // Called on the writer thread before each frame is written (tests hold the writer with it).
  std::function<void(std::int64_t step)> before_write;
};

// contract 2f: one further view of a frame, written beside it (its PNG, /views/NAME in the HDF5
// file), with the frame's annotations laid out for its camera.
struct ViewJob {
  std::string name;
  Image image;           // may still be pending, as the frame's
  std::string png_path;  // "" = no PNG
  AnnotationValues annotation_values;
  ResolvedCamera camera{};
  // One of [insitu.orbit]'s ring: its row and image in the Cinema database.
  bool orbit = false;
  float theta = 0.0f, phi = 0.0f;
};

struct FrameJob {
  Image image;  // may still be pending (Image::pending): the writer settles it before writing
  FrameMetadata meta;
  std::string png_path;  // "" = no PNG
  // Drawn on the settled image before it is written (colour bar, label).
  AnnotationSettings annotations;
  AnnotationValues annotation_values;
  // The whole image the annotations are laid out on, of which `image` shows `window` (contract 3
  // region); full_width 0: the image is the whole.
  PixelRect window;
  int full_width = 0;
  int full_height = 0;
  std::vector<ViewJob> views;  // the frame's further views, in [[insitu.views]] order
};

struct WriterCounters {
  std::uint64_t written = 0;  // durable: HDF5 flushed (and fsynced), PNG closed
  std::uint64_t dropped = 0;  // never written: the queue was full and drop = true
  std::uint64_t lost = 0;     // writing failed (full disk, vanished directory, ...)
};

class FrameWriter {
 public:
  // Opens or creates the HDF5 file now, so that an unwritable path is an error at start-up
  // (OutputError), not a stream of lost frames.
  explicit FrameWriter(WriterOptions options);
  // Writes what is queued, then stops the thread.
  ~FrameWriter();
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  // Hands a frame over; false when it was dropped. Never throws for a failed write: that is
  // counted as lost and logged.
  bool submit(FrameJob&& job);

  // Waits until every frame submitted so far is written or lost.
  void drain();

  WriterCounters counters() const;

  // An image buffer to render the next frame into without allocating: one made at start-up
  // (queue + 2 of them, pages touched) or of a frame already written; empty when none is free.
  Image recycled_image();

 private:
  void run();
  void write(FrameJob& job);
  // Settles an image of `job` and draws the job's annotations on it; the reason when it cannot.
  std::string finish_image(const FrameJob& job, Image& image, const AnnotationValues& values);
  std::size_t pool_size() const;
  void give_back(Image&& image);
  void give_back(FrameJob&& job);

  WriterOptions options_;
  std::vector<std::unique_ptr<FrameSink>> sinks_;  // PNG, HDF5, Cinema (frame_sinks)
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<FrameJob> queue_;
  std::vector<Image> free_images_;
  std::size_t in_flight_ = 0;
  bool warned_about_annotations_ = false;  // a missing font is said once
  bool stopping_ = false;
  WriterCounters counters_;
  std::thread thread_;
};

}  // namespace granray::io
