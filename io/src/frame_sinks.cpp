#include "granray/io/frame_sinks.h"

#include "granray/errors.h"
#include "granray/io/cinema_database.h"
#include "granray/io/image_file.h"
#include "granray/io/image_stream.h"

namespace granray::io {
namespace {

class ImageFileSink final : public FrameSink {
 public:
  ImageFileSink(int width, int height, int compression, bool streamed)
      : width_(width), height_(height), compression_(compression), streamed_(streamed) {}

  void begin_frame(const SinkFrame& frame) override {
    path_ = frame.png_path;
    stream_.reset();
  }

  void write_rows(const Image& band) override {
    if (path_.empty()) return;
    if (!streamed_ && !stream_ && band.height == height_) {
      write_png(path_, band, compression_);
      return;
    }
    if (!stream_) stream_ = open_image_stream(path_, width_, height_, compression_);
    stream_->write_rows(band.rgb.data(), band.height);
  }

  void write_view(const SinkView& view) override {
    if (view.png_path.empty()) return;
    if (!streamed_) {
      write_png(view.png_path, *view.image, compression_);
      return;
    }
    const auto file =
        open_image_stream(view.png_path, view.image->width, view.image->height, compression_);
    file->write_rows(view.image->rgb.data(), view.image->height);
    file->finish();
  }

  void end_frame(const FrameMetadata&) override {
    if (stream_) stream_->finish();
    stream_.reset();
  }

 private:
  int width_, height_, compression_;
  bool streamed_;
  std::string path_;
  std::unique_ptr<ImageStream> stream_;
};

class Hdf5Sink final : public FrameSink {
 public:
  explicit Hdf5Sink(const SinkOptions& o)
      : file_(o.hdf5_path, o.width, o.height, o.config_text, o.hdf5) {}

  void begin_frame(const SinkFrame&) override { file_.begin_frame(); }
  void write_rows(const Image& band) override { file_.write_rows(band.rgb.data(), band.height); }
  void write_view(const SinkView& view) override {
    file_.write_view({view.name, view.image, view.camera});
  }
  void end_frame(const FrameMetadata& meta) override { file_.end_frame(meta); }

 private:
  Hdf5FrameFile file_;
};

class CinemaSink final : public FrameSink {
 public:
  CinemaSink(const std::string& path, int compression) : database_(path, compression) {}

  void begin_frame(const SinkFrame& frame) override {
    step_ = frame.step;
    time_ = frame.time;
    ring_.clear();
  }
  void write_rows(const Image&) override {}
  void write_view(const SinkView& view) override {
    if (view.orbit) ring_.push_back({view.theta, view.phi, view.image});
  }
  void end_frame(const FrameMetadata&) override {
    if (!ring_.empty()) database_.add_frame(step_, time_, ring_);
    ring_.clear();
  }

 private:
  CinemaDatabase database_;
  std::int64_t step_ = 0;
  double time_ = 0.0;
  std::vector<CinemaImage> ring_;
};

}  // namespace

std::vector<std::unique_ptr<FrameSink>> frame_sinks(const SinkOptions& options) {
  std::vector<std::unique_ptr<FrameSink>> sinks;
  sinks.push_back(std::make_unique<ImageFileSink>(options.width, options.height,
                                                  options.png_compression, options.png_streamed));
  if (!options.hdf5_path.empty()) sinks.push_back(std::make_unique<Hdf5Sink>(options));
  if (!options.cinema.empty()) {
    sinks.push_back(std::make_unique<CinemaSink>(options.cinema, options.png_compression));
  }
  return sinks;
}

}  // namespace granray::io
