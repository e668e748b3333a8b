#include "granray/camera.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "granray/errors.h"

namespace granray {
namespace {

// Camera set-up runs once per frame on the host, in double, then is rounded to the float frame.
struct D3 {
  double x, y, z;
};
D3 d3(Vec3 v) { return {v.x, v.y, v.z}; }
Vec3 f3(D3 v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}
D3 add(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
D3 sub(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
D3 scale(D3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double length(D3 a) { return std::sqrt(dot(a, a)); }
D3 cross(D3 a, D3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
D3 unit(D3 a) { return scale(a, 1.0 / length(a)); }

constexpr double kPi = 3.14159265358979323846;
double radians(double degrees) { return degrees * kPi / 180.0; }

bool parallel(D3 a, D3 unit_w) {
  const double len = length(a);
  return !(len > 0.0) || length(cross(scale(a, 1.0 / len), unit_w)) <= 1e-6;
}

// The box that frames the camera: the scene's (grains and walls), or for an empty frame a unit
// box at the origin (the image is background anyway).
void frame_box(const SceneBounds& bounds, D3& lo, D3& hi) {
  const bool has_box = bounds.lo.x <= bounds.hi.x && bounds.lo.y <= bounds.hi.y &&
                       bounds.lo.z <= bounds.hi.z && is_finite(bounds.lo.x) &&
                       is_finite(bounds.hi.x) && is_finite(bounds.lo.y) && is_finite(bounds.hi.y) &&
                       is_finite(bounds.lo.z) && is_finite(bounds.hi.z);
  lo = has_box ? d3(bounds.lo) : D3{-0.5, -0.5, -0.5};
  hi = has_box ? d3(bounds.hi) : D3{0.5, 0.5, 0.5};
}

}  // namespace

double scene_radius(const SceneBounds& bounds) {
  D3 lo, hi;
  frame_box(bounds, lo, hi);
  const double radius = 0.5 * length(sub(hi, lo));
  return radius > 0.0 ? radius : 1.0;
}

CameraSetup resolve_camera(const RenderSettings& settings, const SceneBounds& bounds) {
  const CameraSettings& cam = settings.camera;
  if (settings.width <= 0 || settings.height <= 0) {
    throw ConfigError("image size must be positive, got " + std::to_string(settings.width) + " x " +
                      std::to_string(settings.height));
  }
  const PixelRect& region = settings.region;
  if (!region.empty() && (region.x0 < 0 || region.y0 < 0 || region.x1 > settings.width ||
                          region.y1 > settings.height)) {
    throw ConfigError("region [" + std::to_string(region.x0) + ", " + std::to_string(region.y0) +
                      ", " + std::to_string(region.x1 - region.x0) + ", " +
                      std::to_string(region.y1 - region.y0) + "] must lie within the " +
                      std::to_string(settings.width) + " x " + std::to_string(settings.height) +
                      " image");
  }
  const double aspect = static_cast<double>(settings.width) / settings.height;
  const bool ortho = cam.projection == Projection::orthographic;

  D3 lo, hi;
  frame_box(bounds, lo, hi);
  const D3 target = cam.target ? d3(*cam.target) : scale(add(lo, hi), 0.5);
  const double radius = scene_radius(bounds);

  const double fov = radians(cam.fov);
  double ortho_height = 0.0;
  D3 eye;
  if (cam.position) {
    eye = d3(*cam.position);
  } else {
    const double theta = radians(cam.theta), phi = radians(cam.phi);
    const D3 dir{std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
    double distance = 2.0 * radius;
    if (!ortho) {
      const double horizontal = 2.0 * std::atan(aspect * std::tan(fov / 2.0));
      const double f = std::min(fov, horizontal);
      distance = radius / std::sin(f / 2.0) / cam.zoom;
    }
    eye = add(target, scale(dir, distance));
  }
  if (ortho) {
    ortho_height =
        (cam.ortho_height ? *cam.ortho_height : 2.0 * radius / std::min(1.0, aspect)) / cam.zoom;
  }

  const D3 to_eye = sub(eye, target);
  if (!(length(to_eye) > 0.0) || !std::isfinite(length(to_eye))) {
    throw ConfigError("camera position must differ from the target and be finite");
  }
  const D3 w = unit(to_eye);
  D3 up = d3(cam.up);
  if (parallel(up, w)) up = {0.0, 1.0, 0.0};
  if (parallel(up, w)) up = {1.0, 0.0, 0.0};
  const D3 u = unit(cross(up, w));
  const D3 v = cross(w, u);

  CameraSetup setup;
  CameraFrame& f = setup.frame;
  f.eye = f3(eye);
  f.u = f3(u);
  f.v = f3(v);
  f.w = f3(w);
  f.half_height = static_cast<float>(ortho ? ortho_height / 2.0 : std::tan(fov / 2.0));
  f.aspect = static_cast<float>(aspect);
  const PixelRect window = render_window(settings);
  f.width = window.x1 - window.x0;
  f.height = window.y1 - window.y0;
  f.x0 = window.x0;
  f.y0 = window.y0;
  f.full_width = settings.width;
  f.full_height = settings.height;
  f.orthographic = ortho;
  f.column_step = static_cast<float>(2.0 * double(f.aspect) * f.half_height / settings.width);
  f.row_step = static_cast<float>(2.0 * double(f.half_height) / settings.height);

  setup.resolved = {
      f3(eye), f3(target), f3(up), cam.projection, cam.fov, static_cast<float>(ortho_height),
      f.u,     f.v};
  return setup;
}

ShadingParams make_shading_params(const ShadingSettings& shading, const CameraFrame& frame,
                                  const SceneBounds& scene) {
  const Vec3 l = shading.light;
  const Vec3 world = frame.u * l.x + frame.v * l.y + frame.w * l.z;
  ShadingParams p{};
  p.light = directional_light(normalize(world));
  p.ambient = shading.ambient;
  p.diffuse = shading.diffuse;
  p.background = shading.background;
  p.particle_color = shading.particle_color;
  p.outline = shading.outline;
  p.outline_color = shading.outline_color;
  p.depth_cue = shading.depth_cue;
  p.cue_color = shading.depth_cue_color.value_or(shading.background);
  p.eye = frame.eye;
  p.forward = frame.w * -1.0f;
  // contract 2d: z_near and z_far over the box's corners, in double so that every rank and backend
  // gets the same two floats.
  double z_near = INFINITY, z_far = -INFINITY;
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 x = {corner & 1 ? scene.hi.x : scene.lo.x, corner & 2 ? scene.hi.y : scene.lo.y,
                    corner & 4 ? scene.hi.z : scene.lo.z};
    const double z = double(x.x - frame.eye.x) * p.forward.x +
                     double(x.y - frame.eye.y) * p.forward.y +
                     double(x.z - frame.eye.z) * p.forward.z;
    z_near = std::min(z_near, z);
    z_far = std::max(z_far, z);
  }
  const bool has_depth = std::isfinite(z_near) && std::isfinite(z_far) && z_far > z_near;
  p.z_near = has_depth ? static_cast<float>(z_near) : 0.0f;
  p.z_inv_span = has_depth ? static_cast<float>(1.0 / (z_far - z_near)) : 0.0f;
  return p;
}

LightingParams make_lighting_params(const ShadingSettings& shading, const SceneBounds& bounds) {
  if (shading.samples != 1 && shading.samples != 4 && shading.samples != 9 &&
      shading.samples != 16) {
    throw ConfigError("granray: shading samples must be 1, 4, 9 or 16, got " +
                      std::to_string(shading.samples));
  }
  if (shading.ao_samples < 0 || shading.ao_samples > kMaxAoSamples) {
    throw ConfigError("granray: shading ao_samples must be in 0.." + std::to_string(kMaxAoSamples) +
                      ", got " + std::to_string(shading.ao_samples));
  }
  if (!(shading.ao_distance >= 0.0f) || !std::isfinite(shading.ao_distance)) {
    throw ConfigError("granray: shading ao_distance must be finite and >= 0");
  }
  LightingParams p{};
  p.side = static_cast<int>(std::lround(std::sqrt(double(shading.samples))));
  p.shadows = shading.shadows;
  p.ao_samples = shading.ao_samples;
  p.ao_distance = shading.ao_distance;
  if (p.ao_distance == 0.0f && bounds.renderable > 0) {
    // 4 x the mean radius = 2 x the mean diameter.
    p.ao_distance = static_cast<float>(2.0 * bounds.diameter_sum / double(bounds.renderable));
  }
  p.specular = shading.specular;
  p.shininess = shading.shininess;
  p.mask_words = blocked_mask_words(p.ao_samples);
  p.wall_offset = static_cast<float>(1e-6 * scene_radius(bounds));
  return p;
}

}  // namespace granray
