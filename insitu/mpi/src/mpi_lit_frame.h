// contract 2a frames across ranks by halo (each rank its grains and the others' near its box,
// secondary rays asked of the ranks whose boxes they cross); small frames are gathered instead
// (mpi_gathered_frame.h).
#pragma once

#include <mpi.h>

#include "granray/insitu/mpi_frame.h"
#include "granray/renderer.h"

namespace granray::mpi::detail {

// contract 2a over ranks by halo (kernels/lit_exchange.h): each rank gets the other ranks' grains
// near its box, casts and lights its own samples, asks the ranks whose boxes its open shadow
// rays (and its walls' occlusion rays) cross, shades, and the images composite as unlit ones
// do (with several samples per pixel, sample by sample: sample_composite.h). `own`: this rank's
// particles' box. `in_gpu_memory`: the shaded images meet in GPU memory (one sample per pixel,
// composites_in_gpu_memory said yes for this frame).
FrameStats render_lit_by_halo(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                              const RenderSettings& settings, RenderOptions options, Image& image,
                              Compositor* compositor, Composited result, const SceneBounds& own,
                              bool in_gpu_memory);

// Composites a frame every rank rendered with hits into rank 0's image (as one rank's frame
// would show it, see-through walls over the background where no rank drew).
void composite_rendered(Image& image, const RenderSettings& settings, MPI_Comm comm,
                        Compositor* compositor, Composited result, bool see_through,
                        FrameStats& stats);

// Collective: whether this frame's images meet in GPU memory (Compositor::
// composites_in_gpu_memory for the frame's window; never without a kept compositor or on one rank).
bool composites_in_gpu_memory(Renderer& renderer, MPI_Comm comm, const RenderSettings& settings,
                              Compositor* compositor);

// An unlit frame composited in GPU memory.
FrameStats render_in_gpu_memory(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                                const RenderSettings& settings, RenderOptions options, Image& image,
                                Composited result);

// After every rank's frame went into its shared planes (RenderOptions::share_planes): rank 0
// merges them into `image`, and the others wait until it has read them.
void composite_in_gpu_memory(Renderer& renderer, MPI_Comm comm, void* cuda_stream,
                             const RenderSettings& settings, Composited result, Image& image,
                             FrameStats& stats);

// Whether the frame has walls one sees through (contract 2d).
bool has_see_through_walls(const RenderSettings& settings);

}  // namespace granray::mpi::detail
