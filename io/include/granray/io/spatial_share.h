// A rank's spatial share of a snapshot (granray-render under mpirun): recursive coordinate
// bisection, so that every rank gets an equal count of grains in a compact box, which lit
// frames across ranks need (a halo serves a box, not a scattered share).
#pragma once

#include <vector>

#include "granray/io/particle_file.h"
#include "granray/render_settings.h"

namespace granray::io {

// The indices (in file order) of rank `rank`'s share of `frame` among `ranks`: the grains are
// split at the median of the longest of `axes` (unit directions; x, y and z when empty) over
// their extent, and each half goes to half of the ranks, down to one rank. Every rank computes
// the same split. Broken grains (a coordinate not finite) sort last along every axis.
std::vector<std::size_t> spatial_share_indices(const ParticleFrame& frame, int rank, int ranks,
                                               std::vector<Vec3> axes = {});

// The picture's right and up directions in the world for `settings`' camera framing `frame`
// (empty when no grain can be drawn). Shares split along them each hold one part of the
// picture, so the ranks' casting and shading work splits evenly: split along the view
// direction instead, the nearest share shows nearly every surface and its rank does nearly all
// of a lit frame's work.
std::vector<Vec3> picture_axes(const ParticleFrame& frame, const RenderSettings& settings);

// Rank `rank`'s share as a frame of its own, with explicit global ids (the file's, or the index
// in the file) so that ties and the ranks' composite stay those of the whole snapshot.
ParticleFrame spatial_share(const ParticleFrame& frame, int rank, int ranks,
                            const std::vector<Vec3>& axes = {});

}  // namespace granray::io
