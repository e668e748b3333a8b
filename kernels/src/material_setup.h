// A frame's materials (SPEC 2e) as the kernels read them, from its settings.
#pragma once

#include <cstdint>
#include <vector>

#include "granray/kernels/material_table.h"
#include "granray/render_settings.h"

namespace granray::detail {

// `scalar`: the frame's particle values in the backend's memory (null: the frame has none);
// ConfigError where the materials select grains by a scalar the frame lacks, or are too many.
MaterialTable make_material_table(const RenderSettings& settings, const float* scalar);

// Per wall of settings.walls, the slot of the material it names (kMatteSlot: none);
// ConfigError for a name that no material has.
std::vector<std::uint8_t> wall_material_slots(const RenderSettings& settings);

}  // namespace granray::detail
