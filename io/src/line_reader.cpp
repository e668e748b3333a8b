#include "line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "granray/errors.h"
#include "text_fields.h"

namespace granray::io::detail {
namespace {

// Large enough that read(2) calls cost nothing beside parsing, small enough to stay in L2/L3.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;

}  // namespace

LineReader::LineReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    throw InputError(path + ": cannot open for reading (" + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    size_ = st.st_size;
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  buffer_.resize(kBlockBytes);
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::refill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  // A line longer than the buffer grows it: lines are short, but nothing forbids a long one.
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  for (;;) {
    const ssize_t got = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    if (got > 0) {
      end_ += static_cast<std::size_t>(got);
      return true;
    }
    if (got == 0) {
      eof_ = true;
      return false;
    }
    if (errno != EINTR) {
      fail_at(path_, number_ + 1, std::string("read error (") + std::strerror(errno) + ")");
    }
  }
}

bool LineReader::next(std::string_view& line) {
  std::size_t searched = begin_;
  for (;;) {
    const void* newline = std::memchr(buffer_.data() + searched, '\n', end_ - searched);
    if (newline != nullptr) {
      const std::size_t at = static_cast<const char*>(newline) - buffer_.data();
      line = std::string_view(buffer_.data() + begin_, at - begin_);
      consumed_ += at + 1 - begin_;
      begin_ = at + 1;
      ++number_;
      return true;
    }
    searched = end_ - begin_;  // where the search goes on once the tail has moved to the front
    if (!refill()) break;
  }
  if (begin_ == end_) return false;
  // The last line, with no '\n' after it.
  line = std::string_view(buffer_.data() + begin_, end_ - begin_);
  consumed_ += end_ - begin_;
  begin_ = end_;
  ++number_;
  return true;
}

std::string_view LineReader::require(const std::string& expected) {
  std::string_view line;
  if (!next(line)) fail_at(path_, number_ + 1, "file ends where " + expected + " was expected");
  return line;
}

std::uint64_t LineReader::bytes_left() const {
  if (size_ < 0 || consumed_ > static_cast<std::uint64_t>(size_)) return 0;
  return static_cast<std::uint64_t>(size_) - consumed_;
}

}  // namespace granray::io::detail
