#include "granray/io/image_file.h"

#include <png.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "granray/errors.h"

namespace granray::io {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  }
  return true;
}

void check_image(const std::string& path, const Image& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != static_cast<std::size_t>(image.width) * image.height * 3) {
    throw OutputError(path + ": image has no pixels or a size that does not match its data");
  }
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

void write_png(const std::string& path, const Image& image) {
  check_image(path, image);
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&png, path.c_str(), 0, image.rgb.data(), 0, nullptr)) {
    const std::string reason = png.message;
    png_image_free(&png);
    throw OutputError(path + ": cannot write PNG: " + reason);
  }
}

// Binary PPM (P6) is a one-line header and the raw pixels; no library on our platforms writes it.
void write_ppm(const std::string& path, const Image& image) {
  check_image(path, image);
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) throw OutputError(path + ": cannot open for writing: " + std::strerror(errno));
  const bool ok =
      std::fprintf(file.get(), "P6\n%d %d\n255\n", image.width, image.height) > 0 &&
      std::fwrite(image.rgb.data(), 1, image.rgb.size(), file.get()) == image.rgb.size();
  if (!ok || std::fclose(file.release()) != 0) {
    throw OutputError(path + ": cannot write PPM: " + std::strerror(errno));
  }
}

void write_image(const std::string& path, const Image& image) {
  if (ends_with(path, ".png")) return write_png(path, image);
  if (ends_with(path, ".ppm")) return write_ppm(path, image);
  throw OutputError(path + ": unknown image type (use a .png or .ppm ending)");
}

Image read_png(const std::string& path) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) {
    throw InputError(path + ": cannot read PNG: " + png.message);
  }
  png.format = PNG_FORMAT_RGB;
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr)) {
    const std::string reason = png.message;
    png_image_free(&png);
    throw InputError(path + ": cannot read PNG: " + reason);
  }
  return image;
}

}  // namespace granray::io
