#include "granray/io/image_stream.h"

#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "granray/errors.h"
#include "path_ending.h"

namespace granray::io {
namespace {

using detail::ends_with;

// The file being written, beside its final name; removed unless finished.
class PartialFile {
 public:
  explicit PartialFile(std::string path) : path_(std::move(path)), partial_(path_ + ".part") {
    file_ = std::fopen(partial_.c_str(), "wb");
    if (file_ == nullptr) fail(std::string("cannot open for writing: ") + std::strerror(errno));
  }
  ~PartialFile() {
    if (file_ != nullptr) {
      std::fclose(file_);
      std::remove(partial_.c_str());
    }
  }
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  void write(const void* data, std::size_t bytes) {
    if (file_ == nullptr) fail("the file is already closed");
    if (std::fwrite(data, 1, bytes, file_) != bytes) {
      fail(std::string("cannot write: ") + std::strerror(errno));
    }
  }
  void close_into_place() {
    std::FILE* f = file_;
    file_ = nullptr;
    const bool flushed = std::fflush(f) == 0 && std::ferror(f) == 0;
    const int saved = errno;
    if (std::fclose(f) != 0 || !flushed) {
      std::remove(partial_.c_str());
      fail(std::string("cannot write: ") + std::strerror(flushed ? errno : saved));
    }
    if (std::rename(partial_.c_str(), path_.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      std::remove(partial_.c_str());
      fail("cannot move into place: " + why);
    }
  }
  [[noreturn]] void fail(const std::string& why) const { throw OutputError(path_ + ": " + why); }
  const std::string& path() const { return path_; }

 private:
  std::string path_, partial_;
  std::FILE* file_ = nullptr;
};

class RowCounter {
 protected:
  // The file is the derived class's member: bound here, used once it is made.
  RowCounter(PartialFile& file, int width, int height)
      : file_(file), width_(width), height_(height) {}
  void check_size() const {
    if (width_ <= 0 || height_ <= 0) {
      file_.fail("image size must be positive, got " + std::to_string(width_) + " x " +
                 std::to_string(height_));
    }
  }
  void take(int rows) {
    if (rows < 0 || rows > height_ - written_) {
      file_.fail("image of " + std::to_string(height_) + " rows given " +
                 std::to_string(written_ + rows));
    }
    written_ += rows;
  }
  void check_complete() const {
    if (written_ != height_) {
      file_.fail("image finished after " + std::to_string(written_) + " of its " +
                 std::to_string(height_) + " rows");
    }
  }
  PartialFile& file_;
  int width_, height_;
  int written_ = 0;
};

class PpmStream final : public ImageStream, RowCounter {
 public:
  PpmStream(const std::string& path, int width, int height)
      : RowCounter(file_storage_, width, height), file_storage_(path) {
    check_size();
    const std::string header =
        "P6\n" + std::to_string(width) + " " + std::to_string(height) + "\n255\n";
    file_storage_.write(header.data(), header.size());
  }
  void write_rows(const std::uint8_t* rgb, int rows) override {
    take(rows);
    file_storage_.write(rgb, std::size_t(rows) * width_ * 3);
  }
  void finish() override {
    check_complete();
    file_storage_.close_into_place();
  }
  int rows_written() const override { return written_; }

 private:
  PartialFile file_storage_;
};

// libpng reports errors by longjmp: each call runs in a frame that holds nothing with a
// destructor. Writes go through write_bytes, which records failures instead of jumping.
struct PngSink {
  PartialFile* file;
  std::string error;
};

void write_bytes(png_structp png, png_bytep data, size_t length) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  if (!sink->error.empty()) return;
  try {
    sink->file->write(data, length);
  } catch (const OutputError& e) {
    sink->error = e.what();
  }
}
void flush_nothing(png_structp) {}

bool png_header(png_structp png, png_infop info, int width, int height) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8,
               PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  return true;
}

bool png_chunk(png_structp png, const char* name, const std::uint8_t* data, std::size_t bytes) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_write_chunk(png, reinterpret_cast<png_const_bytep>(name), data, bytes);
  return true;
}

// One piece of rows: filtered (PNG filter Sub, each row on its own, as write_png does) and
// deflated as a raw stream that ends on a byte boundary (Z_SYNC_FLUSH), or, for the image's last
// piece, as the stream's end.
struct Piece {
  std::vector<std::uint8_t> deflated;
  uLong adler = 1;
  std::size_t filtered_bytes = 0;
  std::string error;
};

