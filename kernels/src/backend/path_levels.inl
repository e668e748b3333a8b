// The path-traced still level by level (kernels/path_levels.h), for one backend: each level's
// live paths traced as they lie in their list, those that go on appended to the next level's,
// then each pixel's paths added to its sum.
#pragma once

#include <algorithm>
#include <limits>
#include <string>

#include <thrust/fill.h>

#include "backend_prelude.inl"
#include "env_switches.h"
#include "granray/kernels/path_levels.h"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The most paths in a level's list: GRANRAY_PATHS_IN_FLIGHT, else kMostPathsInFlight.
inline std::size_t most_paths_in_flight() {
  return static_cast<std::size_t>(detail::env_number(
      "GRANRAY_PATHS_IN_FLIGHT", 1.0, double(1u << 30), true, double(kMostPathsInFlight)));
}

// How each level's paths are ordered before they are traced: GRANRAY_PATH_ORDER, else in groups
// by their turns and the surfaces they leave (on the H200 the pour's still 1.06x faster than as
// appended, the hopper's 1.04x, the heap's 1.01x; docs/benchmarks-log.md).
inline PathOrder path_order() {
  constexpr PathOrder orders[] = {PathOrder::surfaces, PathOrder::turns, PathOrder::appended};
  return orders[detail::env_word("GRANRAY_PATH_ORDER", {"surfaces", "turns", "appended"}, 0)];
}

class PathLevels {
 public:
  explicit PathLevels(detail::MemoryAccount& account)
      : even_(account, "paths of even levels"),
        odd_(account, "paths of odd levels"),
        radiance_(account, "paths' radiance"),
        group_(account, "paths' groups"),
        order_(account, "paths' order"),
        cursors_(account, "paths' counts by level") {}

  // Paths [first, first + count) of every pixel added to its running sum in `sums`, as
  // TracePaths adds them. A part whose lists find no memory is traced again in halves, down to a
  // path a pixel: a part adds to the sums only in its last pass, so one that ran out left them as
  // they were, and smaller parts add the same paths in the same order (the same image).
  template <class Scene, class Occluder, class CameraTracer>
  void trace(const Executor& exec, const Scene& scene, const Occluder& occluded,
             const CameraTracer& camera_tracer, const CameraFrame& camera,
             const ShadingParams& shading, const PathParams& path, float wall_offset, int first,
             int count, Vec3* sums) {
    const std::size_t pixels = std::size_t(camera.width) * std::size_t(camera.height);
    if (pixels == 0) return;
    int per_part = static_cast<int>(std::clamp<std::size_t>(most_paths_in_flight() / pixels, 1,
                                                            static_cast<std::size_t>(count)));
    if (paths_that_fit_ > 0) per_part = std::min(per_part, paths_that_fit_);
    const PathOrder grouping = path_order();
    for (int part = first; part < first + count;) {
      const int paths = std::min(per_part, first + count - part);
      try {
        trace_part(exec, scene, occluded, camera_tracer, shading, path, wall_offset,
                   PathBatch{camera, part, paths}, grouping, sums);
      } catch (const OutOfMemoryError&) {
        give_back_lists();
        if (paths == 1) throw;
        per_part = paths / 2;
        paths_that_fit_ = per_part;  // the still's later batches start there
        ++parts_retried_;
        continue;
      }
      part += paths;
    }
  }

  // Gives the lists back, and forgets how many paths a pixel found room. The still's batches
  // share both (render_path calls this after the last), and a simulation's memory should not hold
  // the lists until the next still, a rare frame, by when it may have room for more.
  void release() {
    give_back_lists();
    paths_that_fit_ = 0;
    parts_retried_ = 0;
  }

  // The parts traced again in halves since the lists were last given back (FrameStats).
  std::uint64_t parts_retried() const { return parts_retried_; }

 private:
  void give_back_lists() {
    even_.release();
    odd_.release();
    radiance_.release();
    group_.release();
    order_.release();
  }

