// The materials of a frame as the kernels read them (contract 2e), and how a grain finds its own.
// The bounce pass that uses them is materials.h.
#pragma once

#include <cstdint>

#include "granray/kernels/vec.h"
#include "granray/material_type.h"

namespace granray {

// One material as the kernels read it.
struct MaterialParams {
  MaterialType kind;
  Vec3 tint;
  float reflectance;  // metal: k
  float ior;          // glass
  float r0;           // glass: Schlick's ((ior - 1) / (ior + 1))^2
  float roughness;    // metal, in the path-traced still
};

constexpr int kMaterialSlots = 32;         // RenderSettings::materials at most (kMaxMaterials)
constexpr std::uint8_t kMatteSlot = 0xff;  // a surface no material names
constexpr int kMaxBounce = 16;             // kMaxBounces: the deepest stack of pending rays

// The grains whose value lies in [lo, hi] take material `slot`: their value in `values` (per
// grain, indexed as the frame's spheres, in the backend's memory), or their radius where it is
// null.
struct GrainRange {
  float lo, hi;
  std::uint32_t slot;
  std::uint32_t unused_padding;  // named, so that comparing and copying ranges sees set bytes
  const float* values;
};

// How a grain finds its material: the first listed range that holds the grain's value of that
// range's field. The ranges and the materials live in the backend's memory, not in the kernels'
// parameters: a parameter array indexed by a value known only at run time is copied to every GPU
// thread's local memory.
struct GrainMaterials {
  const GrainRange* ranges;
  int count;

  GRANRAY_HD std::uint8_t slot(std::uint32_t index, Vec4 sphere) const {
    for (int k = 0; k < count; ++k) {
      const GrainRange r = ranges[k];
      const float v = r.values != nullptr ? r.values[index] : sphere.w;
      if (v >= r.lo && v <= r.hi) return static_cast<std::uint8_t>(r.slot);
    }
    return kMatteSlot;
  }
};

// A frame's materials: slot k is RenderSettings::materials[k].
struct MaterialTable {
  const MaterialParams* params;
  GrainMaterials grains;
  int bounces;
};

}  // namespace granray
