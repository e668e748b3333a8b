// The primary rays' near bounds per block of pixels (kernels/near_bounds.h), built for a frame's
// camera from its grains, and the arrays that hold them. Part of the backend
// (thrust_backend.inl); ParticleGrid owns one.
#pragma once

#include "backend_prelude.inl"
#include "granray/kernels/near_bounds.h"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

class NearBounds {
 public:
  explicit NearBounds(detail::MemoryAccount& account)
      : bits_(account, "primary rays' near bounds") {}

  // Each block's bound over the grains `r` seen by `camera`: one pass over the grains, an atomic
  // minimum per block a footprint reaches; no wait.
  template <class E>
  NearBoundsView build(const E& exec, const ResidentParticles& r, const CameraFrame& camera) {
    const int columns = near_block_columns(camera);
    const std::size_t blocks =
        static_cast<std::size_t>(columns) * static_cast<std::size_t>(near_block_rows(camera));
    bits_.resize(blocks + 1);  // the last word: whether every grain marked its blocks
    auto policy = exec.policy();
    thrust::fill_n(policy, bits_.data(), blocks, kNoGrainNear);
    thrust::fill_n(policy, bits_.data() + blocks, 1, 1u);
    const NearBoundsView view{bits_.data(), bits_.data() + blocks, columns};
    if (r.count > 0) {
      thrust::for_each_n(policy, Index(0), r.count,
                         MarkNearBounds{camera, r.spheres, bits_.data(), bits_.data() + blocks,
                                        columns, most_near_blocks_per_grain(camera)});
    }
    return view;
  }

 private:
  Array<std::uint32_t> bits_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
