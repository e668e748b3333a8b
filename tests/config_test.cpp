// [insitu] table: values, defaults, overrides, and errors naming key, file and line.
#include <gtest/gtest.h>

#include <filesystem>

#include <fstream>
#include <regex>
#include <set>

#include "granray/errors.h"
#include "granray/insitu/config.h"
#include "test_support.h"

namespace granray::test {
namespace {

// The [insitu] configuration of `toml` as a file called sim.toml.
InsituConfig parsed(const std::string& toml) { return parse_insitu_config(toml, "sim.toml"); }

TEST(Config, DefaultsFollowTheSpec) {
  const InsituConfig c = parsed("[simulation]\nsteps = 10\n");
  EXPECT_EQ(c.every, 0);
  EXPECT_EQ(c.render.width, 1280);
  EXPECT_EQ(c.render.height, 720);
  EXPECT_FLOAT_EQ(c.render.camera.fov, 30.0f);
  EXPECT_FLOAT_EQ(c.render.shading.ambient, 0.25f);
  EXPECT_FLOAT_EQ(c.render.shading.diffuse, 0.75f);
  EXPECT_FLOAT_EQ(c.render.shading.particle_color.x, 0.8f);
  EXPECT_FLOAT_EQ(c.render.camera.up.z, 1.0f);
  EXPECT_FALSE(c.render.camera.position.has_value());
  EXPECT_EQ(c.backend, BackendKind::automatic);
}

TEST(Config, ReadsEveryKeyOfTheSpecExample) {
  const std::string toml = R"([insitu]
every = 1000
every_time = 0.5
width = 1920
height = 1080
output = "frames.h5"
png = "frames/step_*.png"
backend = "cpu"

[insitu.camera]
projection = "orthographic"
position = [0.3, -0.4, 0.25]
target = [0.0, 0.0, 0.05]
up = [0.0, 1, 0.0]
fov = 45
ortho_height = 0.2
theta = 70.0
phi = 20.0
zoom = 1.5

[insitu.shading]
ambient = 0.1
diffuse = 0.9
light = [0.0, 0.0, 1.0]
background = [0.0, 0.0, 0.0]
particle_color = [1.0, 0.5, 0.25]

[insitu.color]
field = "speed"
colormap = "magma"
range = "auto"
)";
  const InsituConfig c = parsed(toml);
  EXPECT_EQ(c.every, 1000);
  EXPECT_DOUBLE_EQ(c.every_time, 0.5);
  EXPECT_EQ(c.render.width, 1920);
  EXPECT_EQ(c.output, "frames.h5");
  EXPECT_EQ(c.png, "frames/step_*.png");
  EXPECT_EQ(c.backend, BackendKind::cpu);
  EXPECT_EQ(c.render.camera.projection, Projection::orthographic);
  EXPECT_FLOAT_EQ(c.render.camera.position->y, -0.4f);
  EXPECT_FLOAT_EQ(c.render.camera.target->z, 0.05f);
  EXPECT_FLOAT_EQ(c.render.camera.up.y, 1.0f);
  EXPECT_FLOAT_EQ(c.render.camera.fov, 45.0f);
  EXPECT_FLOAT_EQ(*c.render.camera.ortho_height, 0.2f);
  EXPECT_FLOAT_EQ(c.render.camera.zoom, 1.5f);
  EXPECT_FLOAT_EQ(c.render.shading.particle_color.y, 0.5f);
  ASSERT_TRUE(c.color.has_value());
  EXPECT_EQ(c.color->field, "speed");
  EXPECT_EQ(c.color->colormap, "magma");
  EXPECT_TRUE(c.color->mapping.auto_range);
  ASSERT_TRUE(c.render.color.has_value());
  EXPECT_EQ(colormap_names()[c.render.color->colormap], "magma");
  EXPECT_NE(c.table_text.find("every = 1000"), std::string::npos);
}

TEST(Config, OverridesUseTomlValues) {
  const InsituConfig c = parse_insitu_config(
      "[insitu]\nwidth = 100\n[insitu.camera]\nfov = 20\n", "sim.toml",
      {"width=640", "camera.fov=45", "camera.position=[1,2,3]", "png=\"f_*.png\""});
  EXPECT_EQ(c.render.width, 640);
  EXPECT_FLOAT_EQ(c.render.camera.fov, 45.0f);
  EXPECT_FLOAT_EQ(c.render.camera.position->z, 3.0f);
  EXPECT_EQ(c.png, "f_*.png");
  const InsituConfig w =
      parse_insitu_config("[insitu]\nqueue = 0\ndrop = true\ncompression = 0\n", "s.toml");
  EXPECT_EQ(w.queue, 0);
  EXPECT_TRUE(w.drop);
  EXPECT_EQ(w.compression, 0);
}

// contract 2d keys: outlines, the depth cue and categorical colours.
TEST(Config, RegionAndTileMemory) {
  const InsituConfig c =
      parsed("[insitu]\nwidth = 400\nheight = 300\nregion = [10, 20, 100, 50]\ntile_memory = 3\n");
  EXPECT_EQ(c.render.region.x0, 10);
  EXPECT_EQ(c.render.region.y0, 20);
  EXPECT_EQ(c.render.region.x1, 110);
  EXPECT_EQ(c.render.region.y1, 70);
  EXPECT_EQ(c.tile_memory, std::size_t{3} << 20);
  EXPECT_TRUE(parsed("[insitu]\nregion = [0, 0, 0, 0]\n").render.region.empty());
  expect_config_error("[insitu]\nwidth = 400\nheight = 300\nregion = [350, 0, 51, 10]\n",
                      {"sim.toml:4", "region", "400 x 300"});
  expect_config_error("[insitu]\nregion = [0, 0, 10, 0]\n", {"sim.toml:2", "region", "both"});
  expect_config_error("[insitu]\nregion = [0.5, 0, 10, 10]\n", {"region", "whole numbers"});
  expect_config_error("[insitu]\nregion = [0, 0, 10]\n", {"region", "4 numbers"});
  expect_config_error("[insitu]\ntile_memory = -1\n", {"sim.toml:2", "tile_memory", "MiB"});
}

TEST(Config, SeeingInsideKeys) {
  const InsituConfig c = parsed(
      "[insitu.shading]\noutline = 0.2\noutline_color = [0.1, 0.2, 0.3]\ndepth_cue = 0.7\n"
      "depth_cue_color = [0, 0, 1]\n[insitu.color]\nfield = \"type\"\n"
      "colormap = \"categorical\"\npalette = [[1, 0, 0], [0, 1, 0.5]]\n");
  EXPECT_FLOAT_EQ(c.render.shading.outline, 0.2f);
  EXPECT_FLOAT_EQ(c.render.shading.outline_color.z, 0.3f);
  EXPECT_FLOAT_EQ(c.render.shading.depth_cue, 0.7f);
  ASSERT_TRUE(c.render.shading.depth_cue_color.has_value());
  EXPECT_FLOAT_EQ(c.render.shading.depth_cue_color->z, 1.0f);
  ASSERT_TRUE(c.render.color.has_value());
  ASSERT_EQ(c.render.color->palette.size(), 2u);
  EXPECT_FLOAT_EQ(c.render.color->palette[1].z, 0.5f);
  const InsituConfig d = parsed(
      "[insitu.shading]\ndepth_cue_color = \"background\"\n[insitu.color]\nfield = \"type\"\n"
      "colormap = \"categorical\"\n");
  EXPECT_FALSE(d.render.shading.depth_cue_color.has_value());
  ASSERT_EQ(d.render.color->palette.size(), 10u);  // Tableau 10
  EXPECT_FLOAT_EQ(d.render.color->palette[0].x, float(0x1f) / 255.0f);
  EXPECT_FLOAT_EQ(d.render.color->palette[9].z, float(0xcf) / 255.0f);
  expect_config_error("[insitu.shading]\noutline = 1\n", {"sim.toml:2", "outline", "[0, 1)"});
  expect_config_error("[insitu.shading]\noutline = -0.1\n", {"sim.toml:2", "outline"});
  expect_config_error("[insitu.shading]\ndepth_cue = 1.5\n", {"sim.toml:2", "depth_cue", "[0, 1]"});
  expect_config_error("[insitu.shading]\ndepth_cue_color = \"fog\"\n",
                      {"sim.toml:2", "depth_cue_color", "background"});
  expect_config_error("[insitu.shading]\noutline_color = [0, 0, 2]\n",
                      {"sim.toml:2", "outline_color", "[0, 1]"});
  const std::string cat = "[insitu.color]\nfield = \"type\"\ncolormap = \"categorical\"\n";
  expect_config_error(cat + "palette = [[1, 0, 0], [0, 1]]\n",
                      {"sim.toml:4", "palette", "entry 2", "three numbers"});
  expect_config_error(cat + "palette = [[1, 0, 0], [0, 1, 1.5]]\n",
                      {"sim.toml:4", "palette", "entry 2", "[0, 1]"});
  expect_config_error(cat + "palette = []\n", {"sim.toml:4", "palette", "1 to 256"});
  expect_config_error("[insitu.color]\nfield = \"type\"\npalette = [[1, 0, 0]]\n",
                      {"sim.toml:3", "palette", "categorical"});
  expect_config_error("[insitu.color]\nfield = \"type\"\ncolormap = \"tab10\"\n",
                      {"sim.toml:3", "colormap", "categorical"});
}

TEST(Config, SeeThroughWallKeys) {
  const InsituConfig c = parsed(
      "[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nopacity = 0.3\n"
      "[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n");
  ASSERT_EQ(c.render.walls->size(), 2u);
  EXPECT_FLOAT_EQ((*c.render.walls)[0].opacity, 0.3f);
  EXPECT_FLOAT_EQ((*c.render.walls)[1].opacity, 1.0f);  // opaque by default
  const std::string box = "[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n";
  expect_config_error(box + "opacity = 1.5\n", {"sim.toml:5", "insitu.walls[0].opacity", "[0, 1]"});
  expect_config_error(box + "opacity = -0.1\n", {"sim.toml:5", "opacity", "[0, 1]"});
  expect_config_error(box + "opacity = \"half\"\n", {"sim.toml:5", "opacity"});
}

TEST(Config, AxesKey) {
  EXPECT_EQ(parsed("").annotations.axes, io::AxesCorner::none);
  EXPECT_EQ(parsed("[insitu.annotations]\naxes = \"top-right\"\n").annotations.axes,
            io::AxesCorner::top_right);
  EXPECT_EQ(parsed("[insitu.annotations]\naxes = \"bottom-left\"\n").annotations.axes,
            io::AxesCorner::bottom_left);
  expect_config_error(
      "[insitu.annotations]\naxes = \"middle\"\n",
      {"sim.toml:2", "insitu.annotations.axes", "bottom-left", "top-right", "none"});
}

TEST(Config, SelectionKeys) {
  const InsituConfig c =
      parsed("[insitu.color]\nfield = \"speed\"\n[insitu.select]\nrange = [0.5, 2]\n");
  ASSERT_TRUE(c.select.has_value());
  EXPECT_EQ(c.select->field, "speed");  // [insitu.color]'s by default
  ASSERT_TRUE(c.render.select.has_value());
  EXPECT_FLOAT_EQ(c.render.select->lo, 0.5f);
  EXPECT_FLOAT_EQ(c.render.select->hi, 2.0f);
  const InsituConfig d = parsed("[insitu.select]\nfield = \"type\"\nrange = [2, 2]\n");
  EXPECT_EQ(d.select->field, "type");
  EXPECT_FALSE(parsed("").render.select.has_value());
  expect_config_error("[insitu.select]\nfield = \"type\"\nrange = [2, 1]\n",
                      {"sim.toml:3", "insitu.select.range", "lo <= hi"});
  expect_config_error("[insitu.select]\nfield = \"type\"\n", {"insitu.select.range", "needed"});
  expect_config_error("[insitu.select]\nrange = [0, 1]\n",
                      {"insitu.select.field", "[insitu.color]"});
  expect_config_error("[insitu.select]\nfield = \"type\"\nrange = [0, 1]\nmin = 0\n",
                      {"sim.toml:4", "min"});
}

// contract 2g: [insitu.contacts] read with its defaults, every key checked with its range.
TEST(Config, ContactKeys) {
  EXPECT_FALSE(parsed("").render.contacts.has_value());
  const InsituConfig d = parsed("[insitu.contacts]\n");
  ASSERT_TRUE(d.render.contacts.has_value());
  EXPECT_FLOAT_EQ(d.render.contacts->width, 0.4f);
  EXPECT_TRUE(d.render.contacts->scale_by_force);
  EXPECT_EQ(d.render.contacts->field, "force");
  EXPECT_EQ(colormap_names()[std::size_t(d.render.contacts->colormap)], "inferno");
  EXPECT_TRUE(d.render.contacts->auto_range);
  EXPECT_FLOAT_EQ(d.render.contacts->threshold, 0.0f);
  EXPECT_TRUE(d.render.contacts->grains);
  const InsituConfig c = parsed(
      "[insitu.contacts]\nwidth = 0.25\nscale = \"fixed\"\nfield = \"force_normal\"\n"
      "colormap = \"magma\"\nrange = [0.5, 4]\nthreshold = 1\ngrains = false\n");
  const ContactSettings& k = *c.render.contacts;
  EXPECT_FLOAT_EQ(k.width, 0.25f);
  EXPECT_FALSE(k.scale_by_force);
  EXPECT_EQ(k.field, "force_normal");
  EXPECT_EQ(colormap_names()[std::size_t(k.colormap)], "magma");
  EXPECT_FALSE(k.auto_range);
  EXPECT_FLOAT_EQ(k.lo, 0.5f);
  EXPECT_FLOAT_EQ(k.hi, 4.0f);
  EXPECT_FLOAT_EQ(k.threshold, 1.0f);
  EXPECT_FALSE(k.grains);
  expect_config_error("[insitu.contacts]\nwidth = 0\n", {"sim.toml:2", "insitu.contacts.width"});
  expect_config_error("[insitu.contacts]\nwidth = 1.5\n", {"sim.toml:2", "(0, 1]"});
  expect_config_error("[insitu.contacts]\nscale = \"log\"\n", {"sim.toml:2", "contacts.scale"});
  expect_config_error("[insitu.contacts]\n\ncolormap = \"categorical\"\n",
                      {"sim.toml:3", "contacts.colormap", "categorical"});
  expect_config_error("[insitu.contacts]\nrange = [2, 1]\n", {"sim.toml:2", "contacts.range"});
  expect_config_error("[insitu.contacts]\nthreshold = -1\n",
                      {"sim.toml:2", "contacts.threshold", ">= 0"});
  expect_config_error("[insitu.contacts]\ngrains = 1\n", {"sim.toml:2", "contacts.grains"});
  expect_config_error("[insitu.contacts]\nfield = \"\"\n", {"sim.toml:2", "contacts.field"});
  expect_config_error("[insitu.contacts]\nwidht = 0.3\n",
                      {"sim.toml:2", "insitu.contacts.widht", "unknown key"});
}

TEST(Config, ErrorsNameKeyFileAndLine) {
  expect_config_error("[insitu]\nevery = 10\nwidht = 5\n",
                      {"sim.toml:3", "insitu.widht", "unknown key"});
  expect_config_error("[insitu]\n\nwidth = \"big\"\n", {"sim.toml:3", "insitu.width", "integer"});
  expect_config_error("[insitu]\nevery = -1\n", {"sim.toml:2", "insitu.every", ">= 0"});
  expect_config_error("[insitu]\nheight = 0\n", {"sim.toml:2", "insitu.height"});
  expect_config_error("[insitu.camera]\nfov = 180\n", {"sim.toml:2", "insitu.camera.fov"});
  expect_config_error("[insitu.camera]\n\nposition = [1, 2]\n",
                      {"sim.toml:3", "insitu.camera.position"});
  expect_config_error("[insitu.camera]\nprojection = \"fisheye\"\n", {"sim.toml:2", "projection"});
  expect_config_error("[insitu.camera]\nzoom = 0\n", {"sim.toml:2", "insitu.camera.zoom"});
  expect_config_error("[insitu.shading]\nbackground = [2, 0, 0]\n", {"sim.toml:2", "background"});
  expect_config_error("[insitu.color]\nfield = \"speed\"\ncolormap = \"jet\"\n",
                      {"sim.toml:3", "colormap", "jet"});
  expect_config_error("[insitu.color]\nfield = \"speed\"\nrange = [1, 0]\n",
                      {"sim.toml:3", "range"});
  expect_config_error("[insitu]\nbackend = \"opencl\"\n", {"sim.toml:2", "insitu.backend"});
  expect_config_error("[insitu]\nqueue = -1\n", {"sim.toml:2", "insitu.queue"});
  expect_config_error("[insitu]\ndrop = \"yes\"\n", {"sim.toml:2", "insitu.drop", "true or false"});
  expect_config_error("[insitu]\ncompression = 10\n", {"sim.toml:2", "insitu.compression"});
  expect_config_error("[insitu]\nevery = 10\nevery = 20\n", {"sim.toml:3"});
  expect_config_error("[insitu]\nwidth = \n", {"sim.toml:2"});
  expect_config_error("", {"--set camera.fov=abc"}, {"camera.fov=abc"});
  expect_config_error("", {"insitu.camera.fvo", "unknown key"}, {"camera.fvo=3"});
  expect_config_error("", {"key=value"}, {"width"});
}

// contract 2a: every lighting key off by default, read when given, and checked with its range.
TEST(Config, LightingKeys) {
  const InsituConfig off = parsed("[insitu]\n");
  EXPECT_FALSE(lighting_on(off.render.shading));
  EXPECT_EQ(off.render.shading.samples, 1);
  EXPECT_FLOAT_EQ(off.render.shading.shininess, 32.0f);
  const InsituConfig on = parsed(
      "[insitu.shading]\nshadows = true\nao_samples = 12\nao_distance = 0.5\nspecular = 0.4\n"
      "shininess = 64\nsamples = 9\n");
  const ShadingSettings& s = on.render.shading;
  EXPECT_TRUE(s.shadows);
  EXPECT_EQ(s.ao_samples, 12);
  EXPECT_FLOAT_EQ(s.ao_distance, 0.5f);
  EXPECT_FLOAT_EQ(s.specular, 0.4f);
  EXPECT_FLOAT_EQ(s.shininess, 64.0f);
  EXPECT_EQ(s.samples, 9);
  EXPECT_TRUE(lighting_on(s));
  const InsituConfig set =
      parse_insitu_config("[insitu]\n", "sim.toml", {"shading.samples=4", "shading.shadows=true"});
  EXPECT_EQ(set.render.shading.samples, 4);
  EXPECT_TRUE(set.render.shading.shadows);

  expect_config_error("[insitu.shading]\nsamples = 5\n",
                      {"sim.toml:2", "insitu.shading.samples", "1, 4, 9 or 16"});
  expect_config_error("[insitu.shading]\n\nao_samples = 257\n",
                      {"sim.toml:3", "insitu.shading.ao_samples", "0..256"});
  expect_config_error("[insitu.shading]\nao_samples = -1\n", {"insitu.shading.ao_samples"});
  expect_config_error("[insitu.shading]\nao_distance = -0.1\n",
                      {"sim.toml:2", "insitu.shading.ao_distance", ">= 0"});
  expect_config_error("[insitu.shading]\nspecular = -1\n", {"insitu.shading.specular"});
  expect_config_error("[insitu.shading]\nshininess = 0.5\n",
                      {"insitu.shading.shininess", "1..10000"});
  expect_config_error("[insitu.shading]\nshadows = 1\n",
                      {"insitu.shading.shadows", "true or false"});
  expect_config_error("[insitu.shading]\nsamples = 4.0\n", {"insitu.shading.samples", "integer"});
  expect_config_error("[insitu.shading]\nshadow = true\n", {"insitu.shading.shadow", "unknown"});
}

TEST(Config, AnnotationKeys) {
  const InsituConfig c = parsed(
      "[insitu.annotations]\ncolor_bar = true\nlabel = \"t = {time:.3f} s\"\nfont_size = 20\n");
  EXPECT_TRUE(c.annotations.color_bar);
  EXPECT_EQ(c.annotations.label, "t = {time:.3f} s");
  EXPECT_EQ(c.annotations.font_size, 20);
  expect_config_error("[insitu.annotations]\n\nlabel = \"{tme}\"\n",
                      {"sim.toml:3", "insitu.annotations.label", "{step}, {time}, {particles}"});
  expect_config_error("[insitu.annotations]\nfont_size = -2\n",
                      {"sim.toml:2", "insitu.annotations.font_size", "0..1000"});
  expect_config_error("[insitu.annotations]\ncolour_bar = true\n",
                      {"did you mean 'insitu.annotations.color_bar'"});
}

// Messages that say how to fix the mistake (issue 20).
TEST(Config, MessagesSayHowToFixTheMistake) {
  // A bare word where a string is expected is that string (the shell ate the quotes).
  const InsituConfig c = parse_insitu_config(
      "[insitu]\n", "sim.toml", {"camera.projection=orthographic", "png=frames/f_*.png"});
  EXPECT_EQ(c.render.camera.projection, Projection::orthographic);
  EXPECT_EQ(c.png, "frames/f_*.png");
  // ... and still checked like a quoted one, naming the --set it came from.
  expect_config_error("", {"--set camera.projection=fisheye", "\"perspective\" or"},
                      {"camera.projection=fisheye"});
  expect_config_error("", {"--set camera.fov=abc", "insitu.camera.fov", "number"},
                      {"camera.fov=abc"});
  // A misspelt key names the nearest known one.
  expect_config_error("", {"insitu.camera.fvo", "did you mean 'insitu.camera.fov'"},
                      {"camera.fvo=3"});
  expect_config_error("[insitu.shading]\nshaddows = true\n",
                      {"sim.toml:2", "did you mean 'insitu.shading.shadows'"});
  expect_config_error("[insitu]\nevry = 10\n", {"did you mean 'insitu.every'"});
  // Nothing near: no guess, the known keys are listed.
  try {
    parsed("[insitu]\nbrightness = 2\n");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("known keys: every"), std::string::npos) << e.what();
  }
}

