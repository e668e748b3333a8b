// SPEC 2a frames across ranks: the lit passes with their surfaces and blocked rays reduced
// among the ranks, or the particles gathered onto rank 0 while they fit there.
#pragma once

#include <mpi.h>

#include "granray/insitu/mpi_frame.h"
#include "granray/renderer.h"

namespace granray::mpi::detail {

// SPEC 2a over ranks by passes: each rank finds its nearest surfaces, all keep the nearest of
// all, each finds which of their secondary rays its own particles block, rank 0 shades.
FrameStats render_lit_distributed(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                                  const RenderSettings& settings, const RenderOptions& options,
                                  Image& image);

// SPEC 2a over ranks while the particles fit on one: rank 0 gathers and renders alone.
FrameStats render_lit_gathered(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, RenderOptions options, Image& image,
                               Composited result);

}  // namespace granray::mpi::detail
