// How many OpenMP threads copy an image out of the renderer's buffers, and the copy.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace granray::detail {

// One per MiB, at most 8: that many saturate a copy's memory bandwidth, and a team of every core
// of a GPU server (128 threads, spinning when idle) made a 1080p frame cost the time loop 7.8 ms
// against 1.3 ms with 4 threads (docs/benchmarks.md).
inline int copy_threads(std::size_t bytes) {
  const auto per_mib = static_cast<int>(std::min<std::size_t>(bytes >> 20, 8));
  return std::clamp(per_mib, 1, std::max(1, omp_get_max_threads()));
}

// memcpy in pieces of 256 KiB shared by copy_threads(length) threads.
inline void copy_in_threads(const char* from, char* to, std::size_t length) {
  constexpr std::int64_t kPiece = 256 << 10;
  const auto pieces = static_cast<std::int64_t>((length + kPiece - 1) / kPiece);
#pragma omp parallel for schedule(static) num_threads(copy_threads(length))
  for (std::int64_t i = 0; i < pieces; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * kPiece;
    std::memcpy(to + at, from + at, std::min<std::size_t>(kPiece, length - at));
  }
}

}  // namespace granray::detail
