// ClumpGather's GPU side: the templates and owner ranges in device memory, uploaded once, and a
// kernel of one thread per owner (GatherClumpSpheres, the code the CPU runs too).
#include <cuda_runtime.h>

#include <limits>

#include "buffer.h"
#include "clump_gather_device.h"
#include "cuda_check.h"
#include "cuda_memory.h"

namespace granray::detail {
namespace {

template <class T>
using DeviceArray = Buffer<T, CudaMemory>;

template <class T>
void upload(DeviceArray<T>& to, const std::vector<T>& from) {
  to.resize(from.size());
  if (!from.empty()) {
    GRANRAY_CUDA_CHECK(
        cudaMemcpy(to.data(), from.data(), from.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
}

__global__ void gather_clumps(GatherClumpSpheres gather, std::uint32_t owners) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < owners) gather(i);
}

class CudaClumpStorage final : public DeviceClumpStorage {
 public:
  void upload_templates(const std::vector<std::uint32_t>& first, const std::vector<Vec3>& offsets,
                        const std::vector<float>& radii) override {
    upload(first_, first);
    upload(offsets_, offsets);
    upload(radii_, radii);
  }
  void upload_owners(const std::vector<std::uint32_t>& template_of,
                     const std::vector<std::uint32_t>& first_sphere) override {
    upload(template_of_, template_of);
    upload(first_sphere_, first_sphere);
  }
  void gather(const ClumpOwnersFrame& frame, std::size_t owners, std::size_t spheres,
              const Vec4*& xyzr, const float*& values) override {
    spheres_.resize(spheres);
    values_.resize(frame.values != nullptr ? spheres : 0);
    xyzr = spheres_.data();
    values = frame.values != nullptr ? values_.data() : nullptr;
    if (owners == 0) return;
    const GatherClumpSpheres gather{frame.positions,
                                    frame.orientations,
                                    template_of_.data(),
                                    first_sphere_.data(),
                                    {first_.data(), offsets_.data(), radii_.data()},
                                    frame.values,
                                    spheres_.data(),
                                    values_.data()};
    constexpr unsigned kBlock = 256;
    const auto n = static_cast<std::uint32_t>(owners);
    gather_clumps<<<(n + kBlock - 1) / kBlock, kBlock, 0,
                    static_cast<cudaStream_t>(frame.cuda_stream)>>>(gather, n);
    GRANRAY_CUDA_CHECK(cudaGetLastError());
  }

 private:
  MemoryAccount account_{std::numeric_limits<std::size_t>::max()};
  DeviceArray<std::uint32_t> first_{account_, "clump template ranges"};
  DeviceArray<Vec3> offsets_{account_, "clump template offsets"};
  DeviceArray<float> radii_{account_, "clump template radii"};
  DeviceArray<std::uint32_t> template_of_{account_, "owners' clump templates"};
  DeviceArray<std::uint32_t> first_sphere_{account_, "owners' first spheres"};
  DeviceArray<Vec4> spheres_{account_, "clump component spheres"};
  DeviceArray<float> values_{account_, "clump component sphere values"};
};

}  // namespace

std::unique_ptr<DeviceClumpStorage> make_device_clump_storage() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw DeviceError("granray: clumps in device memory, but no CUDA device is present");
  }
  return std::make_unique<CudaClumpStorage>();
}

}  // namespace granray::detail
