// What every fuzz target shares. The readers take paths, so the input becomes an in-memory file
// (memfd) with a path; and a reader may turn input down only with granray's typed errors: any
// other exception, a crash or a sanitizer report is a finding.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "granray/errors.h"

namespace granray::fuzz {

class InputFile {
 public:
  InputFile(const std::uint8_t* data, std::size_t size) : fd_(::memfd_create("fuzz-input", 0)) {
    if (fd_ < 0) std::abort();
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += std::size_t(n);
    }
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

// Runs `read`; granray's own errors are the clean way to refuse input.
template <class Read>
void refused_cleanly_or_read(Read&& read) {
  try {
    read();
  } catch (const granray::Error&) {
  }
}

}  // namespace granray::fuzz
