#pragma once

#include "granray/kernels/camera_frame.h"
#include "granray/kernels/lighting.h"
#include "granray/kernels/shading.h"
#include "granray/particles.h"
#include "granray/render_settings.h"

namespace granray {

// What the camera became after the auto rules, for the frame's metadata.
struct ResolvedCamera {
  Vec3 eye;
  Vec3 target;
  Vec3 up;
  Projection projection;
  float fov;           // degrees (perspective)
  float ortho_height;  // world units (orthographic)
  // The image's right and up directions in world space (u and v of contract 2).
  Vec3 right = {1.0f, 0.0f, 0.0f};
  Vec3 screen_up = {0.0f, 1.0f, 0.0f};
};

struct CameraSetup {
  CameraFrame frame;
  ResolvedCamera resolved;
};

// contract 2: target, up fallback and auto placement from the scene's bounds. Throws ConfigError
// for a camera that cannot be formed (eye on the target).
CameraSetup resolve_camera(const RenderSettings& settings, const SceneBounds& bounds);

// R of contract 2: half the diagonal of the box that frames the auto camera (1 for an empty one).
double scene_radius(const SceneBounds& bounds);

// The shading as the kernels see it: the light in world space, and the depth cue's span over the
// 8 corners of `scene`, the box of contract 2 (every rank's particles and the walls).
ShadingParams make_shading_params(const ShadingSettings& shading, const CameraFrame& frame,
                                  const SceneBounds& scene);

// contract 2a resolved for the kernels; `bounds` are the frame's particles over every rank (an
// ao_distance of 0 becomes 4 x their mean radius). Throws ConfigError for impossible values.
LightingParams make_lighting_params(const ShadingSettings& shading, const SceneBounds& bounds);

}  // namespace granray
