// The interface each backend implements; one implementation source (backend/thrust_backend.inl) is
// compiled once per backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "granray/rank_stages.h"
#include "granray/renderer.h"

namespace granray::detail {

// What a one-rank frame needs of a backend; the stages of frames across ranks are the
// RankStages it implements too (kernels/internal/granray/rank_stages.h).
class Backend : public RankStages {
 public:
  virtual FrameStats render(const ParticleView& particles, const RenderSettings& settings,
                            const RenderOptions& options, Image& image) = 0;
  virtual HostGrid build_grid(const ParticleView& particles, GridCells cells) = 0;
  virtual FrameExtent measure(const ParticleView& particles) = 0;
  virtual void set_memory_limit(std::size_t bytes) = 0;
  virtual std::size_t memory_available() = 0;
  virtual double time_hash_sort(const ParticleView& particles) = 0;
};

std::unique_ptr<Backend> make_cpu_backend();
#if defined(GRANRAY_HAVE_CUDA)
std::unique_ptr<Backend> make_cuda_backend();
bool cuda_runtime_has_device();
int cuda_runtime_device_count();
void cuda_runtime_use_device(int index);
#endif

}  // namespace granray::detail
