// A rank's spatial share of a snapshot (granray-render under mpirun): recursive coordinate
// bisection, so that every rank gets an equal count of grains in a compact box, which lit
// frames across ranks need (a halo serves a box, not a scattered share).
#pragma once

#include <vector>

#include "granray/io/particle_file.h"

namespace granray::io {

// The indices (in file order) of rank `rank`'s share of `frame` among `ranks`: the grains are
// split at the median of the longest axis of their box, and each half goes to half of the
// ranks, down to one rank. Every rank computes the same split. Broken grains (a coordinate not
// finite) sort last along every axis.
std::vector<std::size_t> spatial_share_indices(const ParticleFrame& frame, int rank, int ranks);

// Rank `rank`'s share as a frame of its own, with explicit global ids (the file's, or the index
// in the file) so that ties and the ranks' composite stay those of the whole snapshot.
ParticleFrame spatial_share(const ParticleFrame& frame, int rank, int ranks);

}  // namespace granray::io
