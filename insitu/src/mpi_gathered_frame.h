// SPEC 2a frames across ranks while the particles fit on one rank: every rank's grains gathered
// and rendered by rank 0 (GPUs), or by every rank in bands of rows (CPUs).
#pragma once

#include <mpi.h>

#include <vector>

#include "granray/insitu/mpi_frame.h"
#include "granray/renderer.h"

namespace granray::mpi::detail {

// SPEC 2a over ranks while the particles fit on one: rank 0 gathers every rank's particles and
// renders alone, or (`in_bands`) every rank gathers them all and renders its band of the
// picture's rows, which rank 0 stacks into `image`. A window's pixels are those of the whole
// image (RenderSettings::region), so either way the image is the one-rank image. `speeds`
// (Compositor::band_speeds, or null for equal shares): the ranks' rows per millisecond in the
// last frame in bands, by which this one deals its rows, and then this frame's.
FrameStats render_lit_gathered(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, RenderOptions options, Image& image,
                               Composited result, bool in_bands,
                               std::vector<double>* speeds = nullptr);

}  // namespace granray::mpi::detail
