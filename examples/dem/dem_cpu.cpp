// The example DEM on the CPU: dem_backend.inl against Thrust's OpenMP system.
#include <thrust/system/omp/execution_policy.h>
#include <thrust/system/omp/vector.h>

#include "granray/renderer.h"

namespace granray::dem::cpu_dem {
template <class T>
using Vector = thrust::omp::vector<T>;
inline auto policy() { return thrust::omp::par; }
constexpr BackendKind kBackend = BackendKind::cpu;
constexpr MemorySpace kSpace = MemorySpace::host;
}  // namespace granray::dem::cpu_dem

#define GRANRAY_DEM_BACKEND cpu_dem
#include "dem_backend.inl"
#undef GRANRAY_DEM_BACKEND

namespace granray::dem::detail {
std::unique_ptr<DemSimulation> make_cpu_dem(const DemParams& params, DemStart start) {
  return std::make_unique<cpu_dem::Dem>(params, std::move(start));
}
}  // namespace granray::dem::detail