  template <class Scene, class Occluder, class CameraTracer>
  void trace_part(const Executor& exec, const Scene& scene, const Occluder& occluded,
                  const CameraTracer& camera_tracer, const ShadingParams& shading,
                  const PathParams& path, float wall_offset, const PathBatch& batch,
                  PathOrder grouping, Vec3* sums) {
    const CameraFrame& camera = batch.camera;
    // At most most_paths_in_flight(), or one a pixel where the image has more pixels.
    const std::size_t paths =
        std::size_t(camera.width) * std::size_t(camera.height) * std::size_t(batch.count);
    if (paths > std::numeric_limits<std::uint32_t>::max() / 4) {
      throw OutOfMemoryError("granray: a path-traced still of " + std::to_string(paths) +
                             " paths a pass is more than its lists hold (make the image smaller)");
    }
    even_.resize(paths);
    odd_.resize(paths);
    radiance_.resize(paths);
    cursors_.resize(static_cast<std::size_t>(path.bounces) + 1);
    thrust::fill_n(exec.policy(), cursors_.data(), cursors_.size(), 0u);
    const SampleOrder order{camera, batch.count};
    exec.for_each_index(
        static_cast<std::uint32_t>(order.positions()),
        StartPaths<Scene, Occluder, CameraTracer>{
            scene, occluded, camera_tracer, order, batch, shading, path, wall_offset,
            PathList{even_.data(), cursors_.data()}, radiance_.data()});
    // Every path has ended after `bounces` surfaces (path_meets), so the last level appends none.
    std::uint32_t alive = count_of(exec, 0);
    for (int bounce = 1; alive > 0 && bounce <= path.bounces; ++bounce) {
      const Array<PathState>& level = bounce % 2 == 1 ? even_ : odd_;
      Array<PathState>& next = bounce % 2 == 1 ? odd_ : even_;
      const std::uint32_t* order =
          grouping == PathOrder::appended ? nullptr : put_in_groups(exec, level, alive, grouping);
      exec.for_each_index(
          alive, ContinuePaths<Scene, Occluder>{
                     scene, occluded, batch, shading, path, wall_offset, bounce, level.data(),
                     order, PathList{next.data(), cursors_.data() + bounce}, radiance_.data()});
      alive = bounce < path.bounces ? count_of(exec, bounce) : 0u;
    }
    exec.for_each_pixel(camera.width, camera.height,
                        AddPathRadiance{batch, radiance_.data(), sums});
  }

  // The level's `alive` paths in order of their groups (PathGroupKey), each group in the order
  // its paths were appended: their places in `level`.
  const std::uint32_t* put_in_groups(const Executor& exec, const Array<PathState>& level,
                                     std::uint32_t alive, PathOrder grouping) {
    auto policy = exec.policy();
    group_.resize(alive);
    order_.resize(alive);
    thrust::transform(policy, Index(0), Index(alive), group_.data(),
                      PathGroupKey{level.data(), grouping == PathOrder::surfaces});
    thrust::sequence(policy, order_.data(), order_.data() + alive);
    thrust::stable_sort_by_key(policy, group_.data(), group_.data() + alive, order_.data());
    return order_.data();
  }

  // How many paths level `bounce` passed on.
  std::uint32_t count_of(const Executor& exec, int bounce) const {
    std::uint32_t count = 0;
    exec.download(cursors_.data() + bounce, &count, 1);
    return count;
  }

  Array<PathState> even_;      // the paths of levels 0, 2, ...
  Array<PathState> odd_;       // and of levels 1, 3, ...
  Array<Vec3> radiance_;       // per path of the batch, once it has ended
  Array<std::uint8_t> group_;  // per live path of a level (GRANRAY_PATH_ORDER)
  Array<std::uint32_t> order_;
  Array<std::uint32_t> cursors_;  // per level: the paths it passed on
  int paths_that_fit_ = 0;  // paths a pixel in a part, once a part found no memory (0: none)
  std::uint64_t parts_retried_ = 0;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
