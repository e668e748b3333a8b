// The CPU backend: the shared pipeline compiled by the host compiler against Thrust's OpenMP
// system.
#include "cpu_executor.h"

#define GRANRAY_BACKEND_NAMESPACE cpu_backend
#include "backend/thrust_backend.inl"
#undef GRANRAY_BACKEND_NAMESPACE

namespace granray::detail {
std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<cpu_backend::ThrustBackend>();
}
}  // namespace granray::detail
