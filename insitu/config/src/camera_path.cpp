#include "granray/insitu/camera_path.h"

#include <algorithm>
#include <cstddef>

namespace granray {
namespace {

// Where `key` falls: segment [k, k + 1] of the keys and the fraction u along it.
struct Place {
  std::size_t k;
  double u;
};

Place place_of(const std::vector<double>& at, double key) {
  if (at.size() < 2 || key <= at.front()) return {0, 0.0};
  if (key >= at.back()) return {at.size() - 2, 1.0};
  const std::size_t k =
      static_cast<std::size_t>(std::upper_bound(at.begin(), at.end(), key) - at.begin()) - 1;
  return {k, (key - at[k]) / (at[k + 1] - at[k])};
}

double axis_value(const Vec3& v, int c) { return c == 0 ? v.x : c == 1 ? v.y : v.z; }
double axis_value(float v, int) { return v; }

// The slope at key k for smooth paths: centred differences over the neighbouring keys (one-sided
// at the ends), which reproduce a quantity that is linear in the key exactly, on any spacing.
template <class T>
double slope(const std::vector<T>& values, const std::vector<double>& at, std::size_t k, int c) {
  const std::size_t lo = k == 0 ? 0 : k - 1;
  const std::size_t hi = std::min(k + 1, at.size() - 1);
  return (axis_value(values[hi], c) - axis_value(values[lo], c)) / (at[hi] - at[lo]);
}

template <class T>
double interpolate(const std::vector<T>& values, const std::vector<double>& at, Place p, int c,
                   bool smooth) {
  const double a = axis_value(values[p.k], c);
  if (values.size() == 1) return a;
  const double b = axis_value(values[p.k + 1], c);
  if (!smooth) return a + (b - a) * p.u;
  // Cubic Hermite between the keys with Catmull-Rom slopes, scaled to the segment's length.
  const double h = at[p.k + 1] - at[p.k];
  const double u = p.u, u2 = u * u, u3 = u2 * u;
  return (2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * h * slope(values, at, p.k, c) +
         (-2 * u3 + 3 * u2) * b + (u3 - u2) * h * slope(values, at, p.k + 1, c);
}

Vec3 vec3_at(const CameraPath& path, const std::vector<Vec3>& values, Place p) {
  return {static_cast<float>(interpolate(values, path.at, p, 0, path.smooth)),
          static_cast<float>(interpolate(values, path.at, p, 1, path.smooth)),
          static_cast<float>(interpolate(values, path.at, p, 2, path.smooth))};
}

// A smooth path overshoots its keys between them; zoom and fov stay within the keys' range, so
// that they stay valid.
float number_at(const CameraPath& path, const std::vector<float>& values, Place p, bool bounded) {
  const auto v = static_cast<float>(interpolate(values, path.at, p, 0, path.smooth));
  if (!bounded) return v;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return std::clamp(v, *lo, *hi);
}

}  // namespace

CameraSettings camera_on_path(const CameraPath& path, const CameraSettings& base, double key) {
  CameraSettings cam = base;
  if (path.at.empty()) return cam;
  const Place p = place_of(path.at, key);
  if (!path.position.empty()) cam.position = vec3_at(path, path.position, p);
  if (!path.target.empty()) cam.target = vec3_at(path, path.target, p);
  if (!path.theta.empty()) cam.theta = number_at(path, path.theta, p, false);
  if (!path.phi.empty()) cam.phi = number_at(path, path.phi, p, false);
  if (!path.zoom.empty()) cam.zoom = number_at(path, path.zoom, p, true);
  if (!path.fov.empty()) cam.fov = number_at(path, path.fov, p, true);
  return cam;
}

}  // namespace granray
