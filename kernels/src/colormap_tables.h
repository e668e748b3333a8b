#pragma once

#include "granray/kernels/vec.h"

namespace granray::detail {

constexpr int kColormapCount = 7;  // in the order of granray::colormap_names()
constexpr int kColormapSize = 256;
extern const Vec3 kColormapTables[kColormapCount][kColormapSize];

}  // namespace granray::detail
