// Under mpirun -np 1..4, on CPUs and on GPUs (GRANRAY_MPI_TEST_BACKEND=cuda): a packing's force
// network (contract 2g), each pair passed once by a rank that owns one of its grains, renders
// after compositing the image, depths and ids of one rank rendering every grain and pair; and
// the network shows in it.

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>

#include "contact_reference.h"
#include "granray/insitu/mpi_frame.h"
#include "mpi_one_rank_check.h"
#include "mpi_support.h"
#include "test_support.h"

namespace granray::test {
namespace {

// Rounds alternate between the two ways a rank passes its pairs: given whole (both grains' spheres
// and ids: the only way for a pair whose other grain is another rank's), and by index into the
// rank's own particles (the pairs between two of its grains; a pair across ranks is then left
// out of the scene, on one rank as on many).
TEST(MpiContacts, TheNetworkAcrossRanksIsTheOneRanksNetwork) {
  Rng rng(shared_seed());
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  Renderer renderer(mpi_test_backend());
  for (int round = 0; round < 6; ++round) {
    const bool whole = round % 2 == 0;
    const std::vector<Vec4> grains = dense_bed(rng, 700, 0.3f, 0.5f);
    const std::vector<RefContact> contacts = true_contacts(rng, grains, 4.0f);
    // Grains dealt out at random, or in slabs along x (whose pairs mostly stay on one rank).
    std::vector<int> owner(grains.size());
    float x_lo = INFINITY, x_hi = -INFINITY;
    for (const Vec4& g : grains) {
      x_lo = std::min(x_lo, g.x);
      x_hi = std::max(x_hi, g.x);
    }
    for (std::size_t i = 0; i < grains.size(); ++i) {
      owner[i] = round < 2 ? static_cast<int>(rng() % size)
                           : std::min(size - 1, static_cast<int>((grains[i].x - x_lo) /
                                                                 (x_hi - x_lo + 1e-6f) * size));
    }
    std::vector<Vec4> mine;
    std::vector<std::uint64_t> ids;
    std::vector<std::uint32_t> local(grains.size(), ~0u);
    for (std::size_t i = 0; i < grains.size(); ++i) {
      if (owner[i] != rank) continue;
      local[i] = static_cast<std::uint32_t>(mine.size());
      mine.push_back(grains[i]);
      ids.push_back(i);
    }
    // The scene's pairs (every rank computes all of them the same way) and this rank's share:
    // a pair goes to the owner of its first grain, listed either way round now and then.
    std::vector<std::uint32_t> all_first, all_second, my_first, my_second;
    std::vector<float> all_value, my_value;
    std::vector<Vec4> my_spheres;
    std::vector<std::uint64_t> my_ids;
    for (const RefContact& c : contacts) {
      const bool flip = rng() % 3 == 0;
      const std::uint32_t a = flip ? c.second : c.first, b = flip ? c.first : c.second;
      if (!whole && owner[a] != owner[b]) continue;
      all_first.push_back(a);
      all_second.push_back(b);
      all_value.push_back(static_cast<float>(c.value));
      if (owner[a] != rank) continue;
      my_value.push_back(static_cast<float>(c.value));
      if (whole) {
        my_spheres.insert(my_spheres.end(), {grains[a], grains[b]});
        my_ids.insert(my_ids.end(), {a, b});
      } else {
        my_first.push_back(local[a]);
        my_second.push_back(local[b]);
      }
    }
    ParticleView view;
    view.xyzr = mine.data();
    view.count = mine.size();
    view.ids = ids.data();
    view.contacts.value = my_value.data();
    view.contacts.count = my_value.size();
    if (whole) {
      view.contacts.spheres = my_spheres.data();
      view.contacts.ids = my_ids.data();
    } else {
      view.contacts.first = my_first.data();
      view.contacts.second = my_second.data();
    }
    RenderSettings s =
        round == 5 ? small_lit_settings(rng) : small_random_settings(rng, round == 3);
    s.color.reset();  // the grains' colour needs no field: ids alone say whose a pixel is
    s.contacts = ContactSettings{};
    s.contacts->width = uniform(rng, 0.4f, 0.9f);
    s.contacts->scale_by_force = rng() % 2 == 0;
    s.contacts->threshold = uniform(rng, 0.0f, 1.0f);
    s.contacts->grains = round != 1 && round != 4;
    mpi::Compositor compositor;
    Image composited;
    mpi::render_distributed(renderer, MPI_COMM_WORLD, view, s, composited, &compositor);
    if (rank != 0) continue;

    ParticleView all;
    all.xyzr = grains.data();
    all.count = grains.size();
    all.contacts = {all_first.data(), all_second.data(), all_value.data(), all_value.size()};
    Image reference;
    const FrameStats one = renderer.render(all, s, reference, {RenderMethod::grid, true});
    const std::string what = std::string(whole ? "pairs whole" : "pairs by index") + ", round " +
                             std::to_string(round) + " on " + std::to_string(size) + " ranks, " +
                             std::to_string(all_value.size()) + " pairs";
    ASSERT_GT(one.contacts, 0u) << what;
    // The network alone always shows; among the grains a camera may see only grains (seed
    // 7585941891078033115 did), and the equality below says the rest.
    if (!s.contacts->grains)
      EXPECT_GT(capsule_pixels(composited), 0u) << what << ": the network shows";
    EXPECT_EQ(capsule_pixels(composited), capsule_pixels(reference)) << what;
    EXPECT_EQ(composited.rgb, reference.rgb) << what;
    EXPECT_EQ(composited.depth, reference.depth) << what;
    EXPECT_EQ(composited.hit_id, reference.hit_id) << what;
  }
}

}  // namespace
}  // namespace granray::test
