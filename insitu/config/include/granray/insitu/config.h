// The [insitu] table of a simulation's TOML input file (contract 3).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "granray/insitu/camera_path.h"
#include "granray/io/annotations.h"
#include "granray/io/particle_file.h"
#include "granray/render_settings.h"
#include "granray/renderer.h"

namespace granray {

// [insitu.color]: colour particles by a scalar the simulation registered under `field`.
struct ColorSettings {
  std::string field;
  std::string colormap = "viridis";
  ColorMapping mapping;  // also in InsituConfig::render.color
};

// [insitu.select] (contract 2d): draw only grains whose `field` lies in the range of
// InsituConfig::render.select.
struct SelectSettings {
  std::string field;
};

// [[insitu.views]] (contract 2f): a further camera of every frame, rendered from the same particles
// and grid, its files named by `name` ({view} in the patterns, /views/NAME in the HDF5 file).
struct ViewSettings {
  std::string name;
  CameraSettings camera;  // [insitu.camera]'s keys, with the view's own over them
  bool orbit = false;     // one of [insitu.orbit]'s ring (camera.theta, camera.phi)
};

// [insitu.orbit] (contract 2f): a ring of views per frame, each polar angle at `phi_count` azimuths
// (0, 360 / n, ...), added to InsituConfig::views; with `cinema`, also a Cinema database.
struct OrbitSettings {
  std::vector<float> theta;
  int phi_count = 0;
  std::string cinema;  // "NAME.cdb", or "" for none
};

struct InsituConfig {
  std::int64_t every = 0;        // render at multiples of this step (0 = off)
  double every_time = 0.0;       // and at the first step at or past each multiple of this time
  std::string output;            // HDF5 file ("" = none)
  std::string png;               // PNG pattern, '*' becomes the zero-padded step ("" = none)
  std::int64_t queue = 4;        // frames waiting for the writer thread at most (0 = no thread)
  bool drop = false;             // writer behind: drop frames instead of making the simulation wait
  std::int64_t compression = 1;  // deflate level of /frames/rgb and the PNGs (0 = none)
  BackendKind backend = BackendKind::automatic;
  // Bytes a frame's buffers may take before it renders in bands of rows (a poster); 0: automatic
  // (granray/tiled_render.h: the backend's free memory, at most kDefaultTileMemory on the host).
  std::size_t tile_memory = 0;
  RenderSettings render;
  std::optional<ColorSettings> color;
  std::optional<SelectSettings> select;
  // [[insitu.materials]] field: the per-grain fields the materials select grains by, by field slot
  // (MaterialSettings::field_slot) in the order the materials first name them; "" for a slot no
  // material uses. A material that selects by the radius has MaterialField::radius instead.
  std::array<std::string, kMaterialFields> material_fields;
  io::AnnotationSettings annotations;     // [insitu.annotations]: drawn on the frames written
  std::vector<ViewSettings> views;        // [[insitu.views]], after the main camera's
  std::optional<CameraPath> camera_path;  // [insitu.camera.path]: the main camera moves
  std::optional<OrbitSettings> orbit;     // [insitu.orbit]; its views are in `views`
  std::string table_text;  // the effective [insitu] table, as TOML, for the output's metadata
};

// Reads the [insitu] table of a TOML file (defaults where it is absent). Each override is
// "key=value" with the key relative to [insitu] ("camera.fov=45") and the value in TOML.
// Unknown keys, wrong types and impossible values throw ConfigError naming key, file and line.
InsituConfig load_insitu_config(const std::string& path,
                                const std::vector<std::string>& overrides = {});

// The per-grain fields a frame of this configuration reads, by name: what the simulation passes
// with each frame, or the particle file must hold. The radius is not a field: it is always there.
io::FieldNames field_names(const InsituConfig& config);

// Each key of the configuration that names a per-grain field, with the field's name: the colour's,
// the selection's and each material's that selects by a value ("insitu.materials[1].field"), in
// that order. A client checks each name against what it can pass, and names the key when not.
struct FieldKey {
  std::string key;
  std::string field;
};
std::vector<FieldKey> field_keys(const InsituConfig& config);

// What one frame's overlays show: its step, time and census, and the colour mapping it used.
io::AnnotationValues annotation_values(const InsituConfig& config, const FrameStats& stats,
                                       std::int64_t step, double time);

// Every key the [insitu] reader knows, relative to [insitu] ("every", "camera.fov", ...): what
// docs/configuration.md documents (a test checks both ways).
std::vector<std::string> insitu_config_keys();

// A table built in code (the Python module's dict): values are booleans, integers, reals,
// strings, arrays and subtables, as in TOML.
struct ConfigValue {
  using Array = std::vector<ConfigValue>;
  using Table = std::vector<std::pair<std::string, ConfigValue>>;
  std::variant<bool, std::int64_t, double, std::string, Array, Table> value;
};

// The [insitu] configuration from such a table (the contents of [insitu]); source_name stands
// for the file in messages.
InsituConfig insitu_config_from_table(const ConfigValue::Table& insitu,
                                      const std::string& source_name,
                                      const std::vector<std::string>& overrides = {});

// The same from TOML text; source_name stands for the file in messages.
InsituConfig parse_insitu_config(std::string_view toml_text, const std::string& source_name,
                                 const std::vector<std::string>& overrides = {});

}  // namespace granray
