#include "granray/insitu/config.h"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "granray/errors.h"
#include "granray/io/stl_file.h"
#include "toml_table.h"

namespace granray {
namespace {

using detail::positive;
using detail::TableReader;
using detail::where;

// The keys of each table; insitu_config_keys() lists them for the configuration reference.
const std::vector<const char*> kInsituKeys = {
    "every", "every_time", "width",       "height", "output",     "png",   "backend",
    "queue", "drop",       "compression", "camera", "shading",    "color", "annotations",
    "walls", "clip",       "select",      "region", "tile_memory"};
const std::vector<const char*> kCameraKeys = {"projection",   "position", "target", "up",  "fov",
                                              "ortho_height", "theta",    "phi",    "zoom"};
const std::vector<const char*> kShadingKeys = {
    "ambient", "diffuse",    "light",         "background", "particle_color",
    "shadows", "ao_samples", "ao_distance",   "specular",   "shininess",
    "samples", "outline",    "outline_color", "depth_cue",  "depth_cue_color"};
const std::vector<const char*> kColorKeys = {"field", "colormap", "range", "palette"};
const std::vector<const char*> kAnnotationKeys = {"color_bar", "label", "font_size", "axes"};
const std::vector<const char*> kWallKeys = {"type",  "name",      "file",   "color",    "faces",
                                            "scale", "translate", "min",    "max",      "base",
                                            "axis",  "radius",    "height", "segments", "opacity"};
const std::vector<const char*> kClipKeys = {"point", "normal"};
const std::vector<const char*> kSelectKeys = {"field", "range"};

// The tables of an array of tables ([[insitu.walls]]), each with a reader named by its place.
std::vector<std::pair<const toml::table*, std::string>> table_array(const TableReader& t,
                                                                    const char* key) {
  std::vector<std::pair<const toml::table*, std::string>> out;
  const toml::node* node = t.find(key);
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array) t.fail(key, "must be an array of tables ([[" + t.name(key) + "]])");
  for (std::size_t k = 0; k < array->size(); ++k) {
    const toml::table* table = (*array)[k].as_table();
    if (!table) t.fail(key, "must be an array of tables ([[" + t.name(key) + "]])");
    out.emplace_back(table, t.name(key) + "[" + std::to_string(k) + "]");
  }
  return out;
}

// A path in the configuration is relative to the file that names it.
std::string relative_to_source(const toml::node& node, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || !node.source().path) return path;
  return (std::filesystem::path(*node.source().path).parent_path() / p).string();
}

Wall read_wall(const TableReader& t) {
  t.only_keys(kWallKeys);
  Wall wall;
  const std::string type = t.one_of("type", {"stl", "box", "cylinder"}).value_or("");
  if (type.empty()) t.fail("type", "must be \"stl\", \"box\" or \"cylinder\"");
  if (const auto name = t.string("name")) wall.name = *name;
  if (const auto c = t.color("color")) wall.color = *c;
  if (const auto a = t.number("opacity")) {
    if (!(*a >= 0.0 && *a <= 1.0)) {
      t.fail("opacity", "must be in [0, 1] (1 = opaque, below 1 a see-through wall)");
    }
    wall.opacity = static_cast<float>(*a);
  }
  wall.faces = type == "stl" ? WallFaces::all : WallFaces::back;
  if (const auto faces = t.one_of("faces", {"all", "back"})) {
    wall.faces = *faces == "all" ? WallFaces::all : WallFaces::back;
  }
  const auto required_vec3 = [&](const char* key) {
    const auto v = t.vec3(key);
    if (!v) t.fail(key, "is required for a " + type + " wall");
    return *v;
  };
  const auto allowed_only_for = [&](std::initializer_list<const char*> keys, const char* kind) {
    if (type == kind) return;
    for (const char* key : keys) {
      if (t.find(key)) t.fail(key, std::string("belongs to a ") + kind + " wall, not a " + type);
    }
  };
  allowed_only_for({"file"}, "stl");
  allowed_only_for({"min", "max"}, "box");
  allowed_only_for({"base", "axis", "radius", "height", "segments"}, "cylinder");
  if (type == "stl") {
    const auto file = t.string("file");
    if (!file || file->empty()) t.fail("file", "must name the STL file of an stl wall");
    try {
      wall.triangles = io::read_stl(relative_to_source(*t.find("file"), *file));
    } catch (const InputError& e) {
      t.fail("file", std::string("cannot be read: ") + e.what());
    }
  } else if (type == "box") {
    const Vec3 lo = required_vec3("min"), hi = required_vec3("max");
    if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z))
      t.fail("max", "must exceed min on every axis");
    wall.triangles = box_triangles(lo, hi);
  } else {
    const Vec3 base = required_vec3("base"), axis = required_vec3("axis");
    if (axis.x == 0.0f && axis.y == 0.0f && axis.z == 0.0f) t.fail("axis", "must not be zero");
    const auto radius = t.number("radius"), height = t.number("height");
    if (!radius) t.fail("radius", "is required for a cylinder wall");
    if (!height) t.fail("height", "is required for a cylinder wall");
    const auto segments = t.integer("segments").value_or(256);
    if (segments < 3 || segments > 1000000) t.fail("segments", "must be in 3..1000000");
    wall.triangles = cylinder_triangles(base, axis, positive(t, "radius", *radius),
                                        positive(t, "height", *height), static_cast<int>(segments));
  }
  float scale = 1.0f;
  if (const auto sc = t.number("scale")) scale = positive(t, "scale", *sc);
  const Vec3 translate = t.vec3("translate").value_or(Vec3{0.0f, 0.0f, 0.0f});
  if (scale != 1.0f || translate.x != 0.0f || translate.y != 0.0f || translate.z != 0.0f) {
    wall.triangles = scaled_and_translated(wall.triangles, scale, translate);
  }
  return wall;
}

