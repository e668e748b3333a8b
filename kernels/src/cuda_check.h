#pragma once

#include <cuda_runtime.h>

#include <string>

#include "granray/errors.h"

namespace granray::detail {

inline void check_cuda(cudaError_t status, const char* expression, const char* file, int line) {
  if (status == cudaSuccess) return;
  const std::string message = std::string(file) + ":" + std::to_string(line) + ": " + expression +
                              " failed: " + cudaGetErrorName(status) + " (" +
                              cudaGetErrorString(status) + ")";
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // allocation failures are not sticky: clear and report
    throw OutOfMemoryError(message);
  }
  throw DeviceError(message);
}

}  // namespace granray::detail

#define GRANRAY_CUDA_CHECK(expression) \
  ::granray::detail::check_cuda((expression), #expression, __FILE__, __LINE__)
