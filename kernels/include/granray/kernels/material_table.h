// The materials of a frame as the kernels read them (SPEC 2e), and how a grain finds its own.
// The bounce pass that uses them is materials.h.
#pragma once

#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray {

enum MaterialKind : std::uint32_t { kMatteMaterial = 0, kMetalMaterial = 1, kGlassMaterial = 2 };

// One material as the kernels read it.
struct MaterialParams {
  std::uint32_t kind;
  Vec3 tint;
  float reflectance;  // metal: k
  float ior;          // glass
  float r0;           // glass: Schlick's ((ior - 1) / (ior + 1))^2
};

constexpr int kMaterialSlots = 32;         // RenderSettings::materials at most (kMaxMaterials)
constexpr std::uint8_t kMatteSlot = 0xff;  // a surface no material names
constexpr int kMaxBounce = 16;             // kMaxBounces: the deepest stack of pending rays

// How a grain finds its material: the first listed range that holds the grain's value (its
// scalar, or its radius).
struct GrainMaterials {
  float lo[kMaterialSlots];
  float hi[kMaterialSlots];
  std::uint8_t slot_of_range[kMaterialSlots];  // the materials that select grains, in order
  int ranges;
  const float* values;  // per grain, indexed as the frame's spheres; null: by radius

  GRANRAY_HD std::uint8_t slot(std::uint32_t index, Vec4 sphere) const {
    const float v = values != nullptr ? values[index] : sphere.w;
    for (int k = 0; k < ranges; ++k) {
      if (v >= lo[k] && v <= hi[k]) return slot_of_range[k];
    }
    return kMatteSlot;
  }
};

// A frame's materials: slot k is RenderSettings::materials[k].
struct MaterialTable {
  MaterialParams params[kMaterialSlots];
  GrainMaterials grains;
  int bounces;
};

}  // namespace granray