// docs/configuration.md lists every key the reader knows in its tables, and no other.
TEST(Config, ReferenceDocumentsEveryKey) {
  std::ifstream doc(std::string(GRANRAY_SOURCE_DIR) + "/docs/configuration.md");
  ASSERT_TRUE(doc) << "docs/configuration.md not found";
  std::set<std::string> documented;
  const std::regex row(R"(^\| `([a-z_.]+)` \|)");
  std::smatch m;
  for (std::string line; std::getline(doc, line);) {
    if (std::regex_search(line, m, row)) documented.insert(m[1]);
  }
  std::set<std::string> known;
  for (const std::string& k : insitu_config_keys()) known.insert(k);
  // granray-render's options sit in a table of their own, with dashes: they do not match.
  for (const std::string& k : known) {
    EXPECT_TRUE(documented.count(k)) << "the reader knows '" << k << "', the reference does not";
  }
  for (const std::string& k : documented) {
    EXPECT_TRUE(known.count(k)) << "the reference lists '" << k << "', the reader does not";
  }
  EXPECT_GE(known.size(), 30u);
  // And every listed key is accepted by the reader.
  for (const std::string& k : known) {
    const std::size_t dot = k.find('.');
    const std::string table = dot == std::string::npos ? "" : k.substr(0, dot);
    const std::string name = dot == std::string::npos ? k : k.substr(dot + 1);
    try {
      parsed("[insitu" + (table.empty() ? "" : "." + table) + "]\n" + name + " = 1\n");
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).find("unknown key"), std::string::npos) << e.what();
    }
  }
}

