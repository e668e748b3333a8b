#include "material_setup.h"

#include <cmath>
#include <string>

#include "granray/errors.h"

namespace granray::detail {

namespace {

MaterialParams params_of(const MaterialSettings& m) {
  MaterialParams p{};
  p.kind = m.type;
  p.tint = m.tint;
  p.reflectance = m.reflectance;
  p.ior = m.ior;
  const float q = (m.ior - 1.0f) / (m.ior + 1.0f);
  p.r0 = q * q;
  p.roughness = m.roughness;
  return p;
}

bool in_unit_range(float x) { return x >= 0.0f && x <= 1.0f; }

void check(const MaterialSettings& m) {
  const std::string which = "granray: material \"" + m.name + "\": ";
  if (!in_unit_range(m.reflectance) || !in_unit_range(m.roughness)) {
    throw ConfigError(which + "reflectance and roughness must be in [0, 1]");
  }
  if (!(in_unit_range(m.tint.x) && in_unit_range(m.tint.y) && in_unit_range(m.tint.z))) {
    throw ConfigError(which + "tint must hold three values in [0, 1]");
  }
  if (!(m.ior > 1.0f && m.ior <= 10.0f)) throw ConfigError(which + "ior must be in (1, 10]");
  if (m.grains &&
      (std::isnan(m.grains->lo) || std::isnan(m.grains->hi) || m.grains->lo > m.grains->hi)) {
    throw ConfigError(which + "its range must be [lo, hi] with lo <= hi");
  }
}

}  // namespace

MaterialSetup make_material_setup(const RenderSettings& settings,
                                  const std::array<const float*, kMaterialFields>& values) {
  if (settings.materials.size() > kMaxMaterials ||
      settings.materials.size() > static_cast<std::size_t>(kMaterialSlots)) {
    throw ConfigError("granray: " + std::to_string(settings.materials.size()) +
                      " materials; at most " + std::to_string(kMaxMaterials));
  }
  if (settings.shading.bounces < 0 || settings.shading.bounces > kMaxBounces ||
      kMaxBounces > kMaxBounce) {
    throw ConfigError("granray: bounces must be in 0.." + std::to_string(kMaxBounces));
  }
  MaterialSetup table{};
  table.bounces = settings.shading.bounces;
  for (std::size_t k = 0; k < settings.materials.size(); ++k) {
    const MaterialSettings& m = settings.materials[k];
    check(m);
    table.params.push_back(params_of(m));
    if (!m.grains) continue;
    const float* by = nullptr;  // the radius
    if (m.field == MaterialField::scalar) {
      if (m.field_slot < 0 || m.field_slot >= kMaterialFields) {
        throw ConfigError("granray: material \"" + m.name + "\": field slot " +
                          std::to_string(m.field_slot) + " outside 0.." +
                          std::to_string(kMaterialFields - 1));
      }
      by = values[m.field_slot];
      // Without values only "all" can select: any radius lies in -inf..inf.
      if (by == nullptr && m.selects_by_value()) {
        throw ConfigError("granray: material \"" + m.name +
                          "\" selects grains by a value per particle (its field), and this "
                          "frame's particles have none");
      }
    }
    table.ranges.push_back({m.grains->lo, m.grains->hi, static_cast<std::uint32_t>(k), 0u, by});
  }
  return table;
}

std::vector<std::uint8_t> wall_material_slots(const RenderSettings& settings) {
  std::vector<std::uint8_t> slots;
  if (!settings.walls) return slots;
  for (const Wall& w : *settings.walls) {
    std::uint8_t slot = kMatteSlot;
    if (!w.material.empty()) {
      for (std::size_t k = 0; k < settings.materials.size(); ++k) {
        if (settings.materials[k].name == w.material) {
          slot = static_cast<std::uint8_t>(k);
          break;
        }
      }
      if (slot == kMatteSlot) {
        throw ConfigError("granray: wall \"" + w.name + "\" names the material \"" + w.material +
                          "\", which no [[insitu.materials]] entry defines");
      }
    }
    slots.push_back(slot);
  }
  return slots;
}

}  // namespace granray::detail