ClipPlane read_clip(const TableReader& t) {
  t.only_keys(kClipKeys);
  const auto point = t.vec3("point");
  if (!point) t.fail("point", "is required: a point on the clip plane");
  const auto normal = t.vec3("normal");
  if (!normal) t.fail("normal", "is required: the side of the plane that is removed");
  if (normal->x == 0.0f && normal->y == 0.0f && normal->z == 0.0f)
    t.fail("normal", "must not be zero");
  return {*point, *normal};
}

void read_annotations(const TableReader& t, io::AnnotationSettings& a) {
  t.only_keys(kAnnotationKeys);
  if (const auto bar = t.boolean("color_bar")) a.color_bar = *bar;
  if (const auto label = t.string("label")) {
    try {
      io::format_label(*label, {});  // a pattern fmt rejects fails here, not at the first frame
    } catch (const ConfigError& e) {
      t.fail("label", std::string("is not a valid label: ") + e.what());
    }
    a.label = *label;
  }
  if (const auto size = t.integer("font_size")) {
    if (*size < 0 || *size > 1000)
      t.fail("font_size", "must be in 0..1000 pixels (0 = height / 40)");
    a.font_size = static_cast<int>(*size);
  }
  if (const auto axes =
          t.one_of("axes", {"none", "bottom-left", "bottom-right", "top-left", "top-right"})) {
    a.axes = *axes == "bottom-left"    ? io::AxesCorner::bottom_left
             : *axes == "bottom-right" ? io::AxesCorner::bottom_right
             : *axes == "top-left"     ? io::AxesCorner::top_left
             : *axes == "top-right"    ? io::AxesCorner::top_right
                                       : io::AxesCorner::none;
  }
}

void read_camera(const TableReader& t, CameraSettings& cam) {
  t.only_keys(kCameraKeys);
  if (const auto p = t.one_of("projection", {"perspective", "orthographic"})) {
    cam.projection = *p == "perspective" ? Projection::perspective : Projection::orthographic;
  }
  cam.position = t.vec3("position");
  cam.target = t.vec3("target");
  if (const auto up = t.vec3("up")) {
    if (up->x == 0.0f && up->y == 0.0f && up->z == 0.0f) t.fail("up", "must not be zero");
    cam.up = *up;
  }
  if (const auto fov = t.number("fov")) {
    if (!(*fov > 0.0 && *fov < 180.0)) t.fail("fov", "must be in (0, 180) degrees");
    cam.fov = static_cast<float>(*fov);
  }
  if (const auto h = t.number("ortho_height")) cam.ortho_height = positive(t, "ortho_height", *h);
  if (const auto theta = t.number("theta")) {
    if (!std::isfinite(*theta)) t.fail("theta", "must be finite");
    cam.theta = static_cast<float>(*theta);
  }
  if (const auto phi = t.number("phi")) {
    if (!std::isfinite(*phi)) t.fail("phi", "must be finite");
    cam.phi = static_cast<float>(*phi);
  }
  if (const auto zoom = t.number("zoom")) cam.zoom = positive(t, "zoom", *zoom);
}

