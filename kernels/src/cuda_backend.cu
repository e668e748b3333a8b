// The CUDA backend: the shared pipeline compiled by nvcc against Thrust's CUDA system.
#include <thrust/system/cuda/execution_policy.h>

#include <memory>

#include "cuda_check.h"
#include "granray/particles.h"

namespace granray::cuda_backend {

struct Memory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    GRANRAY_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) { cudaFree(p); }
};

// cudaMalloc refuses what the device cannot hold by itself; no extra cap by default.
inline std::size_t default_memory_limit() { return ~std::size_t{0}; }

class Executor {
 public:
  static constexpr MemorySpace native_space = MemorySpace::device;
  static constexpr const char* name = "cuda";

  explicit Executor(void* cuda_stream) : stream_(static_cast<cudaStream_t>(cuda_stream)) {}
  auto policy() const { return thrust::cuda::par.on(stream_); }
  void synchronize() const { GRANRAY_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  template <class Array, class T>
  void upload(Array& dst, const T* src, std::size_t count) const {
    dst.resize(count);
    GRANRAY_CUDA_CHECK(
        cudaMemcpyAsync(dst.data(), src, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  template <class T>
  void download(const T* src, T* dst, std::size_t count) const {
    GRANRAY_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    synchronize();
  }

 private:
  cudaStream_t stream_;
};

}  // namespace granray::cuda_backend

#define GRANRAY_BACKEND_NAMESPACE cuda_backend
#include "backend_impl.inl"
#undef GRANRAY_BACKEND_NAMESPACE

namespace granray::detail {

std::unique_ptr<Backend> make_cuda_backend() {
  int device = 0;
  GRANRAY_CUDA_CHECK(cudaGetDevice(&device));
  return std::make_unique<cuda_backend::ThrustBackend>();
}

bool cuda_runtime_has_device() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

}  // namespace granray::detail
