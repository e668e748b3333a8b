// Several samples per pixel across ranks (lit frames by halo): a pixel's samples may show grains
// of different ranks, so the ranks composite samples, not pixels, before the mean.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "granray/image.h"
#include "granray/kernels/lit_queries.h"

namespace granray::mpi::detail {

// Collective. `mine`: every sample of the width x height window as this rank shows it, pixel by
// pixel (`samples` each); its own band is composited in place. Rank r keeps rows [height r / N,
// height (r + 1) / N): the other ranks send it the samples they drew there, it keeps the nearest of
// each (depth, then the smaller id; where none drew, its own: the background under the see-through
// walls, as every rank shows it), and takes each pixel's mean in sample order; rank 0 gathers the
// rows into `image` (rgb, and with `with_hits` each pixel's first sample's depth and id). Returns
// the bytes this rank sent.
std::uint64_t composite_samples(HostSamples mine, int width, int height, int samples,
                                bool with_hits, Image& image, MPI_Comm comm);

}  // namespace granray::mpi::detail
