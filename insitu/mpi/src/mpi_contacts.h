// contract 2g across ranks: every rank's contact pairs, given whole (both grains' spheres and
// ids), gathered to every rank, so that the capsules are the same on every rank as walls are:
// each rank draws them all, the depth composite keeps one, and any rank's secondary rays meet
// them. The capsules are ordered by their grains' ids (ContactScene), so the frame is the one
// rank's.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "granray/particles.h"

namespace granray::mpi::detail {

struct GatheredContacts {
  std::vector<Vec4> spheres;       // 2 a pair
  std::vector<std::uint64_t> ids;  // 2 a pair
  std::vector<float> value;
};

// Collective. The pairs of `view` (its contacts by index into its particles, or whole), with
// every other rank's, into `out`; returns their view (whole, in host memory). A pair by index
// past the rank's particles keeps a broken sphere, so that it is left out and counted.
// Throws (on every rank) when a rank's pairs or particles are in device memory.
ContactView gather_contacts(MPI_Comm comm, const ParticleView& view, GatheredContacts& out);

}  // namespace granray::mpi::detail
