// The check behind the MPI rendering tests (mpi_render_test.cpp, mpi_lit_render_test.cpp):
// grains dealt out among the ranks in one of several ways render, after compositing, the image,
// depths and ids of one rank rendering every grain.
#pragma once

#include <cstdint>
#include <vector>

#include "granray/insitu/mpi_frame.h"
#include "test_support.h"

namespace granray::test {

// How the grains are dealt out: at random (every rank's box spans the scene), in slabs along
// x, all to the last rank (the others empty), by index into contiguous runs, round-robin by
// index, or into octants about a random point (boxes that are not slabs; octants beyond the
// rank count wrap around, so a rank may hold two far-apart ones).
enum class Split { random, slabs, all_on_last, contiguous_without_ids, round_robin, octants };

// Renders `spheres` (scalar `speed`, material values `materials[k]` of field slot k where given)
// split among the
// ranks; on rank 0 compares with a one-rank render. With `kept`, composites with it; otherwise
// with a fresh compositor of each method. Renders with `used` where given, else with a fresh
// renderer.
void expect_same_as_one_rank(const std::vector<Vec4>& spheres, const std::vector<float>& speed,
                             RenderSettings settings, Split split, Rng& rng,
                             mpi::Compositor* kept = nullptr, Renderer* used = nullptr,
                             const std::vector<const std::vector<float>*>& materials = {});

// A random small frame with shadows, coloured by the global auto range of the scalar.
RenderSettings small_lit_settings(Rng& rng);

}  // namespace granray::test
