#include "granray/io/cinema_database.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "granray/errors.h"
#include "granray/io/image_file.h"

namespace granray::io {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw OutputError(path + ": " + why);
}

// Appends `text` to `file` in one write and syncs it: a row is on disk whole before the call
// returns, and a kill mid-write leaves at most one cut row, which the next open drops.
void append_synced(const std::string& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) fail(file, std::strerror(errno));
  const ssize_t written = ::write(fd, text.data(), text.size());
  const bool whole = written == static_cast<ssize_t>(text.size());
  const int saved = errno;
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!whole) fail(file, std::string("cannot append rows: ") + std::strerror(saved));
  if (!synced) fail(file, std::string("cannot sync: ") + std::strerror(errno));
}

}  // namespace

const char* CinemaDatabase::header() { return "time,step,theta,phi,FILE\n"; }

std::string angle_tag(float degrees) {
  std::ostringstream text;
  text << degrees;
  std::string tag = text.str();
  for (char& c : tag) {
    if (c == '.') c = 'p';
    if (c == '-') c = 'm';
  }
  return tag;
}

CinemaDatabase::CinemaDatabase(std::string path, int png_compression)
    : path_(std::move(path)), png_compression_(png_compression) {
  std::error_code ec;
  fs::create_directories(fs::path(path_) / "images", ec);
  if (ec) fail(path_, "cannot create the Cinema database: " + ec.message());
  const std::string csv = (fs::path(path_) / "data.csv").string();
  if (!fs::exists(csv)) {
    append_synced(csv, header());
    return;
  }
  std::ifstream in(csv, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.compare(0, std::strlen(header()), header()) != 0) {
    fail(csv,
         "is not a database this writer made (its header is not \"time,step,theta,phi,FILE\"); "
         "refusing to append to it");
  }
  // A row cut short by a kill: the text after the last newline goes.
  const std::size_t whole = text.rfind('\n') + 1;
  if (whole < text.size()) fs::resize_file(csv, whole, ec);
  if (ec) fail(csv, "cannot drop a row cut short: " + ec.message());
}

void CinemaDatabase::add_frame(std::int64_t step, double time,
                               const std::vector<CinemaImage>& images) {
  std::ostringstream rows;
  rows.precision(17);
  for (const CinemaImage& view : images) {
    const std::string file = "images/" + std::to_string(step) + "_theta" + angle_tag(view.theta) +
                             "_phi" + angle_tag(view.phi) + ".png";
    write_png((fs::path(path_) / file).string(), *view.image, png_compression_);
    rows << time << "," << step << "," << view.theta << "," << view.phi << "," << file << "\n";
  }
  append_synced((fs::path(path_) / "data.csv").string(), rows.str());
}

}  // namespace granray::io
