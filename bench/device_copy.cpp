#include "device_copy.h"

#include <string>

#include "granray/errors.h"

#ifdef GRANRAY_BENCH_CUDA_RUNTIME
#include <cuda_runtime.h>
#endif

namespace granray::bench {

#ifdef GRANRAY_BENCH_CUDA_RUNTIME

bool can_copy_to_device() { return true; }

DeviceCopy::DeviceCopy(const void* host, std::size_t bytes, const char* what) {
  if (bytes == 0) return;
  cudaError_t status = cudaMalloc(&device_, bytes);
  if (status == cudaSuccess) status = cudaMemcpy(device_, host, bytes, cudaMemcpyHostToDevice);
  if (status != cudaSuccess) {
    cudaFree(device_);
    device_ = nullptr;
    throw DeviceError(std::string("granray-bench: copying the ") + what + " (" +
                      std::to_string(bytes) +
                      " bytes) to the device: " + cudaGetErrorString(status));
  }
}

DeviceCopy::~DeviceCopy() { cudaFree(device_); }

#else

bool can_copy_to_device() { return false; }

DeviceCopy::DeviceCopy(const void*, std::size_t, const char* what) {
  throw DeviceError(std::string("granray-bench: this build has no CUDA runtime to hold the ") +
                    what + " in device memory (--in-place needs a CUDA build)");
}

DeviceCopy::~DeviceCopy() = default;

#endif

}  // namespace granray::bench
