#pragma once

#include <string>

#include "granray/image.h"

namespace granray::io {

// Writes the image as PNG (libpng) or binary PPM, chosen by the path's ending (.png, .ppm).
// Throws OutputError naming the path.
void write_image(const std::string& path, const Image& image);
// compression_level: zlib's 0 (none) to 9; 1 is fast and still shrinks rendered frames a lot.
void write_png(const std::string& path, const Image& image, int compression_level = 1);
void write_ppm(const std::string& path, const Image& image);

// Reads a PNG written by write_png back (8-bit RGB), for tests and tools.
Image read_png(const std::string& path);

}  // namespace granray::io
