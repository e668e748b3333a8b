// The kinds of material a grain or wall may be (contract 2e), shared by the settings, the
// configuration's parser and the kernels. A new kind adds its name here, a file of its own beside
// metal_material.h and a case in material_scatter.h (docs/design.md, "How to add a material").
#pragma once

#include <cstdint>

namespace granray {

enum class MaterialType : std::uint32_t { matte, metal, glass };

// What [[insitu.materials]] type calls each kind, in MaterialType's order.
inline constexpr const char* kMaterialTypeNames[] = {"matte", "metal", "glass"};

}  // namespace granray