TEST(Config, LoadsAFileAndReportsAMissingOne) {
  const std::string path = temp_path("sim.toml");
  std::ofstream(path) << "[insitu]\nevery = 7\n";
  EXPECT_EQ(load_insitu_config(path).every, 7);
  EXPECT_THROW(load_insitu_config(temp_path("missing.toml")), ConfigError);
}

// [[insitu.materials]] (contract 2e): each kind, in order, selecting grains by the colour field,
// another field or the radius, walls naming theirs, and mistakes that name the key, the file and
// the line.
TEST(Config, Materials) {
  const std::string head = "[insitu.color]\nfield = \"type\"\n";
  const InsituConfig c =
      parsed(head +
             "[insitu.shading]\nbounces = 3\n"
             "[[insitu.materials]]\nname = \"steel\"\ntype = \"metal\"\nreflectance = 0.7\n"
             "tint = [0.9, 0.8, 0.7]\nrange = [1, 1]\n"
             "[[insitu.materials]]\nname = \"glass\"\ntype = \"glass\"\nior = 1.33\n"
             "range = \"all\"\n"
             "[[insitu.materials]]\nname = \"chrome\"\ntype = \"metal\"\nreflectance = 1\n"
             "[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n"
             "material = \"chrome\"\n");
  ASSERT_EQ(c.render.materials.size(), 3u);
  EXPECT_EQ(c.render.shading.bounces, 3);
  EXPECT_EQ(c.render.materials[0].type, MaterialType::metal);
  EXPECT_FLOAT_EQ(c.render.materials[0].reflectance, 0.7f);
  EXPECT_FLOAT_EQ(c.render.materials[0].tint.y, 0.8f);
  ASSERT_TRUE(c.render.materials[0].grains);
  EXPECT_EQ(c.render.materials[0].grains->lo, 1.0f);
  EXPECT_EQ(c.render.materials[1].type, MaterialType::glass);
  EXPECT_FLOAT_EQ(c.render.materials[1].ior, 1.33f);
  EXPECT_EQ(c.render.materials[1].grains->lo, -INFINITY);
  EXPECT_FALSE(c.render.materials[2].grains) << "no range: walls only";
  EXPECT_EQ(c.render.materials[0].field, MaterialField::scalar);
  ASSERT_TRUE(c.render.walls);
  EXPECT_EQ(c.render.walls->front().material, "chrome");
  EXPECT_TRUE(materials_on(c.render));

  const InsituConfig by_radius = parsed(
      "[[insitu.materials]]\nname = \"big\"\ntype = \"glass\"\nfield = \"radius\"\n"
      "range = [0.002, 1]\n");
  EXPECT_EQ(by_radius.render.materials[0].field, MaterialField::radius);
  EXPECT_EQ(field_names(by_radius).materials[0], "") << "the radius is not a field";

  // Coloured by speed, selected by id, made of steel or glass by type: three fields.
  const InsituConfig three = parsed(
      "[insitu.color]\nfield = \"speed\"\n[insitu.select]\nfield = \"id\"\nrange = [0, 9]\n"
      "[[insitu.materials]]\nname = \"steel\"\ntype = \"metal\"\nfield = \"type\"\n"
      "range = [1, 1]\n"
      "[[insitu.materials]]\nname = \"glass\"\ntype = \"glass\"\nfield = \"type\"\n"
      "range = [2, 2]\n");
  EXPECT_EQ(three.render.materials[1].field, MaterialField::scalar);
  EXPECT_EQ(three.render.materials[0].field_slot, three.render.materials[1].field_slot);
  const io::FieldNames names = field_names(three);
  EXPECT_EQ(names.color, "speed");
  EXPECT_EQ(names.select, "id");
  EXPECT_EQ(names.materials[0], "type");
  EXPECT_EQ(names.materials[1], "") << "one field serves both materials";
  EXPECT_EQ(field_names(c).materials[0], "type") << "without field: the colour field";

  // Each material its own field, and the radius beside them; a fifth field is refused.
  std::string own;
  const char* fields[] = {"type", "radius", "size", "type", "mass", "density"};
  for (int k = 0; k < 6; ++k) {
    own += "[[insitu.materials]]\nname = \"m" + std::to_string(k) +
           "\"\ntype = \"metal\"\nfield = \"" + fields[k] + "\"\nrange = [" + std::to_string(k) +
           ", " + std::to_string(k) + "]\n";
  }
  const InsituConfig own_fields = parsed(own);
  const auto& m = own_fields.render.materials;
  EXPECT_EQ(m[1].field, MaterialField::radius);
  EXPECT_EQ(m[0].field_slot, 0);
  EXPECT_EQ(m[2].field_slot, 1);
  EXPECT_EQ(m[3].field_slot, 0) << "a field named again takes its slot";
  EXPECT_EQ(m[4].field_slot, 2);
  EXPECT_EQ(m[5].field_slot, 3);
  EXPECT_EQ(field_names(own_fields).materials,
            (std::array<std::string, kMaterialFields>{"type", "size", "mass", "density"}));
  std::vector<std::string> keys;
  for (const FieldKey& named : field_keys(own_fields))
    keys.push_back(named.key + "=" + named.field);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "insitu.materials[0].field=type", "insitu.materials[2].field=size",
                      "insitu.materials[3].field=type", "insitu.materials[4].field=mass",
                      "insitu.materials[5].field=density"}));
  expect_config_error(
      head + own + "[[insitu.materials]]\nname = \"m6\"\nfield = \"colour\"\nrange = [6, 6]\n",
      {"insitu.materials[6].field", "\"colour\"", "at most 4 fields"});

  const std::string metal = "[[insitu.materials]]\nname = \"m\"\ntype = \"metal\"\n";
  expect_config_error(head + metal + "reflectance = 1.5\n",
                      {"sim.toml:6", "insitu.materials[0].reflectance", "[0, 1]"});
  expect_config_error(head + metal + "roughness = -0.1\n", {"materials[0].roughness", "[0, 1]"});
  expect_config_error(head + metal + "ior = 1.5\n", {"materials[0].ior", "glass"});
  expect_config_error(head + "[[insitu.materials]]\nname = \"g\"\ntype = \"glass\"\nior = 1\n",
                      {"sim.toml:6", "materials[0].ior", "(1, 10]"});
  expect_config_error(head + metal + "type2 = 1\n", {"unknown key", "materials[0].type2"});
  expect_config_error(head + "[[insitu.materials]]\nname = \"x\"\ntype = \"wood\"\n",
                      {"materials[0].type", "\"matte\", \"metal\" or \"glass\"", "wood"});
  expect_config_error(head + metal + metal, {"materials[1].name", "names two materials"});
  const std::string second = "[[insitu.materials]]\nname = \"n\"\ntype = \"glass\"\n";
  // Materials that once had to share one field: now each takes its own (the second's default is
  // the colour field).
  const InsituConfig two =
      parsed(head + metal + "field = \"radius\"\nrange = [0, 1]\n" + second + "range = [0, 1]\n");
  EXPECT_EQ(two.render.materials[0].field, MaterialField::radius);
  EXPECT_EQ(two.render.materials[1].field, MaterialField::scalar);
  EXPECT_EQ(field_names(two).materials[0], "type");
  expect_config_error(metal + "range = [0, 1]\n", {"materials[0].range", "name it with field"});
  expect_config_error(head + metal + "range = [2, 1]\n", {"materials[0].range", "lo <= hi"});
  expect_config_error(head + "[insitu.shading]\nbounces = 17\n", {"shading.bounces", "0..16"});
  expect_config_error(head + metal +
                          "[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n"
                          "material = \"gold\"\n",
                      {"sim.toml:10", "walls[0].material", "\"gold\""});
}

