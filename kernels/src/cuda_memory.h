// Device memory for the CUDA side's owning arrays (detail::Buffer<T, CudaMemory>): cudaMalloc,
// whose failure is an OutOfMemoryError (cuda_check.h), and cudaFree.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.h"

namespace granray::detail {

struct CudaMemory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    GRANRAY_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) { cudaFree(p); }
};

}  // namespace granray::detail
