// Clumps of a GPU DEM (Chrono DEM-Engine: owners of clump templates) as granray's particles: the
// gather writes each owner's component spheres into its own float4 buffer, in the memory the
// owners are in, and this hands them over with the owners' value as a named field. Nothing goes
// through the host on the GPU. docs/dem-engine.md shows it in a DEM-Engine time loop.
#pragma once

#include <string>

#include "granray/clump_gather.h"
#include "granray/insitu/simulation_particles.h"

namespace granray::adapters {

// The frame's spheres; with `frame.values`, they carry the field `field` (the configuration's
// [insitu.color] field, say "speed"). Valid until the next gather.
inline SimulationParticles clump_particles(ClumpGather& gather, const ClumpOwnersFrame& frame,
                                           const std::string& field = "") {
  SimulationParticles p;
  p.view = gather.gather(frame);
  if (frame.values != nullptr && !field.empty()) p.with_field(field, p.view.scalar);
  p.view.scalar = nullptr;  // the configuration picks its fields by name
  return p;
}

}  // namespace granray::adapters
