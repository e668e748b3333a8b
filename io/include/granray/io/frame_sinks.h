// The outputs of a frame, each a sink: PNG (or PPM) files, the HDF5 file, the Cinema database.
// The in-situ frame writer and granray-render hand every frame to the same list of sinks
// (frame_sinks), so each output key works offline as it does in situ. A frame arrives as
// begin_frame, its main image's rows top first (one band in situ, band by band for a poster),
// its further views whole, then end_frame; images arrive settled and annotated.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "granray/camera.h"
#include "granray/image.h"
#include "granray/io/hdf5_frame_file.h"

namespace granray::io {

struct SinkFrame {
  std::int64_t step = 0;
  double time = 0.0;
  std::string png_path;  // the main view's image file; "" = none
};

// One further view of a frame (contract 2f), whole.
struct SinkView {
  std::string name;
  const Image* image = nullptr;  // alive until end_frame returns
  ResolvedCamera camera{};
  std::string png_path;  // "" = no image file
  // One of [insitu.orbit]'s ring: its row in the Cinema database.
  bool orbit = false;
  float theta = 0.0f, phi = 0.0f;
};

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // Each throws OutputError naming its file; a frame that failed in one sink may still be
  // written by the others.
  virtual void begin_frame(const SinkFrame& frame) = 0;
  virtual void write_rows(const Image& band) = 0;  // the next rows of the main view
  virtual void write_view(const SinkView& view) = 0;
  virtual void end_frame(const FrameMetadata& meta) = 0;
};

struct SinkOptions {
  int width = 0;  // the main view's size (views have the same)
  int height = 0;
  std::string hdf5_path;    // "" = no HDF5 file
  std::string config_text;  // the [insitu] table, stored with the HDF5 file
  Hdf5Options hdf5;
  std::string cinema;  // a Cinema database of the orbit's views ("" = none)
  int png_compression = 1;
  // PNG rows deflated as they arrive, on every core (offline: posters in bounded memory), or
  // each image whole by libpng on the writer's one thread (in situ: the simulation keeps its
  // cores).
  bool png_streamed = false;
};

// PNG files at the frames' own paths, then the HDF5 file and the Cinema database when named.
// Opens or creates the files now, so that an unwritable path is an error at start-up
// (OutputError naming the path).
std::vector<std::unique_ptr<FrameSink>> frame_sinks(const SinkOptions& options);

}  // namespace granray::io
