// [insitu.camera.path] and [insitu.orbit] (contract 2f): the cameras that move, along a path keyed
// by step or time, or round the bed in a ring of views.
#include <toml++/toml.h>

#include <cmath>
#include <string>
#include <vector>

#include "config_tables.h"
#include "granray/insitu/camera_path.h"
#include "granray/io/cinema_database.h"
#include "toml_table.h"

namespace granray::detail {
namespace {

// An array of `count` items (any count when 0), each read by `item`; empty when the key is absent.
template <class T, class Item>
std::vector<T> list_of(const TableReader& t, const char* key, std::size_t count,
                       const std::string& what, Item&& item) {
  std::vector<T> out;
  const toml::node* node = t.find(key);
  if (!node) return out;
  const toml::array* array = node->as_array();
  const std::string expected = "must be an array of " +
                               (count > 0 ? std::to_string(count) + " " : std::string()) + what +
                               (count > 0 ? ", one per key in 'at'" : "");
  if (!array || array->empty() || (count > 0 && array->size() != count)) t.fail(key, expected);
  for (const toml::node& n : *array) {
    const std::optional<T> value = item(n);
    if (!value) t.fail(key, expected);
    out.push_back(*value);
  }
  return out;
}

std::optional<double> finite_number(const toml::node& n) {
  if (!n.is_number() || !std::isfinite(*n.value<double>())) return std::nullopt;
  return *n.value<double>();
}

std::vector<float> numbers_per_key(const TableReader& t, const char* key, std::size_t count) {
  return list_of<float>(t, key, count, "finite numbers", [](const toml::node& n) {
    const auto v = finite_number(n);
    return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
  });
}

std::vector<Vec3> points_per_key(const TableReader& t, const char* key, std::size_t count) {
  return list_of<Vec3>(t, key, count, "[x, y, z] points", [](const toml::node& n) {
    const toml::array* xyz = n.as_array();
    if (!xyz || xyz->size() != 3) return std::optional<Vec3>();
    double c[3];
    for (int k = 0; k < 3; ++k) {
      const auto v = finite_number((*xyz)[std::size_t(k)]);
      if (!v) return std::optional<Vec3>();
      c[k] = *v;
    }
    return std::optional<Vec3>(
        Vec3{static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2])});
  });
}

}  // namespace

CameraPath read_camera_path(const TableReader& t) {
  t.only_keys(keys_of("camera.path"));
  CameraPath path;
  if (const auto keys = t.one_of("keys", {"step", "time"})) {
    path.keys = *keys == "time" ? CameraPath::Keys::time : CameraPath::Keys::step;
  }
  if (const auto how = t.one_of("interpolate", {"linear", "smooth"}))
    path.smooth = *how == "smooth";
  const std::vector<float> at = numbers_per_key(t, "at", 0);
  if (at.empty()) t.fail("at", "is required: the steps or times of the path's keys");
  for (std::size_t k = 1; k < at.size(); ++k) {
    if (!(at[k] > at[k - 1])) t.fail("at", "must increase from key to key");
  }
  path.at.assign(at.begin(), at.end());
  const std::size_t n = at.size();
  path.position = points_per_key(t, "position", n);
  path.target = points_per_key(t, "target", n);
  path.theta = numbers_per_key(t, "theta", n);
  path.phi = numbers_per_key(t, "phi", n);
  path.zoom = numbers_per_key(t, "zoom", n);
  path.fov = numbers_per_key(t, "fov", n);
  for (const float z : path.zoom) {
    if (!(z > 0.0f)) t.fail("zoom", "must hold numbers > 0");
  }
  for (const float f : path.fov) {
    if (!(f > 0.0f && f < 180.0f)) t.fail("fov", "must hold degrees in (0, 180)");
  }
  if (path.position.empty() && path.target.empty() && path.theta.empty() && path.phi.empty() &&
      path.zoom.empty() && path.fov.empty()) {
    t.fail("at", "moves nothing: give position, target, theta, phi, zoom or fov per key");
  }
  return path;
}

OrbitSettings read_orbit(const TableReader& t) {
  t.only_keys(keys_of("orbit"));
  OrbitSettings orbit;
  orbit.theta = numbers_per_key(t, "theta", 0);
  if (orbit.theta.empty()) t.fail("theta", "is required: the ring's polar angles, degrees");
  const auto count = t.integer("phi_count");
  if (!count) t.fail("phi_count", "is required: the azimuths per polar angle");
  if (*count < 1 || *count > 360) t.fail("phi_count", "must be in 1..360");
  orbit.phi_count = static_cast<int>(*count);
  if (const auto cinema = t.string("cinema")) {
    const std::string ending = ".cdb";
    if (cinema->size() <= ending.size() ||
        cinema->compare(cinema->size() - ending.size(), ending.size(), ending) != 0) {
      t.fail("cinema",
             "must name a folder ending in .cdb (a Cinema database), got \"" + *cinema + "\"");
    }
    orbit.cinema = *cinema;
  }
  return orbit;
}

std::vector<ViewSettings> orbit_views(const OrbitSettings& orbit, const CameraSettings& main) {
  std::vector<ViewSettings> views;
  for (const float theta : orbit.theta) {
    for (int k = 0; k < orbit.phi_count; ++k) {
      const float phi = 360.0f * static_cast<float>(k) / static_cast<float>(orbit.phi_count);
      ViewSettings view{"orbit_t" + io::angle_tag(theta) + "_p" + io::angle_tag(phi), main, true};
      view.camera.position.reset();  // the auto camera, from this direction
      view.camera.theta = theta;
      view.camera.phi = phi;
      views.push_back(std::move(view));
    }
  }
  return views;
}

}  // namespace granray::detail
