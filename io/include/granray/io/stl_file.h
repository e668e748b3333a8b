// STL meshes (contract 2b walls): ASCII or binary, told apart by content.
#pragma once

#include <string>
#include <vector>

#include "granray/walls.h"

namespace granray::io {

// Every triangle of the file, in order, vertices in its winding. A truncated or malformed file,
// or a vertex that is not finite, throws InputError naming the file and the line (ASCII) or the
// triangle (binary).
std::vector<Triangle> read_stl(const std::string& path);

}  // namespace granray::io