void compress_piece(const std::uint8_t* rgb, int rows, int width, int level, bool last,
                    Piece& piece) {
  const std::size_t row_bytes = std::size_t(width) * 3;
  std::vector<std::uint8_t> filtered(std::size_t(rows) * (row_bytes + 1));
  for (int r = 0; r < rows; ++r) {
    const std::uint8_t* in = rgb + std::size_t(r) * row_bytes;
    std::uint8_t* out = filtered.data() + std::size_t(r) * (row_bytes + 1);
    out[0] = 1;  // Sub
    for (std::size_t k = 0; k < 3 && k < row_bytes; ++k) out[1 + k] = in[k];
    for (std::size_t k = 3; k < row_bytes; ++k) {
      out[1 + k] = static_cast<std::uint8_t>(in[k] - in[k - 3]);
    }
  }
  piece.filtered_bytes = filtered.size();
  piece.adler = adler32_z(1L, filtered.data(), filtered.size());
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    piece.error = "zlib cannot start a stream";
    return;
  }
  piece.deflated.resize(deflateBound(&z, filtered.size()) + 16);
  z.next_in = filtered.data();
  z.avail_in = static_cast<uInt>(filtered.size());
  z.next_out = piece.deflated.data();
  z.avail_out = static_cast<uInt>(piece.deflated.size());
  const int status = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
  const bool done = last ? status == Z_STREAM_END : (status == Z_OK && z.avail_in == 0);
  piece.deflated.resize(piece.deflated.size() - z.avail_out);
  deflateEnd(&z);
  if (!done) piece.error = "zlib could not compress a piece of rows";
}

// Pieces of about this many filtered bytes each: enough for the deflate window to pay off, small
// enough to share a band of rows among the cores.
constexpr std::size_t kPieceBytes = std::size_t{1} << 20;
// A piece's input must fit zlib's 32-bit counts.
constexpr std::size_t kMaxPieceBytes = std::size_t{1} << 30;

class PngStream final : public ImageStream, RowCounter {
 public:
  PngStream(const std::string& path, int width, int height, int level)
      : RowCounter(file_storage_, width, height), file_storage_(path), level_(level) {
    check_size();
    if (level < 0 || level > 9) file_storage_.fail("compression level must be in 0..9");
    if (png_ == nullptr || info_ == nullptr) file_storage_.fail("cannot allocate the PNG writer");
    sink_.file = &file_storage_;
    png_set_write_fn(png_, &sink_, write_bytes, flush_nothing);
    if (!png_header(png_, info_, width, height)) fail("libpng could not write the header");
    check_sink();
  }

  void write_rows(const std::uint8_t* rgb, int rows) override {
    take(rows);
    if (rows == 0) return;
    const std::size_t row_bytes = std::size_t(width_) * 3 + 1;
    const int per_piece = static_cast<int>(std::clamp<std::size_t>(
        kPieceBytes / row_bytes, 1, std::max<std::size_t>(1, kMaxPieceBytes / row_bytes)));
    const int count = (rows + per_piece - 1) / per_piece;
    const bool ends_image = written_ == height_;
    std::vector<Piece> pieces(static_cast<std::size_t>(count));
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < count; ++k) {
      const int first = k * per_piece, n = std::min(per_piece, rows - first);
      compress_piece(rgb + std::size_t(first) * (row_bytes - 1), n, width_, level_,
                     ends_image && k == count - 1, pieces[std::size_t(k)]);
    }
    for (Piece& piece : pieces) {
      if (!piece.error.empty()) fail(piece.error);
      std::vector<std::uint8_t>& out = piece.deflated;
      if (!started_) {
        // The zlib header: deflate with a 32 KiB window, no preset dictionary.
        const std::uint8_t header[2] = {0x78, 0x01};
        out.insert(out.begin(), header, header + 2);
        started_ = true;
      }
      adler_ = adler32_combine(adler_, piece.adler, static_cast<z_off_t>(piece.filtered_bytes));
      if (&piece == &pieces.back() && ends_image) {
        const std::uint8_t trailer[4] = {
            static_cast<std::uint8_t>(adler_ >> 24), static_cast<std::uint8_t>(adler_ >> 16),
            static_cast<std::uint8_t>(adler_ >> 8), static_cast<std::uint8_t>(adler_)};
        out.insert(out.end(), trailer, trailer + 4);
      }
      if (!out.empty() && !png_chunk(png_, "IDAT", out.data(), out.size())) {
        fail("libpng could not write a chunk");
      }
      check_sink();
      std::vector<std::uint8_t>().swap(out);
    }
  }

  void finish() override {
    check_complete();
    if (!png_chunk(png_, "IEND", nullptr, 0)) fail("libpng could not end the file");
    check_sink();
    file_storage_.close_into_place();
  }
  int rows_written() const override { return written_; }

 private:
  [[noreturn]] void fail(const std::string& why) { file_storage_.fail("cannot write PNG: " + why); }
  void check_sink() {
    if (!sink_.error.empty()) throw OutputError(sink_.error);
  }

  // Owns libpng's structures.
  struct WriteStruct {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    ~WriteStruct() { png_destroy_write_struct(&png, &info); }
  };

  PartialFile file_storage_;
  int level_;
  WriteStruct write_struct_;
  png_structp& png_ = write_struct_.png;
  png_infop& info_ = write_struct_.info;
  PngSink sink_;
  bool started_ = false;
  uLong adler_ = 1;
};

}  // namespace

std::unique_ptr<ImageStream> open_image_stream(const std::string& path, int width, int height,
                                               int compression_level) {
  if (ends_with(path, ".png")) {
    return std::make_unique<PngStream>(path, width, height, compression_level);
  }
  if (ends_with(path, ".ppm")) return std::make_unique<PpmStream>(path, width, height);
  throw OutputError(path + ": unknown image type (use a .png or .ppm ending)");
}

}  // namespace granray::io
