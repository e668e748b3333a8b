// Lines of a text file read in large blocks with read(2), not through iostreams: the text
// readers (LAMMPS dumps, xyzr) spend their time in parsing, not in per-line stream calls, and
// hold one block of the file at a time however large it is (a 10 M-grain dump is 400 MB).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace granray::io::detail {

class LineReader {
 public:
  // Throws InputError naming the file when it cannot be opened.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its '\n', valid until the next call; false at the end of the file.
  // A read error is an InputError naming the file and line.
  bool next(std::string_view& line);
  // The next line, or an error saying what the file ended before.
  std::string_view require(const std::string& expected);

  std::size_t number() const { return number_; }
  const std::string& path() const { return path_; }
  // Bytes not yet handed out as lines; 0 where the size is unknown (a pipe), which only stops
  // the readers reserving ahead.
  std::uint64_t bytes_left() const;

 private:
  // Moves the unread tail to the front and reads more; false when nothing more came.
  bool refill();

  std::string path_;
  int fd_ = -1;
  std::int64_t size_ = -1;      // of a regular file
  std::uint64_t consumed_ = 0;  // bytes handed out as lines (with their '\n')
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;  // the unread bytes of buffer_
  bool eof_ = false;
  std::size_t number_ = 0;
};

}  // namespace granray::io::detail
