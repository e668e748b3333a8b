// The path-traced still level by level (Executor::traces_paths_by_level, the GPU's way): the same
// paths as TracePaths traces one after another per pixel (path_trace.h), traced one surface at a
// time over a list of the paths still alive. In one pass a warp runs as long as its longest path
// and its lanes wait on each other at every branch of every surface (ncu on the H200: 6 of 32
// lanes active); here every thread of a level's pass serves a live path at the same depth, as the
// bounce pass's levels do (bounce_levels.h). A path's state passes between levels through the
// list (PathState, 64 bytes); it does the same arithmetic in the same order as in one pass, so
// its radiance has the same bits, and each pixel adds its paths' radiance in sample order.
#pragma once

#include <cstdint>

#include "granray/kernels/bounce_levels.h"
#include "granray/kernels/path_trace.h"

namespace granray {

// The most paths a level's list holds by default (GRANRAY_PATHS_IN_FLIGHT sets another): a batch
// of more paths a pixel is traced in parts, so that the lists stay under 2 x 64 bytes x this
// (1 GiB) whatever the image and paths a pixel. The deeper levels hold few paths whose walks take
// long; more paths in flight fill the GPU better there (the H200's pour still: 4 M paths took 1.5
// ms at level 0, 270,000 took 0.7 ms at level 2; 8 M in flight cast it 1.19x faster than 4 M).
constexpr std::uint32_t kMostPathsInFlight = 1u << 23;

// Where a level's paths that go on are appended: a warp at a time, its lanes in order.
struct PathList {
  PathState* paths;
  std::uint32_t* cursor;

  // Every thread of a pass calls it, `alive` or not, so that a warp appends at once.
  GRANRAY_HD_INLINE void append(const PathState& state, bool alive) const {
    const std::uint32_t slot = append_slots(cursor, alive ? 1u : 0u);
    if (alive) paths[slot] = state;
  }
};

// A batch of paths: paths [first, first + count) of every pixel; its path k is pixel k / count's
// sample first + k % count (SampleOrder's record).
struct PathBatch {
  CameraFrame camera;
  int first;
  int count;

  GRANRAY_HD SampleOfRecord path_of(std::uint32_t k) const {
    return sample_of_record(camera, count, k);
  }
  GRANRAY_HD PathRandom random(const SampleOfRecord& at) const {
    return path_random(camera, at.i, at.j);
  }
};

// Level 0: each path of the batch leaves the camera, at its position in SampleOrder (8 x 4 pixel
// tiles, so that the later levels' paths, appended warp by warp, lie near each other too), and
// meets its first surface.
template <class Scene, class Occluder, class CameraTracer>
struct StartPaths {
  Scene scene;
  Occluder occluded;
  CameraTracer camera_tracer;
  SampleOrder order;  // over the batch's paths a pixel
  PathBatch batch;
  ShadingParams shading;
  PathParams path;
  float wall_offset;
  PathList next;
  Vec3* radiance;  // per path of the batch, once it has ended

  GRANRAY_HD void operator()(std::uint32_t p) const {
    SampleOfRecord at;
    std::uint32_t k = 0;
    PathState state{};
    bool alive = false;
    if (order.at(p, at, k)) {
      const int s = batch.first + at.s;
      const PathRandom random = batch.random(at);
      state = start_path(batch.camera, path, random, at.i, at.j, s);
      state.path = k;
      const BounceHit hit = path_hit(scene, camera_tracer, state, 0, at.i, at.j);
      alive = !path_meets(scene, occluded, shading, path, wall_offset, random, s, 0, hit, state);
      if (!alive) radiance[k] = state.radiance;
    }
    next.append(state, alive);
  }
};

// The group a live path is traced in when a level's paths are put in order (GRANRAY_PATH_ORDER):
// `surfaces` (the default), whether it leaves a wall (a floor's rays, which mostly leave the
// grains' grid) or a grain, whether its last turn was specular (a mirror's or glass's ray) and its
// direction's octant; `turns`, the last two alone. Paths of a group walk alike, so a warp's lanes
// wait less on each other; within a group they keep the order they were appended in, near their
// pixels'.
enum class PathOrder { appended, turns, surfaces };

struct PathGroupKey {
  const PathState* level;
  bool by_surface;
  GRANRAY_HD std::uint8_t operator()(std::uint32_t e) const {
    const PathState& p = level[e];
    const unsigned octant = (p.ray.dir.x < 0.0f ? 1u : 0u) | (p.ray.dir.y < 0.0f ? 2u : 0u) |
                            (p.ray.dir.z < 0.0f ? 4u : 0u);
    const unsigned specular = p.sees_sun != 0u ? 8u : 0u;
    const unsigned from_wall = by_surface && p.from >= kWallIdBase ? 16u : 0u;
    return static_cast<std::uint8_t>(octant | specular | from_wall);
  }
};

// Level `bounce` (1..bounces): each live path meets its next surface.
template <class Scene, class Occluder>
struct ContinuePaths {
  Scene scene;
  Occluder occluded;
  PathBatch batch;
  ShadingParams shading;
  PathParams path;
  float wall_offset;
  int bounce;
  const PathState* level;      // this level's paths
  const std::uint32_t* order;  // the order they are traced in (null: as they lie)
  PathList next;
  Vec3* radiance;

  GRANRAY_HD void operator()(std::uint32_t e) const {
    PathState state = level[order != nullptr ? order[e] : e];
    const SampleOfRecord at = batch.path_of(state.path);
    const int s = batch.first + at.s;
    const BounceHit hit = path_hit(scene, NoCameraTracer{}, state, bounce, at.i, at.j);
    const bool alive = !path_meets(scene, occluded, shading, path, wall_offset, batch.random(at), s,
                                   bounce, hit, state);
    if (!alive) radiance[state.path] = state.radiance;
    next.append(state, alive);
  }
};

// Each pixel's running sum gains its paths of the batch, in the order of their samples (as
// TracePaths adds them).
struct AddPathRadiance {
  PathBatch batch;
  const Vec3* radiance;  // per path of the batch
  Vec3* sums;            // per pixel

  GRANRAY_HD void operator()(int i, int j) const {
    const std::size_t pixel =
        static_cast<std::size_t>(j) * static_cast<std::size_t>(batch.camera.width) +
        static_cast<std::size_t>(i);
    Vec3 sum = batch.first == 0 ? Vec3{0.0f, 0.0f, 0.0f} : sums[pixel];
    const Vec3* mine = radiance + first_sample_of(batch.camera, i, j, batch.count);
    for (int k = 0; k < batch.count; ++k) sum = sum + mine[k];
    sums[pixel] = sum;
  }
};

}  // namespace granray
