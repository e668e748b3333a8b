// The example DEM on a GPU: dem_backend.inl against Thrust's CUDA system. Positions stay in
// device memory; the in-situ renderer reads them there.
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/cuda/vector.h>

#include "granray/renderer.h"

namespace granray::dem::cuda_dem {
template <class T>
using Vector = thrust::cuda::vector<T>;
inline auto policy() { return thrust::cuda::par; }
constexpr BackendKind kBackend = BackendKind::cuda;
constexpr MemorySpace kSpace = MemorySpace::device;
}  // namespace granray::dem::cuda_dem

#define GRANRAY_DEM_BACKEND cuda_dem
#include "dem_backend.inl"
#undef GRANRAY_DEM_BACKEND

namespace granray::dem::detail {
std::unique_ptr<DemSimulation> make_cuda_dem(const DemParams& params, DemStart start) {
  return std::make_unique<cuda_dem::Dem>(params, std::move(start));
}
}  // namespace granray::dem::detail
