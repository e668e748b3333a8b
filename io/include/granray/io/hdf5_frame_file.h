// The run's HDF5 file (contract 5): /frames/rgb [F][H][W][3] plus per-frame metadata datasets on
// the same first axis, root attributes with the version and the [insitu] table. Per-rank values are
// [F][R] datasets whose second axis grows with the largest rank count seen (a restart on more
// ranks); entries of ranks a frame did not have read 0 (counts) or NaN (times).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "granray/camera.h"
#include "granray/image.h"
#include "granray/renderer.h"

namespace granray::io {

struct FrameMetadata {
  std::int64_t step = 0;
  double time = 0.0;
  std::uint64_t particles = 0;
  std::uint64_t skipped = 0;
  ResolvedCamera camera{};
  bool colored = false;
  float color_lo = 0.0f;
  float color_hi = 0.0f;
  double grid_ms = 0.0;
  double render_ms = 0.0;
  double frame_ms = 0.0;         // the whole render() on the simulation's thread
  double queue_wait_ms = 0.0;    // time the simulation waited for room in the writer's queue
  double composite_ms = 0.0;     // compositing across ranks (rank 0's time)
  std::vector<RankStats> ranks;  // one per rank; none is written as one rank with no particles
};

// A rendered frame's metadata; a one-rank frame (stats.ranks empty) lists itself as rank 0.
FrameMetadata frame_metadata(const FrameStats& stats, std::int64_t step, double time);

struct Hdf5Options {
  int compression = 1;  // deflate level, 0 = none
  bool durable = true;  // fsync after every frame before it counts as written
  // A new file's frames up to max_chunk_bytes are one chunk each; larger frames (posters) are
  // chunked in bands of whole rows of about poster_chunk_bytes, deflated on every core.
  std::size_t max_chunk_bytes = std::size_t{64} << 20;
  std::size_t poster_chunk_bytes = std::size_t{4} << 20;
  // contract 2f: the further views of every frame, each a group /views/NAME with its own rgb stack
  // and camera datasets on the frames' axis. A file met on restart must hold the same views.
  std::vector<std::string> views;
};

// One further view of a frame (contract 2f), as it goes into /views/NAME.
struct ViewImage {
  std::string name;
  const Image* image = nullptr;
  ResolvedCamera camera{};
};

class Hdf5FrameFile {
 public:
  // Creates `path`, or opens it to append when it already holds frames of the same size.
  // Throws OutputError naming the path when it cannot be written or its layout differs; an
  // existing file is never overwritten.
  Hdf5FrameFile(const std::string& path, int width, int height, const std::string& config_text,
                const Hdf5Options& options = {});
  ~Hdf5FrameFile();
  Hdf5FrameFile(const Hdf5FrameFile&) = delete;
  Hdf5FrameFile& operator=(const Hdf5FrameFile&) = delete;

  std::uint64_t frames() const;
  const std::string& path() const;

  // Appends one frame and its metadata, flushes (and fsyncs when durable). When it returns the
  // frame survives a kill of the process; on error it throws OutputError.
  void append(const Image& image, const FrameMetadata& meta,
              const std::vector<ViewImage>& views = {});

  // The same, a band of rows at a time (posters, contract 5): begin_frame, the frame's rows top
  // first in any number of write_rows calls, then end_frame. Rows go to the file as whole chunks
  // fill (chunk_rows() rows each), so a frame of any size takes one group of chunks of memory. The
  // frame counts, and survives a kill, once end_frame returns; any error leaves the file as the
  // last whole frame left it.
  void begin_frame();
  void write_rows(const std::uint8_t* rgb, int rows);
  // Between begin_frame and end_frame: one further view's image and camera (contract 2f).
  void write_view(const ViewImage& view);
  void end_frame(const FrameMetadata& meta);
  // Rows per chunk of /frames/rgb: the frame's height, or for frames over 64 MiB a band of about
  // 4 MiB.
  int chunk_rows() const;

  struct Impl;

 private:
  void append_frame(const Image& image, const FrameMetadata& meta);
  void put_rows(const std::uint8_t* rgb, std::size_t rows);
  void put_last_chunks();
  void write_whole_chunks(const std::uint8_t* rows, std::size_t count);
  void write_metadata(const FrameMetadata& meta, double write_ms);
  void rehearse_restart();
  std::unique_ptr<Impl> impl_;
};

}  // namespace granray::io
