// Images written as their rows arrive (contract 5: posters in bounded memory): a band of rows at a
// time, top first, never the whole image in memory. PNG rows are filtered and deflated in pieces
// on every core (zlib streams flushed to a byte boundary and joined into one, as pigz does;
// libpng writes the header, the chunks and their CRCs); PPM rows go out as they are.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace granray::io {

class ImageStream {
 public:
  virtual ~ImageStream() = default;
  // The next `rows` rows, each width x 3 bytes of RGB, top first. Throws OutputError naming the
  // file when writing fails.
  virtual void write_rows(const std::uint8_t* rgb, int rows) = 0;
  // After the last row: completes the file and moves it into place (it is written beside its
  // name until then, so a reader never sees half an image). An image dropped unfinished leaves
  // nothing behind.
  virtual void finish() = 0;
  virtual int rows_written() const = 0;
};

// By the path's ending, as write_image: .png (zlib level `compression_level`, 0..9) or .ppm.
// Throws OutputError naming the path when it cannot be created.
std::unique_ptr<ImageStream> open_image_stream(const std::string& path, int width, int height,
                                               int compression_level = 1);

}  // namespace granray::io