// renderer = "path" and [insitu.path] (contract 2e): the path-traced still's keys and their limits.
TEST(Config, PathTracedStill) {
  const InsituConfig c = parsed(
      "[insitu]\nrenderer = \"path\"\n[insitu.path]\nsamples = 256\nsun_radius = 1.5\n"
      "sun_intensity = 2.0\naperture = 0.01\nfocus_distance = 0.4\n");
  EXPECT_TRUE(path_traced(c.render));
  EXPECT_EQ(c.render.path.samples, 256);
  EXPECT_FLOAT_EQ(c.render.path.sun_radius, 1.5f);
  EXPECT_FLOAT_EQ(c.render.path.sun_intensity, 2.0f);
  EXPECT_FLOAT_EQ(c.render.path.aperture, 0.01f);
  EXPECT_FLOAT_EQ(c.render.path.focus_distance, 0.4f);
  EXPECT_FALSE(path_traced(parsed("[insitu]\nevery = 1\n").render));
  expect_config_error("[insitu]\nrenderer = \"mitsuba\"\n",
                      {"sim.toml:2", "insitu.renderer", "\"direct\" or \"path\""});
  expect_config_error("[insitu.path]\nsamples = 0\n", {"sim.toml:2", "path.samples", "1.."});
  expect_config_error("[insitu.path]\naperture = -0.1\n", {"path.aperture", ">= 0"});
  expect_config_error("[insitu.path]\nsun_radius = 90\n", {"path.sun_radius", "[0, 90)"});
  expect_config_error("[insitu.path]\nfocus_distance = -1\n", {"path.focus_distance", ">= 0"});
  expect_config_error("[insitu.path]\nspp = 4\n", {"unknown key", "insitu.path.spp"});
}

