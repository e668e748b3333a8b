// A frame's materials (contract 2e) as the kernels read them, from its settings.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "granray/kernels/material_table.h"
#include "granray/particles.h"
#include "granray/render_settings.h"

namespace granray::detail {

// A frame's materials on the host, for the backend to upload (MaterialTable then points there).
struct MaterialSetup {
  std::vector<MaterialParams> params;  // slot k: RenderSettings::materials[k]
  std::vector<GrainRange> ranges;      // in order, each with its values in the backend's memory
  int bounces;
};

// `values`: the frame's material values per field slot in the backend's memory (null: the frame
// has none); ConfigError where a material selects grains by values the frame lacks, or there are
// too many, or a value is out of range.
MaterialSetup make_material_setup(const RenderSettings& settings,
                                  const std::array<const float*, kMaterialFields>& values);

// Per wall of settings.walls, the slot of the material it names (kMatteSlot: none);
// ConfigError for a name that no material has.
std::vector<std::uint8_t> wall_material_slots(const RenderSettings& settings);

}  // namespace granray::detail