void read_shading(const TableReader& t, ShadingSettings& s) {
  t.only_keys(kShadingKeys);
  if (const auto a = t.number("ambient")) s.ambient = positive(t, "ambient", *a, true);
  if (const auto d = t.number("diffuse")) s.diffuse = positive(t, "diffuse", *d, true);
  if (const auto l = t.vec3("light")) {
    if (l->x == 0.0f && l->y == 0.0f && l->z == 0.0f) t.fail("light", "must not be zero");
    s.light = *l;
  }
  if (const auto b = t.color("background")) s.background = *b;
  if (const auto c = t.color("particle_color")) s.particle_color = *c;
  // SPEC 2a.
  if (const auto shadows = t.boolean("shadows")) s.shadows = *shadows;
  if (const auto n = t.integer("ao_samples")) {
    if (*n < 0 || *n > kMaxAoSamples) {
      t.fail("ao_samples", "must be in 0.." + std::to_string(kMaxAoSamples) + " (0 = off)");
    }
    s.ao_samples = static_cast<int>(*n);
  }
  if (const auto d = t.number("ao_distance")) {
    s.ao_distance = positive(t, "ao_distance", *d, true);
  }
  if (const auto k = t.number("specular")) s.specular = positive(t, "specular", *k, true);
  if (const auto e = t.number("shininess")) {
    if (!(std::isfinite(*e) && *e >= 1.0 && *e <= 10000.0)) {
      t.fail("shininess", "must be in 1..10000");
    }
    s.shininess = static_cast<float>(*e);
  }
  if (const auto n = t.integer("samples")) {
    if (*n != 1 && *n != 4 && *n != 9 && *n != 16) t.fail("samples", "must be 1, 4, 9 or 16");
    s.samples = static_cast<int>(*n);
  }
  // SPEC 2d.
  if (const auto o = t.number("outline")) {
    if (!(*o >= 0.0 && *o < 1.0)) {
      t.fail("outline", "must be in [0, 1): the rim's width as a fraction of the radius (0 = off)");
    }
    s.outline = static_cast<float>(*o);
  }
  if (const auto c = t.color("outline_color")) s.outline_color = *c;
  if (const auto d = t.number("depth_cue")) {
    if (!(*d >= 0.0 && *d <= 1.0)) t.fail("depth_cue", "must be in [0, 1] (0 = off)");
    s.depth_cue = static_cast<float>(*d);
  }
  if (const toml::node* cue = t.find("depth_cue_color")) {
    if (cue->is_string()) {
      t.one_of("depth_cue_color", {"background"});
      s.depth_cue_color.reset();
    } else if (!cue->is_array()) {
      t.fail("depth_cue_color", "must be \"background\" or [r, g, b] with values in [0, 1]");
    } else {
      s.depth_cue_color = t.color("depth_cue_color");
    }
  }
}

// [insitu.select]: the field defaults to [insitu.color]'s, which is read first.
void read_select(const TableReader& t, InsituConfig& config) {
  t.only_keys(kSelectKeys);
  SelectSettings select;
  if (const auto field = t.string("field")) {
    if (field->empty()) t.fail("field", "must name the value to select by");
    select.field = *field;
  } else if (config.color) {
    select.field = config.color->field;
  } else {
    t.fail("field", "is needed: there is no [insitu.color] field to select by");
  }
  const auto lohi = t.numbers("range", 2);
  if (!lohi) t.fail("range", "is needed: [lo, hi], the values of the grains to draw");
  const double lo = (*lohi)[0], hi = (*lohi)[1];
  if (std::isnan(lo) || std::isnan(hi) || lo > hi) {
    t.fail("range", "must be [lo, hi] with lo <= hi (+-inf allowed for an open end)");
  }
  config.select = select;
  config.render.select = SelectRange{static_cast<float>(lo), static_cast<float>(hi)};
}

