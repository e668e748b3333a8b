#include "granray/insitu/config.h"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "config_tables.h"
#include "granray/errors.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/stl_file.h"
#include "toml_table.h"

namespace granray {
namespace {

using namespace detail;

InsituConfig read_insitu(const toml::table& table) {
  const TableReader t(table, "insitu");
  t.only_keys(keys_of(""));
  InsituConfig config;
  if (const auto every = t.integer("every")) {
    if (*every < 0) t.fail("every", "must be >= 0");
    config.every = *every;
  }
  if (const auto every_time = t.number("every_time")) {
    config.every_time = positive(t, "every_time", *every_time, true);
  }
  constexpr std::int64_t kMaxSide = 65536;
  if (const auto w = t.integer("width")) {
    if (*w < 1 || *w > kMaxSide) t.fail("width", "must be in 1..65536");
    config.render.width = static_cast<int>(*w);
  }
  if (const auto h = t.integer("height")) {
    if (*h < 1 || *h > kMaxSide) t.fail("height", "must be in 1..65536");
    config.render.height = static_cast<int>(*h);
  }
  if (const auto region = t.numbers("region", 4)) {
    const auto& r = *region;
    const bool whole_numbers = std::all_of(r.begin(), r.end(), [](double v) {
      return v >= 0.0 && v <= double(kMaxSide) && v == std::floor(v);
    });
    const std::string size =
        std::to_string(config.render.width) + " x " + std::to_string(config.render.height);
    if (!whole_numbers) t.fail("region", "must be [x, y, w, h] of whole numbers >= 0");
    if (r[2] > 0.0 || r[3] > 0.0) {  // [x, y, 0, 0]: the whole image
      if (!(r[2] > 0.0 && r[3] > 0.0)) {
        t.fail("region", "must have w and h both > 0, or both 0 for the whole image");
      }
      if (r[0] + r[2] > config.render.width || r[1] + r[3] > config.render.height) {
        t.fail("region", "[x, y, w, h] must lie within the " + size + " image");
      }
      const auto at = [&](int k) { return static_cast<int>(r[std::size_t(k)]); };
      config.render.region = {at(0), at(1), at(0) + at(2), at(1) + at(3)};
    }
  }
  if (const auto budget = t.integer("tile_memory")) {
    if (*budget < 0) t.fail("tile_memory", "must be >= 0 (MiB; 0 = automatic)");
    config.tile_memory = static_cast<std::size_t>(*budget) << 20;
  }
  if (const auto output = t.string("output")) config.output = *output;
  if (const auto png = t.string("png")) config.png = *png;
  if (const auto queue = t.integer("queue")) {
    if (*queue < 0 || *queue > 1024) t.fail("queue", "must be in 0..1024");
    config.queue = *queue;
  }
  if (const auto drop = t.boolean("drop")) config.drop = *drop;
  if (const auto level = t.integer("compression")) {
    if (*level < 0 || *level > 9) t.fail("compression", "must be in 0..9");
    config.compression = *level;
  }
  if (const auto backend = t.string("backend")) {
    const auto kind = backend_from_name(*backend);
    if (!kind) t.fail("backend", "must be \"auto\", \"cuda\" or \"cpu\", got \"" + *backend + "\"");
    config.backend = *kind;
  }
  if (const toml::table* camera = t.subtable("camera")) {
    const TableReader reader(*camera, "insitu.camera");
    read_camera(reader, config.render.camera);
    if (const toml::table* path = reader.subtable("path")) {
      config.camera_path = read_camera_path(TableReader(*path, "insitu.camera.path"));
    }
  }
  for (const auto& [table, name] : table_array(t, "views")) {
    const TableReader reader(*table, name);
    ViewSettings view = read_view(reader, config.render.camera);
    const bool taken = std::any_of(config.views.begin(), config.views.end(),
                                   [&](const ViewSettings& v) { return v.name == view.name; });
    if (taken) reader.fail("name", "\"" + view.name + "\" names two views");
    config.views.push_back(std::move(view));
  }
  if (const toml::table* orbit = t.subtable("orbit")) {
    config.orbit = read_orbit(TableReader(*orbit, "insitu.orbit"));
    for (ViewSettings& view : orbit_views(*config.orbit, config.render.camera)) {
      const bool taken = std::any_of(config.views.begin(), config.views.end(),
                                     [&](const ViewSettings& v) { return v.name == view.name; });
      if (taken) t.fail("orbit", "repeats the view \"" + view.name + "\"");
      config.views.push_back(std::move(view));
    }
  }
  if (!config.views.empty() && !config.png.empty() && !io::has_view_placeholder(config.png)) {
    t.fail("png", std::string("must hold ") + io::kViewPlaceholder +
                      " with [[insitu.views]], or every view writes the same file");
  }
  if (const toml::table* shading = t.subtable("shading")) {
    read_shading(TableReader(*shading, "insitu.shading"), config.render.shading);
  }
  if (const auto model = t.one_of("renderer", {"direct", "path"})) {
    config.render.model = *model == "path" ? ImageModel::path : ImageModel::direct;
  }
  if (const toml::table* path = t.subtable("path")) {
    read_path(TableReader(*path, "insitu.path"), config.render.path);
  }
  if (const toml::table* annotations = t.subtable("annotations")) {
    read_annotations(TableReader(*annotations, "insitu.annotations"), config.annotations);
  }
  for (const auto& [clip, name] : table_array(t, "clip")) {
    config.render.clip.push_back(read_clip(TableReader(*clip, name)));
  }
  if (const toml::table* color = t.subtable("color")) {
    config.color = read_color(TableReader(*color, "insitu.color"));
    config.render.color = config.color->mapping;
  }
  if (const toml::table* contacts = t.subtable("contacts")) {
    config.render.contacts = read_contacts(TableReader(*contacts, "insitu.contacts"));
  }
  if (const toml::table* select = t.subtable("select")) {
    read_select(TableReader(*select, "insitu.select"), config);
  }
  for (const auto& [table, name] : table_array(t, "materials")) {
    const TableReader reader(*table, name);
    MaterialSettings m = read_material(reader, config);
    const bool taken = std::any_of(config.render.materials.begin(), config.render.materials.end(),
                                   [&](const MaterialSettings& k) { return k.name == m.name; });
    if (taken) reader.fail("name", "\"" + m.name + "\" names two materials");
    if (config.render.materials.size() >= kMaxMaterials) {
      reader.fail("name", "is one material too many: at most " + std::to_string(kMaxMaterials));
    }
    config.render.materials.push_back(std::move(m));
  }
  auto walls = std::make_shared<WallList>();
  for (const auto& [table, name] : table_array(t, "walls")) {
    const TableReader reader(*table, name);
    Wall wall = read_wall(reader);
    const bool taken = std::any_of(walls->begin(), walls->end(), [&](const Wall& w) {
      return !wall.name.empty() && w.name == wall.name;
    });
    if (taken) reader.fail("name", "\"" + wall.name + "\" names two walls");
    const bool known =
        std::any_of(config.render.materials.begin(), config.render.materials.end(),
                    [&](const MaterialSettings& m) { return m.name == wall.material; });
    if (!wall.material.empty() && !known) {
      reader.fail("material",
                  "names \"" + wall.material + "\", which no [[insitu.materials]] entry defines");
    }
    walls->push_back(std::move(wall));
  }
  if (!walls->empty()) config.render.walls = walls;
  config.render.category_census =
      config.annotations.color_bar && config.color && !config.color->mapping.palette.empty();

  std::ostringstream text;
  text << table;
  config.table_text = text.str();
  return config;
}

}  // namespace

io::FieldNames field_names(const InsituConfig& config) {
  io::FieldNames names;
  if (config.color) names.color = config.color->field;
  if (config.select) names.select = config.select->field;
  names.materials = config.material_fields;
  return names;
}

std::vector<FieldKey> field_keys(const InsituConfig& config) {
  std::vector<FieldKey> keys;
  if (config.color) keys.push_back({"insitu.color.field", config.color->field});
  if (config.select) keys.push_back({"insitu.select.field", config.select->field});
  const auto& materials = config.render.materials;
  for (std::size_t k = 0; k < materials.size(); ++k) {
    const MaterialSettings& m = materials[k];
    if (!m.selects_by_value() || m.field != MaterialField::scalar) continue;
    keys.push_back({"insitu.materials[" + std::to_string(k) + "].field",
                    config.material_fields[m.field_slot]});
  }
  return keys;
}

io::AnnotationValues annotation_values(const InsituConfig& config, const FrameStats& stats,
                                       std::int64_t step, double time) {
  io::AnnotationValues v;
  v.step = step;
  v.time = time;
  v.particles = stats.particles;
  v.colored = stats.colored;
  v.lo = stats.color_lo;
  v.hi = stats.color_hi;
  if (config.color) {
    v.colormap = config.color->mapping.colormap;
    v.palette = config.color->mapping.palette;
    for (int k = 0; k < 64 * kCategoryWords; ++k) {
      if ((stats.categories[std::size_t(k / 64)] >> (k % 64)) & 1u) v.categories.push_back(k);
    }
    v.field = config.color->field;
  }
  if (config.render.contacts && stats.contacts > 0) {
    v.pairs_colored = true;
    v.pair_colormap = config.render.contacts->colormap;
    v.pair_lo = stats.contact_lo;
    v.pair_hi = stats.contact_hi;
    v.pair_field = config.render.contacts->field;
  }
  v.background = config.render.shading.background;
  v.view_right = stats.camera.right;
  v.view_up = stats.camera.screen_up;
  return v;
}

InsituConfig parse_insitu_config(std::string_view toml_text, const std::string& source_name,
                                 const std::vector<std::string>& overrides) {
  toml::table root = detail::parse_document(toml_text, source_name);
  // Work on the parsed table in place: a copy would lose the lines that messages name.
  if (!root.contains("insitu")) root.insert("insitu", toml::table{});
  toml::node* node = root.get("insitu");
  if (!node->is_table()) {
    throw ConfigError(where(node->source()) + ": key 'insitu' must be a table");
  }
  toml::table& insitu = *node->as_table();
  for (const std::string& assignment : overrides) detail::apply_override(insitu, assignment);
  return read_insitu(insitu);
}

namespace {

toml::table toml_table(const ConfigValue::Table& table);

toml::array toml_array(const ConfigValue::Array& array);

template <class Insert>
void insert_value(const ConfigValue& v, Insert&& insert) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, ConfigValue::Table>) {
          insert(toml_table(x));
        } else if constexpr (std::is_same_v<T, ConfigValue::Array>) {
          insert(toml_array(x));
        } else {
          insert(toml::value<T>(x));
        }
      },
      v.value);
}

toml::array toml_array(const ConfigValue::Array& array) {
  toml::array out;
  for (const ConfigValue& v : array) {
    insert_value(v, [&](auto&& node) { out.push_back(std::move(node)); });
  }
  return out;
}

toml::table toml_table(const ConfigValue::Table& table) {
  toml::table out;
  for (const auto& entry : table) {  // not a structured binding: C++17 lambdas cannot take one
    const std::string& key = entry.first;
    insert_value(entry.second, [&](auto&& node) { out.insert_or_assign(key, std::move(node)); });
  }
  return out;
}

}  // namespace

InsituConfig insitu_config_from_table(const ConfigValue::Table& insitu,
                                      const std::string& source_name,
                                      const std::vector<std::string>& overrides) {
  // Through TOML text, so that messages name lines of a document the user can be shown.
  toml::table root;
  root.insert("insitu", toml_table(insitu));
  std::ostringstream text;
  text << root;
  return parse_insitu_config(text.str(), source_name, overrides);
}

InsituConfig load_insitu_config(const std::string& path,
                                const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot open the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_insitu_config(text.str(), path, overrides);
}

}  // namespace granray