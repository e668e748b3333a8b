// LD_PRELOAD library for the output tests: counts the writes to files whose name ends in ".h5"
// and ends the process (as a SIGKILL would: no clean-up, no flush) just before write number
// GRANRAY_CRASH_AT_WRITE, so a test can cut a writer at every point of its flushes, not only
// where a timed kill happens to land. GRANRAY_WRITE_LOG names a file that gets the running write
// count at every fsync of such a file: where the writer's durable points fall. With
// GRANRAY_CRASH_PARTIAL set, that write is cut where a SIGKILL can cut it (the kernel checks for
// one between the pages of a write): its bytes up to the first page boundary reach the file.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

std::atomic<long> writes{0};

bool is_hdf5_file(int fd) {
  char link[64], target[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, target, sizeof target - 1);
  return n > 3 && std::memcmp(target + n - 3, ".h5", 3) == 0;
}

// Whether this write is the one to cut.
bool count_write(int fd) {
  if (!is_hdf5_file(fd)) return false;
  static const long crash_at = [] {
    const char* v = std::getenv("GRANRAY_CRASH_AT_WRITE");
    return v != nullptr ? std::atol(v) : 0L;
  }();
  return ++writes == crash_at;
}

// Ends the process at a write of n bytes at `at` (-1: the file's position), after the part of
// it before the first page boundary when a partial cut is asked for.
template <class Write>
[[noreturn]] void crash(Write&& write_prefix, size_t n, off_t at) {
  static const bool partial = std::getenv("GRANRAY_CRASH_PARTIAL") != nullptr;
  constexpr off_t kPage = 4096;
  if (partial && at >= 0) {
    const off_t boundary = (at / kPage + 1) * kPage;
    if (at + static_cast<off_t>(n) > boundary) write_prefix(static_cast<size_t>(boundary - at));
  }
  _exit(137);
}

void log_sync(int fd) {
  if (!is_hdf5_file(fd)) return;
  if (const char* path = std::getenv("GRANRAY_WRITE_LOG")) {
    if (FILE* log = std::fopen(path, "a")) {
      std::fprintf(log, "%ld\n", writes.load());
      std::fclose(log);
    }
  }
}

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
  static const auto real = next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  if (count_write(fd)) crash([&](size_t k) { real(fd, buf, k, at); }, n, at);
  return real(fd, buf, n, at);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t at) {
  static const auto real = next<ssize_t (*)(int, const void*, size_t, off64_t)>("pwrite64");
  if (count_write(fd)) crash([&](size_t k) { real(fd, buf, k, at); }, n, at);
  return real(fd, buf, n, at);
}

ssize_t write(int fd, const void* buf, size_t n) {
  static const auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
  if (count_write(fd)) crash([&](size_t k) { real(fd, buf, k); }, n, lseek(fd, 0, SEEK_CUR));
  return real(fd, buf, n);
}

int fsync(int fd) {
  static const auto real = next<int (*)(int)>("fsync");
  log_sync(fd);
  return real(fd);
}
}
