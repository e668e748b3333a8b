// contract 2a frames across ranks while the particles fit on one rank: every rank's grains gathered
// and rendered by rank 0 (GPUs, and CPU ranks of one node with all their threads), or by every
// rank in bands of rows (CPUs).
#pragma once

#include <mpi.h>

#include <vector>

#include "granray/insitu/mpi_frame.h"
#include "granray/renderer.h"

namespace granray::mpi::detail {

// contract 2a over ranks while the particles fit on one: rank 0 gathers every rank's particles and
// renders alone, or (`in_bands`) every rank gathers them all and renders its bands of the
// picture's rows, which rank 0 stacks into `image`. A window's pixels are those of the whole
// image (RenderSettings::region), so either way the image is the one-rank image. `kept`: the
// compositor kept between frames, or null: its band_costs (each row's cost in the frames before,
// by which this one cuts its rows, then updated with this frame's times) and its band_stack
// (where rank 0 stacks the bands); without it, equal rows stacked by messages. `threads`: the
// OpenMP threads rank 0 renders with when it renders alone (Compositor::gathered_frame_threads;
// 0: its own).
FrameStats render_lit_gathered(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, RenderOptions options, Image& image,
                               Composited result, bool in_bands, Compositor* kept = nullptr,
                               int threads = 0);

// The first row of each of `bands` bands of `rows` rows and the end of the last: equal rows, or,
// with an estimate of each row's cost (`before`, of as many rows), equal estimated costs. Every
// band has a row while there are rows enough.
std::vector<int> band_edges(int rows, int bands, const BandCosts* before);

// Takes a frame's bands (`edges`, as band_edges gives) and the milliseconds each took into the
// estimate of each row's cost: within a band the rows keep the shape the frames before gave
// them, mostly, and share its time.
void learn_band_costs(BandCosts& costs, const std::vector<int>& edges,
                      const std::vector<double>& ms);

}  // namespace granray::mpi::detail
