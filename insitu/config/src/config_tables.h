// The readers of [insitu]'s sub-tables, each checking its table's keys, for read_insitu
// (config.cpp): the look of a frame (config_look.cpp) and what it shows (config_scene.cpp).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <utility>
#include <vector>

#include "granray/insitu/config.h"
#include "toml_table.h"

namespace granray::detail {

// The keys of each table (config_keys.cpp), the table named relative to [insitu] ("" for
// [insitu] itself, "camera.path"); insitu_config_keys() lists them for the configuration
// reference, and each reader checks its table against them.
struct TableKeys {
  std::string table;
  std::vector<const char*> keys;
};
const std::vector<TableKeys>& table_keys();
const std::vector<const char*>& keys_of(const std::string& table);

// The tables of an array of tables ([[insitu.walls]]), each with a reader named by its place.
std::vector<std::pair<const toml::table*, std::string>> table_array(const TableReader& t,
                                                                    const char* key);

// What a frame shows: walls, clip planes and the selection.
Wall read_wall(const TableReader& t);
ClipPlane read_clip(const TableReader& t);
// [[insitu.materials]] (contract 2e): each material; the field defaults to [insitu.color]'s, which
// is read first, and each field the materials name takes a slot of InsituConfig::material_fields.
MaterialSettings read_material(const TableReader& t, InsituConfig& config);
// [insitu.select]: the field defaults to [insitu.color]'s, which is read first.
void read_select(const TableReader& t, InsituConfig& config);

// How it looks.
void read_annotations(const TableReader& t, io::AnnotationSettings& a);
void read_camera(const TableReader& t, CameraSettings& cam);
// [insitu.camera.path]: keys, at least one quantity with a value per key.
CameraPath read_camera_path(const TableReader& t);
// [insitu.orbit]: the ring's angles and the Cinema database.
OrbitSettings read_orbit(const TableReader& t);
// The ring's views: `main` from each polar angle and azimuth, named by them.
std::vector<ViewSettings> orbit_views(const OrbitSettings& orbit, const CameraSettings& main);
// [[insitu.views]]: a name and camera keys over `main`.
ViewSettings read_view(const TableReader& t, const CameraSettings& main);
void read_shading(const TableReader& t, ShadingSettings& s);
// [insitu.path] (contract 2e): the path-traced still.
void read_path(const TableReader& t, PathSettings& p);
ColorSettings read_color(const TableReader& t);
// [insitu.contacts] (contract 2g): the contact network.
ContactSettings read_contacts(const TableReader& t);

}  // namespace granray::detail
