// The interface each backend implements; one implementation source (backend/thrust_backend.inl) is
// compiled once per backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "granray/renderer.h"

namespace granray::detail {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual FrameStats render(const ParticleView& particles, const RenderSettings& settings,
                            const RenderOptions& options, Image& image) = 0;
  virtual std::vector<HostParticles> halo_for(const ParticleView& particles,
                                              const RenderSettings& settings,
                                              const RenderOptions& options,
                                              const std::vector<RankBox>& boxes, int rank) = 0;
  virtual FrameStats cast_with_halo(const ParticleView& particles, const RenderSettings& settings,
                                    const RenderOptions& options, const HostParticles& halo,
                                    const std::vector<RankBox>& boxes, int rank, bool keep_walls,
                                    std::vector<SecondaryQuery>& queries,
                                    std::vector<std::uint64_t>& targets) = 0;
  virtual std::vector<std::uint64_t> pick_halo(const ParticleView& particles,
                                               const RenderSettings& settings,
                                               const RenderOptions& options,
                                               const std::vector<RankBox>& boxes, int rank) = 0;
  virtual std::size_t halo_mailbox_capacity() = 0;
  virtual std::vector<unsigned char> share_halo_mailbox(std::size_t grains) = 0;
  virtual void open_halo_mailboxes(const std::vector<std::vector<unsigned char>>& handles,
                                   int self) = 0;
  virtual void post_halo(void* cuda_stream) = 0;
  virtual FrameStats cast_with_halo(const ParticleView& particles, const RenderSettings& settings,
                                    const RenderOptions& options, const MailboxHalo& halo,
                                    const std::vector<RankBox>& boxes, int rank, bool keep_walls,
                                    std::vector<SecondaryQuery>& queries,
                                    std::vector<std::uint64_t>& targets) = 0;
  virtual double answer_queries(const std::vector<SecondaryQuery>& queries,
                                std::vector<std::uint32_t>& words) = 0;
  virtual void shade_with_answers(const RenderSettings& settings,
                                  const std::vector<std::uint32_t>& samples,
                                  const std::vector<std::uint32_t>& words, Image& image,
                                  FrameStats& stats) = 0;
  virtual HostSamples shade_samples_with_answers(const std::vector<std::uint32_t>& samples,
                                                 const std::vector<std::uint32_t>& words) = 0;
  virtual std::vector<unsigned char> share_planes(std::size_t pixels) = 0;
  virtual void open_shared_planes(const std::vector<std::vector<unsigned char>>& handles,
                                  int self) = 0;
  virtual void composite_shared_planes(void* cuda_stream, const RenderSettings& settings,
                                       bool with_hits, Image& image, FrameStats& stats) = 0;
  virtual void copy_to_host(const ParticleView& particles, HostParticles& out) = 0;
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
