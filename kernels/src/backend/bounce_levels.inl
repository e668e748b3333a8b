// The bounce pass level by level (kernels/bounce_levels.h), for one backend: each level's rays
// traced as they lie in the list, their surfaces appending the next level's, then the colours
// gathered from the deepest level up.
#pragma once

#include "backend_prelude.inl"
#include "granray/kernels/bounce_levels.h"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

class BounceLevels {
 public:
  explicit BounceLevels(detail::MemoryAccount& account)
      : rays_(account, "bounce rays"),
        nodes_(account, "bounce surfaces"),
        values_(account, "bounce colours"),
        splits_(account, "bounce surfaces' ray counts"),
        root_nodes_(account, "samples' bounce surfaces"),
        root_splits_(account, "samples' bounce ray counts"),
        cursor_(account, "bounce rays' count"),
        hits_(account, "bounce rays' grains") {}

  // Each sample's mix into `mixes` and, when `ray_counts` is given, each pixel's bounce rays and
  // their secondary rays there; false (then neither is complete) when the rays outgrow the
  // bound.
  template <class Scene, class Occluder>
  bool trace(const Executor& exec, const Scene& scene, const Occluder& occluded,
             const CameraFrame& camera, const ShadingParams& shading,
             const LightingParams& lighting, const SurfaceSample* surfaces,
             const std::uint8_t* slots, std::size_t samples, Vec4* mixes,
             std::uint32_t* ray_counts) {
    const auto policy = exec.policy();
    const SampleOrder order{camera, lighting.side * lighting.side};
    // Past kLevelRaysPerSample the frame takes the depth-first pass (frame_bytes_per_pixel
    // counts the list up to that bound); the list's slots, and their count past the bound, stay
    // 32-bit.
    const std::size_t most = kLevelRaysPerSample * samples;
    constexpr std::size_t kMostSlots = std::numeric_limits<std::uint32_t>::max() / 4;
    if (order.positions() > kMostSlots || most > kMostSlots || scene.table.bounces < 1) {
      return false;
    }
    const auto n0 = static_cast<std::uint32_t>(order.positions());
    const auto capacity = static_cast<std::uint32_t>(most);
    if (ray_counts != nullptr) {
      thrust::fill_n(policy, ray_counts, std::size_t(camera.width) * std::size_t(camera.height),
                     0u);
    }
    rays_.resize(capacity);
    nodes_.resize(capacity);
    values_.resize(capacity);
    splits_.resize(capacity);
    root_nodes_.resize(n0);
    root_splits_.resize(n0);
    cursor_.resize(1);
    thrust::fill_n(policy, cursor_.data(), 1, 0u);
    const RayList list{rays_.data(), cursor_.data(), capacity};
    exec.for_each_index(
        n0, SplitSampleSurfaces{order, lighting, scene.table.params, surfaces, slots, list,
                                root_nodes_.data(), root_splits_.data()});
    // Level d's rays are the list's [begin[d], begin[d + 1]); the deepest level's appends none.
    std::uint32_t begin[kMaxBounce + 2] = {};
    std::uint32_t start = 0, end = appended(exec);
    int depth = 0;
    // With shadow or occlusion rays, each level's grains are found by a pass of their own before
    // the level is lit and split (FindLevelHits): on an H200, 1 M grains, 4 bounces with shadows,
    // bounce pass 2.24-2.26 -> 1.54 ms. Unlit, the one pass stays (1.27 against 1.40-1.41 ms):
    // docs/benchmarks.md.
    const bool find_hits_apart = has_secondary_rays(lighting);
    if (find_hits_apart) hits_.resize(capacity);
    while (end > start) {
      if (end > capacity) return false;
      ++depth;
      begin[depth] = start;
      LevelHit* found = nullptr;
      if (find_hits_apart) {
        found = hits_.data() + start;
        exec.for_each_index(end - start, FindLevelHits<Scene>{scene, rays_.data() + start, found});
      }
      exec.for_each_index(
          end - start, TraceLevel<Scene, Occluder>{scene, occluded, camera, shading, lighting,
                                                   rays_.data() + start, nodes_.data() + start,
                                                   values_.data() + start, splits_.data() + start,
                                                   depth, list, ray_counts, found});
      start = end;
      end = appended(exec);
    }
    begin[depth + 1] = start;
    for (int d = depth - 1; d >= 1; --d) {
      exec.for_each_index(begin[d + 1] - begin[d],
                          GatherLevel{nodes_.data() + begin[d], splits_.data() + begin[d],
                                      values_.data(), values_.data() + begin[d]});
    }
    exec.for_each_index(
        n0, FinishMixes{order, root_nodes_.data(), root_splits_.data(), values_.data(), mixes});
    return true;
  }

 private:
  // The list's count so far (its slots taken, including any past its capacity).
  std::uint32_t appended(const Executor& exec) const {
    std::uint32_t count = 0;
    exec.download(cursor_.data(), &count, 1);
    return count;
  }

  Array<LevelRay> rays_;          // the list: every level's rays
  Array<BounceNode> nodes_;       // per ray of the list, where its surface splits
  Array<Vec3> values_;            // per ray of the list: the colour it sees
  Array<std::uint8_t> splits_;    // per ray of the list: how many rays its surface splits into
  Array<BounceNode> root_nodes_;  // per position of level 0 (SampleOrder)
  Array<std::uint8_t> root_splits_;
  Array<std::uint32_t> cursor_;
  Array<LevelHit> hits_;  // per ray of the list, when each level's are found apart
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
