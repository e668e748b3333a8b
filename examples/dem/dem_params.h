// Parameters of the example DEM: the [simulation] table of its TOML input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "granray/kernels/vec.h"
#include "granray/renderer.h"

namespace granray::dem {

struct DemParams {
  std::int64_t particles = 4000;
  std::int64_t steps = 60000;
  double dt = 8.0e-6;  // s
  std::uint64_t seed = 1;
  Vec3 box = {0.2f, 0.2f, 0.3f};  // m; walls at 0 and box on every axis
  float radius_min = 2.5e-3f;     // m
  float radius_max = 3.0e-3f;
  float density = 2500.0f;   // kg/m^3
  float stiffness = 1.0e5f;  // N/m, linear normal spring
  float restitution = 0.5f;  // normal coefficient of restitution (sets the dashpot)
  float friction = 0.5f;     // Coulomb cap of the tangential force
  Vec3 gravity = {0.0f, 0.0f, -9.81f};
  float pour_height = 0.1f;  // fraction of box.z where the lowest layer starts
  float pour_width = 0.35f;  // fraction of box.x and box.y the poured column spans
  BackendKind backend = BackendKind::automatic;
};

// Reads [simulation] from TOML text (`source` names the file in messages) with "table.key=value"
// overrides applied at the document's root; keys of other tables are left to their readers.
// Throws ConfigError naming the key, the file and the line.
DemParams parse_dem_params(const std::string& toml_text, const std::string& source,
                           const std::vector<std::string>& overrides);

// The pour that granray-dem runs without an input file.
const char* default_pour_toml();

}  // namespace granray::dem