// [[insitu.walls]] and [[insitu.clip]] (contract 2b, 2c): every kind of wall, paths relative to the
// TOML file, and mistakes that name the key, the file and the line.
TEST(Config, WallsAndClipPlanes) {
  const std::string dir = temp_path("walls-" + std::to_string(fresh_seed()));
  std::filesystem::create_directories(dir + "/meshes");
  std::ofstream(dir + "/meshes/tri.stl")
      << "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 2 0 0\nvertex 0 2 0\n"
         "endloop\nendfacet\nendsolid t\n";
  const std::string toml =
      "[insitu]\n"
      "[[insitu.walls]]\ntype = \"stl\"\nfile = \"meshes/tri.stl\"\nscale = 2.0\n"
      "translate = [1, 0, 0]\n"
      "[[insitu.walls]]\ntype = \"box\"\nname = \"bin\"\nmin = [0, 0, 0]\nmax = [1, 2, 3]\n"
      "color = [0.1, 0.2, 0.3]\n"
      "[[insitu.walls]]\ntype = \"cylinder\"\nbase = [0, 0, 0]\naxis = [0, 0, 1]\n"
      "radius = 1.0\nheight = 2.0\nsegments = 16\nfaces = \"all\"\n"
      "[[insitu.clip]]\npoint = [0, 0, 1]\nnormal = [0, 1, 0]\n";
  std::ofstream(dir + "/sim.toml") << toml;
  const InsituConfig c = load_insitu_config(dir + "/sim.toml");
  ASSERT_TRUE(c.render.walls);
  const WallList& w = *c.render.walls;
  ASSERT_EQ(w.size(), 3u);
  ASSERT_EQ(w[0].triangles.size(), 1u);
  EXPECT_EQ(w[0].triangles[0].b.x, 5.0f);  // 2 x 2, then + 1
  EXPECT_EQ(w[0].faces, WallFaces::all);
  EXPECT_EQ(w[1].triangles.size(), 12u);
  EXPECT_EQ(w[1].faces, WallFaces::back);
  EXPECT_EQ(w[1].name, "bin");
  EXPECT_EQ(w[1].color.y, 0.2f);
  EXPECT_EQ(w[2].triangles.size(), 60u);  // 4 x 16 - 4
  EXPECT_EQ(w[2].faces, WallFaces::all);
  ASSERT_EQ(c.render.clip.size(), 1u);
  EXPECT_EQ(c.render.clip[0].normal.y, 1.0f);

  const auto fails = [](const std::string& text, const std::string& expected) {
    expect_config_error(text, {expected, "sim.toml:"});
  };
  fails("[[insitu.walls]]\ntype = \"cone\"\n", "insitu.walls[0].type");
  fails("[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\n", "insitu.walls[0].max");
  fails("[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, -1, 1]\n", "must exceed");
  fails("[[insitu.walls]]\ntype = \"stl\"\nfile = \"nowhere.stl\"\n", "nowhere.stl");
  fails("[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nradius = 2\n",
        "insitu.walls[0].radius");
  fails("[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nfaces = \"front\"\n",
        "faces");
  fails("[[insitu.walls]]\ntype = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\ncolour = [1, 1, 1]\n",
        "did you mean 'insitu.walls[0].color'");
  fails("[[insitu.clip]]\npoint = [0, 0, 0]\nnormal = [0, 0, 0]\n", "insitu.clip[0].normal");
  fails("[insitu]\nwalls = 3\n", "array of tables");
  fails(
      "[[insitu.walls]]\ntype = \"box\"\nname = \"a\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n"
      "[[insitu.walls]]\ntype = \"box\"\nname = \"a\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n",
      "names two walls");
}

}  // namespace
}  // namespace granray::test