ColorSettings read_color(const TableReader& t) {
  t.only_keys(kColorKeys);
  ColorSettings c;
  const auto field = t.string("field");
  if (!field || field->empty()) t.fail("field", "must name the scalar to colour by");
  c.field = *field;
  if (const auto map = t.string("colormap")) {
    const auto& names = colormap_names();
    const auto it = std::find(names.begin(), names.end(), *map);
    if (it == names.end() && *map != "categorical") {
      std::string list;
      for (const auto& n : names) list += n + ", ";
      t.fail("colormap",
             "names an unknown colormap \"" + *map + "\" (known: " + list + "categorical)");
    }
    c.colormap = *map;
    if (*map == "categorical") {
      c.mapping.palette = tableau10_palette();
    } else {
      c.mapping.colormap = static_cast<int>(it - names.begin());
    }
  }
  if (const toml::node* palette = t.find("palette")) {
    if (c.colormap != "categorical")
      t.fail("palette", "applies only to colormap = \"categorical\"");
    const toml::array* entries = palette->as_array();
    const std::string expected = "must be an array of 1 to " + std::to_string(kMaxPaletteSize) +
                                 " colours, each [r, g, b] with values in [0, 1]";
    if (!entries || entries->empty() || entries->size() > kMaxPaletteSize)
      t.fail("palette", expected);
    c.mapping.palette.clear();
    for (std::size_t k = 0; k < entries->size(); ++k) {
      const toml::array* rgb = (*entries)[k].as_array();
      const std::string entry = "entry " + std::to_string(k + 1) + " ";
      if (!rgb || rgb->size() != 3) t.fail("palette", entry + "is not three numbers; " + expected);
      Vec3 color{};
      float* channels[3] = {&color.x, &color.y, &color.z};
      for (int ch = 0; ch < 3; ++ch) {
        const auto v = (*rgb)[std::size_t(ch)].value<double>();
        if (!v || !(*v >= 0.0 && *v <= 1.0)) {
          t.fail("palette", entry + "has a value that is not a number in [0, 1]; " + expected);
        }
        *channels[ch] = static_cast<float>(*v);
      }
      c.mapping.palette.push_back(color);
    }
  }
  if (const toml::node* range = t.find("range")) {
    if (range->is_string()) {
      if (*range->value<std::string>() != "auto") t.fail("range", "must be \"auto\" or [lo, hi]");
      c.mapping.auto_range = true;
    } else {
      const auto lohi = t.numbers("range", 2);
      if (!(std::isfinite((*lohi)[0]) && std::isfinite((*lohi)[1]) && (*lohi)[0] < (*lohi)[1])) {
        t.fail("range", "must be [lo, hi] with finite lo < hi");
      }
      c.mapping.lo = static_cast<float>((*lohi)[0]);
      c.mapping.hi = static_cast<float>((*lohi)[1]);
    }
  }
  return c;
}

InsituConfig read_insitu(const toml::table& table) {
  const TableReader t(table, "insitu");
  t.only_keys(kInsituKeys);
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
    read_camera(TableReader(*camera, "insitu.camera"), config.render.camera);
  }
  if (const toml::table* shading = t.subtable("shading")) {
    read_shading(TableReader(*shading, "insitu.shading"), config.render.shading);
  }
  if (const toml::table* annotations = t.subtable("annotations")) {
    read_annotations(TableReader(*annotations, "insitu.annotations"), config.annotations);
  }
  auto walls = std::make_shared<WallList>();
  for (const auto& [table, name] : table_array(t, "walls")) {
    const TableReader reader(*table, name);
    Wall wall = read_wall(reader);
    const bool taken = std::any_of(walls->begin(), walls->end(), [&](const Wall& w) {
      return !wall.name.empty() && w.name == wall.name;
    });
    if (taken) reader.fail("name", "\"" + wall.name + "\" names two walls");
    walls->push_back(std::move(wall));
  }
  if (!walls->empty()) config.render.walls = walls;
  for (const auto& [clip, name] : table_array(t, "clip")) {
    config.render.clip.push_back(read_clip(TableReader(*clip, name)));
  }
  if (const toml::table* color = t.subtable("color")) {
    config.color = read_color(TableReader(*color, "insitu.color"));
    config.render.color = config.color->mapping;
  }
  if (const toml::table* select = t.subtable("select")) {
    read_select(TableReader(*select, "insitu.select"), config);
  }
  config.render.category_census =
      config.annotations.color_bar && config.color && !config.color->mapping.palette.empty();

  std::ostringstream text;
  text << table;
  config.table_text = text.str();
  return config;
}

}  // namespace

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
  v.background = config.render.shading.background;
  v.view_right = stats.camera.right;
  v.view_up = stats.camera.screen_up;
  return v;
}

std::vector<std::string> insitu_config_keys() {
  std::vector<std::string> keys;
  for (const char* k : kInsituKeys) {
    const std::string key = k;
    if (key == "camera" || key == "shading" || key == "color" || key == "annotations" ||
        key == "walls" || key == "clip" || key == "select") {
      continue;
    }
    keys.push_back(key);
  }
  for (const auto& [table, names] :
       {std::pair{"camera.", &kCameraKeys}, std::pair{"shading.", &kShadingKeys},
        std::pair{"color.", &kColorKeys}, std::pair{"annotations.", &kAnnotationKeys},
        std::pair{"walls.", &kWallKeys}, std::pair{"clip.", &kClipKeys},
        std::pair{"select.", &kSelectKeys}}) {
    for (const char* k : *names) keys.push_back(std::string(table) + k);
  }
  return keys;
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
