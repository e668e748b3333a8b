// [[insitu.walls]], [[insitu.clip]] and [insitu.select]: what a frame shows.
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "config_tables.h"
#include "granray/errors.h"
#include "granray/insitu/config.h"
#include "granray/io/stl_file.h"
#include "toml_table.h"

namespace granray::detail {

namespace {

// A path in the configuration is relative to the file that names it.
std::string relative_to_source(const toml::node& node, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || !node.source().path) return path;
  return (std::filesystem::path(*node.source().path).parent_path() / p).string();
}

}  // namespace

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

Wall read_wall(const TableReader& t) {
  t.only_keys(keys_of("walls"));
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
  if (const auto material = t.string("material")) {
    if (material->empty()) t.fail("material", "must name one of [[insitu.materials]]");
    wall.material = *material;
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
  t.only_keys(keys_of("clip"));
  const auto point = t.vec3("point");
  if (!point) t.fail("point", "is required: a point on the clip plane");
  const auto normal = t.vec3("normal");
  if (!normal) t.fail("normal", "is required: the side of the plane that is removed");
  if (normal->x == 0.0f && normal->y == 0.0f && normal->z == 0.0f)
    t.fail("normal", "must not be zero");
  return {*point, *normal};
}

MaterialSettings read_material(const TableReader& t, InsituConfig& config) {
  t.only_keys(keys_of("materials"));
  MaterialSettings m;
  const auto name = t.string("name");
  if (!name || name->empty()) t.fail("name", "is required: walls name their material by it");
  m.name = *name;
  const std::string type = t.one_of("type", kMaterialTypeNames).value_or(kMaterialTypeNames[0]);
  for (std::size_t k = 0; k < std::size(kMaterialTypeNames); ++k) {
    if (type == kMaterialTypeNames[k]) m.type = static_cast<MaterialType>(k);
  }
  const auto only_for = [&](const char* key, const char* kind) {
    if (t.find(key) && type != kind) {
      t.fail(key, std::string("belongs to a ") + kind + " material, not a " + type + " one");
    }
  };
  only_for("reflectance", "metal");
  only_for("roughness", "metal");
  only_for("ior", "glass");
  if (const auto c = t.color("tint")) m.tint = *c;
  const auto unit_number = [&](const char* key, float& out) {
    if (const auto v = t.number(key)) {
      if (!(*v >= 0.0 && *v <= 1.0)) t.fail(key, "must be in [0, 1]");
      out = static_cast<float>(*v);
    }
  };
  unit_number("reflectance", m.reflectance);
  unit_number("roughness", m.roughness);
  if (const auto ior = t.number("ior")) {
    if (!(std::isfinite(*ior) && *ior > 1.0 && *ior <= 10.0)) {
      t.fail("ior", "must be in (1, 10]: the glass's index of refraction (water 1.33, glass 1.5)");
    }
    m.ior = static_cast<float>(*ior);
  }
  if (const toml::node* range = t.find("range")) {
    if (range->is_string()) {
      t.one_of("range", {"all"});
      m.grains = SelectRange{-INFINITY, INFINITY};
    } else {
      const auto lohi = t.numbers("range", 2);
      const double lo = (*lohi)[0], hi = (*lohi)[1];
      if (std::isnan(lo) || std::isnan(hi) || lo > hi) {
        t.fail("range",
               "must be [lo, hi] with lo <= hi (+-inf allowed for an open end), or \"all\"");
      }
      m.grains = SelectRange{static_cast<float>(lo), static_cast<float>(hi)};
    }
  }
  const auto field = t.string("field");
  if (field && !m.grains) t.fail("field", "applies only with a range of grains");
  if (m.selects_by_value()) {
    // Any per-grain field, or the radius; without `field`, the colour field.
    const std::string by = field ? *field : config.color ? config.color->field : "";
    if (by.empty()) {
      t.fail("range",
             "needs a value per grain: name it with field (\"radius\", or any field the "
             "simulation or the particle file passes, such as \"type\")");
    }
    if (by == "radius") {
      m.field = MaterialField::radius;
    } else {
      // Each field the materials name takes a slot of the frame's material values.
      auto& names = config.material_fields;
      auto slot = std::find(names.begin(), names.end(), by);
      if (slot == names.end()) slot = std::find(names.begin(), names.end(), std::string());
      if (slot == names.end()) {
        t.fail(field ? "field" : "range",
               "selects by \"" + by + "\": the materials of one frame select by at most " +
                   std::to_string(kMaterialFields) + " fields besides the radius");
      }
      *slot = by;
      m.field = MaterialField::scalar;
      m.field_slot = static_cast<int>(slot - names.begin());
    }
  }
  return m;
}

void read_select(const TableReader& t, InsituConfig& config) {
  t.only_keys(keys_of("select"));
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

}  // namespace granray::detail
