// contract 2g across ranks: every rank's contact pairs, given whole (both grains' spheres and
// ids; pairs in device memory are made whole there and travel once), gathered to every rank, so
// that the capsules are the same on every rank as walls are: each rank draws them all, the depth
// composite keeps one, and any rank's secondary rays meet them. The capsules are ordered by their
// grains' ids (ContactScene), so the frame is the one rank's.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "granray/particles.h"
#include "granray/rank_stages.h"
#include "granray/renderer.h"

namespace granray::mpi::detail {

// Collective. The pairs of `view` (its contacts by index into its particles, or whole; in host
// memory or in the renderer's device memory), with every other rank's, into `out`; returns their
// view (whole, in host memory). A pair by index past the rank's particles keeps a broken sphere,
// so that it is left out and counted.
ContactView gather_contacts(MPI_Comm comm, Renderer& renderer, const ParticleView& view,
                            HostPairs& out);

}  // namespace granray::mpi::detail
