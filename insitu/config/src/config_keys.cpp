// The keys of [insitu] and its tables, as the readers check them and the reference lists them.
#include <string>
#include <utility>
#include <vector>

#include "config_tables.h"
#include "granray/insitu/config.h"

namespace granray {
namespace detail {

const std::vector<const char*> kInsituKeys = {
    "every",  "every_time",  "width",       "height",  "output", "png",         "backend",  "queue",
    "drop",   "compression", "camera",      "shading", "color",  "annotations", "walls",    "clip",
    "select", "region",      "tile_memory", "views",   "orbit",  "materials",   "renderer", "path"};
const std::vector<const char*> kCameraKeys = {"projection",   "position", "target", "up",   "fov",
                                              "ortho_height", "theta",    "phi",    "zoom", "path"};
const std::vector<const char*> kOrbitKeys = {"theta", "phi_count", "cinema"};
const std::vector<const char*> kCameraPathKeys = {
    "keys", "at", "interpolate", "position", "target", "theta", "phi", "zoom", "fov"};
const std::vector<const char*> kShadingKeys = {
    "ambient",       "diffuse",     "light",           "background", "particle_color", "shadows",
    "ao_samples",    "ao_distance", "specular",        "shininess",  "samples",        "outline",
    "outline_color", "depth_cue",   "depth_cue_color", "bounces"};
const std::vector<const char*> kColorKeys = {"field", "colormap", "range", "palette"};
const std::vector<const char*> kAnnotationKeys = {"color_bar", "label", "font_size", "axes"};
const std::vector<const char*> kWallKeys = {
    "type", "name", "file", "color",  "faces",  "scale",    "translate", "min",
    "max",  "base", "axis", "radius", "height", "segments", "opacity",   "material"};
const std::vector<const char*> kMaterialKeys = {"name", "type",      "tint",  "reflectance",
                                                "ior",  "roughness", "field", "range"};
const std::vector<const char*> kPathKeys = {"samples", "sun_radius", "sun_intensity", "aperture",
                                            "focus_distance"};
const std::vector<const char*> kClipKeys = {"point", "normal"};
const std::vector<const char*> kSelectKeys = {"field", "range"};
const std::vector<const char*> kViewKeys = {"name", "projection",   "position", "target", "up",
                                            "fov",  "ortho_height", "theta",    "phi",    "zoom"};

}  // namespace detail

using namespace detail;

std::vector<std::string> insitu_config_keys() {
  std::vector<std::string> keys;
  for (const char* k : kInsituKeys) {
    const std::string key = k;
    if (key == "camera" || key == "shading" || key == "color" || key == "annotations" ||
        key == "walls" || key == "clip" || key == "select" || key == "views" || key == "orbit" ||
        key == "materials" || key == "path") {
      continue;
    }
    keys.push_back(key);
  }
  for (const char* k : kCameraPathKeys) keys.push_back(std::string("camera.path.") + k);
  for (const auto& [table, names] :
       {std::pair{"camera.", &kCameraKeys}, std::pair{"shading.", &kShadingKeys},
        std::pair{"color.", &kColorKeys}, std::pair{"annotations.", &kAnnotationKeys},
        std::pair{"walls.", &kWallKeys}, std::pair{"clip.", &kClipKeys},
        std::pair{"select.", &kSelectKeys}, std::pair{"views.", &kViewKeys},
        std::pair{"orbit.", &kOrbitKeys}, std::pair{"materials.", &kMaterialKeys},
        std::pair{"path.", &kPathKeys}}) {
    for (const char* k : *names) {
      if (std::string(k) != "path") keys.push_back(std::string(table) + k);  // a table: above
    }
  }
  return keys;
}

}  // namespace granray
