// How many OpenMP threads copy an image out of the renderer's buffers.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>

namespace granray::detail {

// One per MiB, at most 8: that many saturate a copy's memory bandwidth, and a team of every core
// of a GPU server (128 threads, spinning when idle) made a 1080p frame cost the time loop 7.8 ms
// against 1.3 ms with 4 threads (docs/benchmarks.md).
inline int copy_threads(std::size_t bytes) {
  const auto per_mib = static_cast<int>(std::min<std::size_t>(bytes >> 20, 8));
  return std::clamp(per_mib, 1, std::max(1, omp_get_max_threads()));
}

}  // namespace granray::detail
