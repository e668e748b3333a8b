// [insitu.camera], [insitu.shading], [insitu.color] and [insitu.annotations]: how a frame looks.
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "config_tables.h"
#include "granray/errors.h"
#include "granray/insitu/config.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/stl_file.h"
#include "toml_table.h"

namespace granray::detail {

void read_annotations(const TableReader& t, io::AnnotationSettings& a) {
  t.only_keys(keys_of("annotations"));
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

namespace {

// The camera keys present in `t` over `cam`; the caller has checked which keys `t` may hold.
void read_camera_keys(const TableReader& t, CameraSettings& cam) {
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

}  // namespace

void read_camera(const TableReader& t, CameraSettings& cam) {
  t.only_keys(keys_of("camera"));
  read_camera_keys(t, cam);
}

ViewSettings read_view(const TableReader& t, const CameraSettings& main) {
  t.only_keys(keys_of("views"));
  ViewSettings view{"", main};
  const auto name = t.string("name");
  if (!name) t.fail("name", "is required: it names the view's files ({view}) and HDF5 group");
  const bool plain = !name->empty() && std::all_of(name->begin(), name->end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (!plain) t.fail("name", "must be letters, digits, '_' or '-', got \"" + *name + "\"");
  if (*name == io::kMainView) {
    t.fail("name", std::string("\"") + io::kMainView + "\" is [insitu.camera]'s view");
  }
  view.name = *name;
  read_camera_keys(t, view.camera);
  return view;
}

void read_shading(const TableReader& t, ShadingSettings& s) {
  t.only_keys(keys_of("shading"));
  if (const auto a = t.number("ambient")) s.ambient = positive(t, "ambient", *a, true);
  if (const auto d = t.number("diffuse")) s.diffuse = positive(t, "diffuse", *d, true);
  if (const auto l = t.vec3("light")) {
    if (l->x == 0.0f && l->y == 0.0f && l->z == 0.0f) t.fail("light", "must not be zero");
    s.light = *l;
  }
  if (const auto b = t.color("background")) s.background = *b;
  if (const auto c = t.color("particle_color")) s.particle_color = *c;
  // contract 2a.
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
  if (const auto b = t.integer("bounces")) {
    if (*b < 0 || *b > kMaxBounces) {
      t.fail("bounces", "must be in 0.." + std::to_string(kMaxBounces) +
                            " (how deep metal and glass reflect and refract; 0 = none)");
    }
    s.bounces = static_cast<int>(*b);
  }
  // contract 2d.
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

void read_path(const TableReader& t, PathSettings& p) {
  t.only_keys(keys_of("path"));
  if (const auto n = t.integer("samples")) {
    if (*n < 1 || *n > kMaxPathSamples) {
      t.fail("samples", "must be in 1.." + std::to_string(kMaxPathSamples) + " (paths per pixel)");
    }
    p.samples = static_cast<int>(*n);
  }
  if (const auto r = t.number("sun_radius")) {
    if (!(*r >= 0.0 && *r < 90.0)) {
      t.fail("sun_radius", "must be in [0, 90) degrees (0 = a point: hard shadows)");
    }
    p.sun_radius = static_cast<float>(*r);
  }
  if (const auto i = t.number("sun_intensity")) {
    p.sun_intensity = positive(t, "sun_intensity", *i, true);
  }
  if (const auto a = t.number("aperture")) p.aperture = positive(t, "aperture", *a, true);
  if (const auto d = t.number("focus_distance")) {
    p.focus_distance = positive(t, "focus_distance", *d, true);
  }
}

namespace {

// The index of colormap `name` in colormap_names(), or a failure listing them (and `more`).
int colormap_index(const TableReader& t, const std::string& name, const char* more) {
  const auto& names = colormap_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    t.fail("colormap", "names an unknown colormap \"" + name + "\" (known: " + list + more + ")");
  }
  return static_cast<int>(it - names.begin());
}

// A colour range: "auto" (the frame's own) or [lo, hi].
void read_range(const TableReader& t, bool& auto_range, float& lo, float& hi) {
  if (const toml::node* range = t.find("range")) {
    if (range->is_string()) {
      if (*range->value<std::string>() != "auto") t.fail("range", "must be \"auto\" or [lo, hi]");
      auto_range = true;
    } else {
      const auto lohi = t.numbers("range", 2);
      if (!(std::isfinite((*lohi)[0]) && std::isfinite((*lohi)[1]) && (*lohi)[0] < (*lohi)[1])) {
        t.fail("range", "must be [lo, hi] with finite lo < hi");
      }
      auto_range = false;
      lo = static_cast<float>((*lohi)[0]);
      hi = static_cast<float>((*lohi)[1]);
    }
  }
}

}  // namespace

ColorSettings read_color(const TableReader& t) {
  t.only_keys(keys_of("color"));
  ColorSettings c;
  const auto field = t.string("field");
  if (!field || field->empty()) t.fail("field", "must name the scalar to colour by");
  c.field = *field;
  if (const auto map = t.string("colormap")) {
    c.colormap = *map;
    if (*map == "categorical") {
      c.mapping.palette = tableau10_palette();
    } else {
      c.mapping.colormap = colormap_index(t, *map, ", categorical");
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
  read_range(t, c.mapping.auto_range, c.mapping.lo, c.mapping.hi);
  return c;
}

ContactSettings read_contacts(const TableReader& t) {
  t.only_keys(keys_of("contacts"));
  ContactSettings c;
  if (const auto w = t.number("width")) {
    if (!(*w > 0.0 && *w <= 1.0)) {
      t.fail("width",
             "must be in (0, 1]: the capsule's radius at the largest value, a fraction "
             "of the smaller grain's radius");
    }
    c.width = static_cast<float>(*w);
  }
  if (const auto scale = t.one_of("scale", {"force", "fixed"}))
    c.scale_by_force = *scale == "force";
  if (const auto field = t.string("field")) {
    if (field->empty()) t.fail("field", "must name the pair value that colours a capsule");
    c.field = *field;
  }
  if (const auto map = t.string("colormap")) c.colormap = colormap_index(t, *map, "");
  read_range(t, c.auto_range, c.lo, c.hi);
  if (const auto threshold = t.number("threshold")) {
    if (!(*threshold >= 0.0 && std::isfinite(*threshold))) {
      t.fail("threshold",
             "must be a finite number >= 0 (a multiple of the frame's mean value; "
             "1 = the strong network)");
    }
    c.threshold = static_cast<float>(*threshold);
  }
  if (const auto grains = t.boolean("grains")) c.grains = *grains;
  return c;
}

}  // namespace granray::detail