namespace granray::test {
namespace {

// toml++ 3.3 reaches __builtin_unreachable() for some non-ASCII characters where it looks for
// whitespace (found by fuzzing; even inside a string, after a line-ending backslash or a broken
// value): those are refused before it sees them, naming line, column and the escape to use, while
// other non-ASCII text (arrows, CJK) and the escapes themselves read fine.
TEST(Config, CharactersTheTomlParserTripsOnAreRefusedFirst) {
  expect_config_error("[insitu]\nwidth = 64\n\xcc\xaa\n", {"sim.toml:3:1", "U+032A"});
  expect_config_error("[insitu]\nevery = 1\xc2\xa7\n", {"sim.toml:2:10", "U+00A7"});
  expect_config_error("[insitu.annotations]\nlabel = \"\"\"\\\n  \xc2\xa7 step\"\"\"\n",
                      {"sim.toml:3:3", "U+00A7"});
  expect_config_error("[insitu.annotations]\nlabel = \"t in \xc2\xb5s\"\n",
                      {"sim.toml:2:15", "U+00B5", "\\u00B5"});
  expect_config_error("[insitu]\nwidth = 64\n", {"--set", "U+00A7"}, {"height=4\xc2\xa7"});
  const InsituConfig c = parsed(
      "# \xe2\x86\x92 \xe6\xb7\xb1\n[insitu]\nwidth = 64\n"
      "[insitu.annotations]\nlabel = \"\"\"\\\n  t in \\u00B5s \xe2\x86\x92 \xe6\xb7\xb1\"\"\"\n"
      "[insitu.color]\nfield = \"speed\"\nrange = [0.0, 0.05]\n");
  EXPECT_EQ(c.render.width, 64);
  EXPECT_EQ(c.annotations.label, "t in \xc2\xb5s \xe2\x86\x92 \xe6\xb7\xb1");
  EXPECT_NE(c.table_text.find("0.05"), std::string::npos);
}

}  // namespace
}  // namespace granray::test
