// What every part of the backend (thrust_backend.inl) builds on: the Thrust algorithms and
// iterators, the backend's owning arrays and its index range, and the host clock. A part
// includes this first, then the kernel headers and the other parts it uses; the backend's
// translation unit (cpu_backend.cpp, cuda_backend.cu) defines Memory and Executor in
// granray::GRANRAY_BACKEND_NAMESPACE before it includes any part.
#pragma once

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backend.h"
#include "buffer.h"
#include "granray/camera.h"
#include "granray/errors.h"
#include "granray/pixel_rect.h"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

template <class T>
using Array = detail::Buffer<T, Memory>;
using Index = thrust::counting_iterator<std::uint32_t>;

// Host time for the frame's statistics.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
