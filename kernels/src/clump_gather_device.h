// The GPU side of ClumpGather (clump_gather_cuda.cu): its arrays in device memory and the gather
// kernel. Without the CUDA build, make_device_clump_storage throws DeviceError.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "granray/clump_gather.h"
#include "granray/kernels/clump_spheres.h"

namespace granray::detail {

class DeviceClumpStorage {
 public:
  virtual ~DeviceClumpStorage() = default;
  virtual void upload_templates(const std::vector<std::uint32_t>& first,
                                const std::vector<Vec3>& offsets,
                                const std::vector<float>& radii) = 0;
  virtual void upload_owners(const std::vector<std::uint32_t>& template_of,
                             const std::vector<std::uint32_t>& first_sphere) = 0;
  // Runs the gather over `owners` owners into `spheres` spheres; returns the spheres and, with
  // owner values, the sphere values (else null) in device memory.
  virtual void gather(const ClumpOwnersFrame& frame, std::size_t owners, std::size_t spheres,
                      const Vec4*& xyzr, const float*& values) = 0;
};

std::unique_ptr<DeviceClumpStorage> make_device_clump_storage();

}  // namespace granray::detail
