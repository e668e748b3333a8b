// Component spheres of clumps into granray's float4 buffer, on the host or on the GPU, from the
// owners' positions and orientations where the simulation keeps them (issue #68: Chrono
// DEM-Engine's GetOwnerPositionToDevice / GetOwnerOriQToDevice write them into buffers the caller
// owns). The templates and which template each owner is upload once; each frame then costs one
// pass over the owners, and nothing goes through the host on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "granray/kernels/vec.h"
#include "granray/particles.h"

namespace granray {

// One clump template: its component spheres in the body frame.
struct ClumpTemplate {
  std::vector<Vec3> offsets;
  std::vector<float> radii;
};

// One frame's owners, in the gather's memory (device: CUDA device pointers; host: host arrays).
struct ClumpOwnersFrame {
  const float* positions = nullptr;    // x, y, z per owner (float3, as DEM-Engine writes them)
  const Vec4* orientations = nullptr;  // quaternion (x, y, z, w) per owner (DEM-Engine's float4)
  const float* values = nullptr;       // optional value per owner (speed, family) for colour
  void* cuda_stream = nullptr;         // cudaStream_t to run on (device memory)
};

class ClumpGather {
 public:
  // `space`: where the owners' arrays and the spheres live; device needs the CUDA build.
  // Throws ConfigError for a template without spheres, a radius that is not positive and finite,
  // or an owner naming a template that is not there.
  ClumpGather(MemorySpace space, const std::vector<ClumpTemplate>& templates,
              const std::vector<std::uint32_t>& template_of_owner);
  ~ClumpGather();
  ClumpGather(const ClumpGather&) = delete;
  ClumpGather& operator=(const ClumpGather&) = delete;

  // When the owners change clump (DEM-Engine rarely does): uploads the new ids.
  void set_owner_templates(const std::vector<std::uint32_t>& template_of_owner);

  std::size_t owners() const;
  std::size_t spheres() const;

  // Every owner's component spheres (position + the orientation turning the offset; the
  // template's radius), owner after owner in template order, into this gather's buffer; with
  // `frame.values`, each sphere takes its owner's value (ParticleView::scalar). The view points
  // into this gather's memory until the next call.
  ParticleView gather(const ClumpOwnersFrame& frame);

 private:
  struct Storage;  // the templates, the owners' sphere ranges and the spheres, in `space`

  MemorySpace space_;
  std::size_t templates_ = 0;
  std::size_t owners_ = 0;
  std::size_t spheres_ = 0;
  std::unique_ptr<Storage> storage_;
};

}  // namespace granray
