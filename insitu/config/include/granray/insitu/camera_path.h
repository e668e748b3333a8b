// [insitu.camera.path] (contract 2f): a camera that moves with the simulation, keyed by step or
// simulated time, linear or smooth (Catmull-Rom) between its keys.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "granray/render_settings.h"

namespace granray {

struct CameraPath {
  enum class Keys { step, time };
  Keys keys = Keys::step;
  std::vector<double> at;  // strictly increasing
  // Each list empty (not on the path) or one value per key.
  std::vector<Vec3> position, target;
  std::vector<float> theta, phi, zoom, fov;
  bool smooth = false;  // Catmull-Rom through the keys; else straight between them
};

// `base` with the path's quantities at `key` (a step or a time, as path.keys says); before the
// first key the first key's values, after the last the last's.
CameraSettings camera_on_path(const CameraPath& path, const CameraSettings& base, double key);

// The camera of a frame at `step` and `time`: on the path when there is one, else `base`.
inline CameraSettings frame_camera(const std::optional<CameraPath>& path,
                                   const CameraSettings& base, std::int64_t step, double time) {
  if (!path) return base;
  return camera_on_path(*path, base,
                        path->keys == CameraPath::Keys::step ? static_cast<double>(step) : time);
}

}  // namespace granray
