// Where a LAMMPS region has moved to: its `move` displacement and `rotate` angle as a rigid
// transform of the region's original frame, so that a granray wall drawn where the region was
// defined follows it (a mixer's blades, a rotating drum's baffles).
#pragma once

#include "granray/walls.h"
#include "region.h"

namespace granray::lammps {

// The region's current motion (LAMMPS's Region::forward_transform: rotate by theta about the
// axis through its point, then displace by dx, dy, dz); evaluates the region's variables for
// this step first.
RigidTransform region_motion(LAMMPS_NS::Region& region);

}  // namespace granray::lammps
