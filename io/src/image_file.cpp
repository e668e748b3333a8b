#include "granray/io/image_file.h"

#include <png.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "granray/errors.h"
#include "path_ending.h"

namespace granray::io {
namespace {

using detail::ends_with;

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

namespace {

// libpng reports errors by longjmp; nothing with a destructor lives in the frame it jumps over.
bool write_png_file(std::FILE* file, const Image& image, int level, const char** error) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr) {
    png_destroy_write_struct(&png, &info);
    *error = "cannot allocate the PNG writer";
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    *error = "libpng error";
    return false;
  }
  png_init_io(png, file);
  png_set_compression_level(png, level);
  // Rendered frames are flat runs of background and smooth shading: the Sub filter suffices.
  png_set_filter(png, PNG_FILTER_TYPE_BASE, level <= 1 ? PNG_FILTER_SUB : PNG_ALL_FILTERS);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
               static_cast<png_uint_32>(image.height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int row = 0; row < image.height; ++row) {
    png_write_row(png, image.rgb.data() + static_cast<std::size_t>(row) * image.width * 3);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

// Written beside the target and renamed into place: a PNG is whole or absent, never cut short by
// a full disk or a killed process.
void write_png(const std::string& path, const Image& image, int compression_level) {
  check_image(path, image);
  const std::string partial = path + ".part";
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(partial.c_str(), "wb"));
  if (!file) throw OutputError(path + ": cannot open for writing: " + std::strerror(errno));
  const auto fail = [&](const std::string& why) {
    file.reset();
    std::remove(partial.c_str());
    throw OutputError(path + ": cannot write PNG: " + why);
  };
  const char* error = nullptr;
  if (!write_png_file(file.get(), image, compression_level, &error)) fail(error);
  if (std::fflush(file.get()) != 0 || std::ferror(file.get())) fail(std::strerror(errno));
  if (std::fclose(file.release()) != 0) fail(std::strerror(errno));
  if (std::rename(partial.c_str(), path.c_str()) != 0) fail(std::strerror(errno));
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
