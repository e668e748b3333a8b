// Many ranks, one picture: each rank renders its own particles with the camera and colour range
// of all of them, and sort-last compositing keeps the nearest hit per pixel (equal depth: the
// smaller global id), so the image is the same for any number of ranks.
#pragma once

#include <mpi.h>

#include "granray/image.h"
#include "granray/renderer.h"

namespace granray::mpi {

// Composites every rank's image (rgb, depth and hit_id, as rendered with
// RenderOptions::with_hits) into rank 0's `image`. Binary swap over the largest power of two of
// ranks, the remaining ranks folded in first, then rank 0 gathers the pieces: each rank sends and
// receives about one image whatever the rank count. Collective; other ranks' images are left
// unspecified. Throws granray::Error when an MPI call fails.
void composite(Image& image, MPI_Comm comm);

// Collective: measures every rank's particles, renders this rank's part with the global camera
// box and colour range (particles without ids get index + the counts of the ranks before) and
// composites into rank 0's `image`. The returned stats count the particles of all ranks.
FrameStats render_distributed(Renderer& renderer, MPI_Comm comm, ParticleView view,
                              const RenderSettings& settings, Image& image);

}  // namespace granray::mpi
