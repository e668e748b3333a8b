// The keys of [insitu] and its tables, as the readers check them and the reference lists them.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config_tables.h"
#include "granray/insitu/config.h"

namespace granray {
namespace detail {

const std::vector<TableKeys>& table_keys() {
  static const std::vector<TableKeys> tables = {
      {"",
       {"every",     "every_time", "width",       "height",  "output",      "png",   "backend",
        "queue",     "drop",       "compression", "camera",  "shading",     "color", "annotations",
        "walls",     "clip",       "select",      "region",  "tile_memory", "views", "orbit",
        "materials", "renderer",   "path",        "contacts"}},
      {"camera",
       {"projection", "position", "target", "up", "fov", "ortho_height", "theta", "phi", "zoom",
        "path"}},
      {"camera.path",
       {"keys", "at", "interpolate", "position", "target", "theta", "phi", "zoom", "fov"}},
      {"orbit", {"theta", "phi_count", "cinema"}},
      {"shading",
       {"ambient", "diffuse", "light", "background", "particle_color", "shadows", "ao_samples",
        "ao_distance", "specular", "shininess", "samples", "outline", "outline_color", "depth_cue",
        "depth_cue_color", "bounces"}},
      {"color", {"field", "colormap", "range", "palette"}},
      {"contacts", {"width", "scale", "field", "colormap", "range", "threshold", "grains"}},
      {"annotations", {"color_bar", "label", "font_size", "axes"}},
      {"walls",
       {"type", "name", "file", "color", "faces", "scale", "translate", "min", "max", "base",
        "axis", "radius", "height", "segments", "opacity", "material"}},
      {"materials", {"name", "type", "tint", "reflectance", "ior", "roughness", "field", "range"}},
      {"path", {"samples", "sun_radius", "sun_intensity", "aperture", "focus_distance"}},
      {"clip", {"point", "normal"}},
      {"select", {"field", "range"}},
      {"views",
       {"name", "projection", "position", "target", "up", "fov", "ortho_height", "theta", "phi",
        "zoom"}}};
  return tables;
}

const std::vector<const char*>& keys_of(const std::string& table) {
  for (const TableKeys& t : table_keys()) {
    if (t.table == table) return t.keys;
  }
  throw std::logic_error("granray: no key list for table '" + table + "'");
}

}  // namespace detail

// Every key, each table's relative to [insitu]; a key that is itself a table is not a key.
std::vector<std::string> insitu_config_keys() {
  const auto& tables = detail::table_keys();
  const auto is_table = [&](const std::string& name) {
    return std::any_of(tables.begin(), tables.end(),
                       [&](const detail::TableKeys& t) { return t.table == name; });
  };
  std::vector<std::string> keys;
  for (const detail::TableKeys& t : tables) {
    const std::string prefix = t.table.empty() ? "" : t.table + ".";
    for (const char* k : t.keys) {
      if (!is_table(prefix + k)) keys.push_back(prefix + k);
    }
  }
  return keys;
}

}  // namespace granray
