// Under mpirun -np 1..4: random scenes split among the ranks in several ways render, after
// compositing, byte-identical to one rank rendering every particle.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

#include "granray/errors.h"
#include "granray/insitu/mpi_frame.h"
#include "mpi_one_rank_check.h"
#include "mpi_support.h"
#include "test_support.h"

namespace granray::test {
namespace {

TEST(MpiRender, AnySplitOnAnyRankCountMatchesOneRank) {
  Rng rng(shared_seed());
  for (const Split split :
       {Split::random, Split::slabs, Split::all_on_last, Split::contiguous_without_ids}) {
    for (const bool dilute : {false, true}) {
      const auto spheres =
          dilute ? dilute_gas(rng, 1500, 0.05f, 0.3f, 8.0f) : dense_bed(rng, 2000, 0.3f, 0.5f);
      std::vector<float> speed(spheres.size());
      for (auto& s : speed) s = uniform(rng, 0.0f, 5.0f);
      RenderSettings s = random_settings(rng, rng() % 2 == 0);
      s.color = ColorMapping{static_cast<int>(rng() % 7), true, 0.0f, 1.0f};  // global auto range
      if (rng() % 3 == 0) s.color->palette = tableau10_palette();             // categories 0..5
      s.category_census = rng() % 2 == 0;
      if (rng() % 2 == 0)
        s.select = SelectRange{uniform(rng, 0.0f, 2.0f), uniform(rng, 2.5f, 5.0f)};
      random_inside_shading(rng, s.shading);  // the cue's depths span every rank's grains
      expect_same_as_one_rank(spheres, speed, s, split, rng);
    }
  }
}

TEST(MpiRender, TwinsOnDifferentRanksGoToTheSmallerId) {
  Rng rng(shared_seed());
  // The same spheres twice, mostly on different ranks: every pixel must go to the smaller id.
  auto spheres = dense_bed(rng, 500, 0.4f, 0.5f);
  const auto copy = spheres;
  spheres.insert(spheres.end(), copy.begin(), copy.end());
  std::vector<float> speed(spheres.size(), 1.0f);
  expect_same_as_one_rank(spheres, speed, random_settings(rng, false), Split::random, rng);
}

// A compositor kept from frame to frame (as the plugin keeps one) follows the image size: its
// buffers or shared-memory segments are made again when the size changes.
TEST(MpiRender, AKeptCompositorFollowsTheImageSize) {
  Rng rng(shared_seed());
  const int size = size_of(MPI_COMM_WORLD);
  struct Case {
    mpi::CompositeMethod method;
    int pretend_nodes;             // 0: the real ones (one machine)
    mpi::CompositeMethod settles;  // what the compositor uses after the first frame
  };
  const mpi::CompositeMethod nodes_of_two =
      size > 2 ? mpi::CompositeMethod::two_level : mpi::CompositeMethod::shared_memory;
  const Case cases[] = {
      {mpi::CompositeMethod::automatic, 0, mpi::CompositeMethod::shared_memory},
      {mpi::CompositeMethod::automatic, 2, nodes_of_two},
      {mpi::CompositeMethod::shared_memory, 0, mpi::CompositeMethod::shared_memory},
      {mpi::CompositeMethod::binary_swap, 0, mpi::CompositeMethod::binary_swap},
      {mpi::CompositeMethod::two_level, 2, nodes_of_two},
  };
  for (const Case& c : cases) {
    mpi::Compositor compositor(c.method);
    if (c.pretend_nodes > 0) compositor.pretend_nodes_of(c.pretend_nodes);
    for (int frame = 0; frame < 4; ++frame) {
      const auto spheres = dense_bed(rng, 800, 0.3f, 0.5f);
      const std::vector<float> speed(spheres.size(), 1.0f);
      RenderSettings s = random_settings(rng, false);
      if (frame == 2) s.width += 1;  // now and then only one side changes
      expect_same_as_one_rank(spheres, speed, s, Split::random, rng, &compositor);
      // CUDA renderers of one host meet in GPU memory instead, when the method is left open.
      const bool on_gpu = size > 1 && mpi_test_backend() == BackendKind::cuda &&
                          c.method == mpi::CompositeMethod::automatic && c.pretend_nodes == 0;
      EXPECT_EQ(compositor.in_gpu_memory(), on_gpu) << int(c.method);
      if (size > 1 && !on_gpu) EXPECT_EQ(compositor.method(), c.settles) << int(c.method);
    }
  }
}

// CUDA renderers on one host: unlit frames composite in GPU memory, each rank's planes mapped
// by rank 0, for any split (empty ranks too) and with the image size changing; the same image,
// byte for byte, as one rank, and as the host's way (GRANRAY_COMPOSITE=host).
TEST(MpiRender, FramesCompositedInGpuMemoryMatchOneRank) {
  if (mpi_test_backend() != BackendKind::cuda) GTEST_SKIP() << "CUDA renderers only";
  Rng rng(shared_seed());
  const int size = size_of(MPI_COMM_WORLD);
  for (const bool host : {false, true}) {
    if (host) setenv("GRANRAY_COMPOSITE", "host", 1);
    mpi::Compositor compositor;
    for (const Split split : {Split::random, Split::slabs, Split::all_on_last, Split::octants,
                              Split::contiguous_without_ids}) {
      const bool dilute = rng() % 2 == 0;
      auto spheres =
          dilute ? dilute_gas(rng, 1500, 0.05f, 0.3f, 8.0f) : dense_bed(rng, 3000, 0.3f, 0.5f);
      // Twins on different ranks: the smaller id wins in the merge as everywhere.
      spheres.insert(spheres.end(), spheres.begin(), spheres.begin() + 200);
      std::vector<float> speed(spheres.size());
      for (auto& v : speed) v = uniform(rng, 0.0f, 5.0f);
      RenderSettings s = random_settings(rng, rng() % 2 == 0);
      s.color = ColorMapping{static_cast<int>(rng() % 7), true, 0.0f, 1.0f};
      s.shading.background = {uniform(rng, 0.0f, 1.0f), uniform(rng, 0.0f, 1.0f),
                              uniform(rng, 0.0f, 1.0f)};
      if (split == Split::octants) s.width += 3;  // planes made again for the new size
      if (split == Split::slabs) s.region = PixelRect{5, 3, s.width - 7, s.height - 2};  // a band
      expect_same_as_one_rank(spheres, speed, s, split, rng, &compositor);
      EXPECT_EQ(compositor.in_gpu_memory(), size > 1 && !host) << int(split);
    }
    if (host) unsetenv("GRANRAY_COMPOSITE");
  }
}

// Shared memory alone cannot span nodes: asked for across (pretended) nodes, every rank throws.
TEST(MpiRender, SharedMemoryAcrossNodesIsRefusedOnEveryRank) {
  if (size_of(MPI_COMM_WORLD) < 3) GTEST_SKIP() << "needs two pretended nodes";
  Rng rng(shared_seed());
  mpi::Compositor compositor(mpi::CompositeMethod::shared_memory);
  compositor.pretend_nodes_of(2);
  Image image;
  image.width = 16 + static_cast<int>(rng() % 16);
  image.height = 8 + static_cast<int>(rng() % 16);
  const std::size_t pixels = std::size_t(image.width) * image.height;
  image.rgb.assign(3 * pixels, 0);
  image.depth.assign(pixels, INFINITY);
  image.hit_id.assign(pixels, ~std::uint64_t{0});
  EXPECT_THROW(compositor.composite(image, {0.0f, 0.0f, 0.0f}, MPI_COMM_WORLD), Error);
}

}  // namespace
}  // namespace granray::test
