// Under mpirun -np 1..4: lit frames (shadows, occlusion, walls, clip planes, metal and glass)
// of grains split among the ranks in several ways equal one rank's, byte for byte, whether
// gathered onto one rank, rendered in bands or lit by halo; and the halo is needed.

#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "granray/insitu/mpi_frame.h"
#include "granray/io/particle_file.h"
#include "granray/rank_stages.h"
#include "mpi_one_rank_check.h"
#include "mpi_support.h"
#include "test_support.h"

namespace granray::test {
namespace {

// contract 2a across ranks: a shadow or occlusion ray from a grain on one rank is blocked by grains
// on others; the lit image is still the one-rank image, byte for byte.
TEST(MpiRender, LitFramesOnAnyRankCountMatchOneRank) {
  Rng rng(shared_seed());
  for (const Split split :
       {Split::random, Split::slabs, Split::all_on_last, Split::round_robin, Split::octants}) {
    for (const bool dilute : {false, true}) {
      const auto spheres =
          dilute ? dilute_gas(rng, 800, 0.1f, 0.6f, 6.0f) : dense_bed(rng, 1200, 0.3f, 0.5f);
      std::vector<float> speed(spheres.size());
      for (auto& s : speed) s = uniform(rng, 0.0f, 5.0f);
      RenderSettings s = small_lit_settings(rng);
      s.shading.ao_samples = static_cast<int>(rng() % 40);
      s.shading.specular = rng() % 2 == 0 ? 0.0f : uniform(rng, 0.1f, 0.6f);
      s.shading.samples = rng() % 2 == 0 ? 1 : 4;
      random_inside_shading(rng, s.shading);
      if (rng() % 2 == 0)
        s.select = SelectRange{uniform(rng, 0.0f, 2.0f), uniform(rng, 2.5f, 5.0f)};
      // As decided from the sizes (fresh compositors: on CPUs by halo with one sample per
      // pixel, gathered with more), across the ranks (by halo, or the passes with several
      // samples), and gathered onto rank 0.
      expect_same_as_one_rank(spheres, speed, s, split, rng);
      mpi::Compositor passes;
      passes.gather_lit_frames_up_to(0);
      expect_same_as_one_rank(spheres, speed, s, split, rng, &passes);
      mpi::Compositor gathered;
      gathered.gather_lit_frames_up_to(~std::uint64_t{0});
      expect_same_as_one_rank(spheres, speed, s, split, rng, &gathered);
    }
  }
}

// A random bed or gas for the gathered-frame tests, with a scalar per grain.
struct GatheredScene {
  std::vector<Vec4> spheres;
  std::vector<float> speed;
};
GatheredScene random_gathered_scene(Rng& rng) {
  GatheredScene scene;
  scene.spheres =
      rng() % 2 == 0 ? dilute_gas(rng, 600, 0.1f, 0.6f, 6.0f) : dense_bed(rng, 900, 0.3f, 0.5f);
  scene.speed.resize(scene.spheres.size());
  for (auto& v : scene.speed) v = uniform(rng, 0.0f, 5.0f);
  return scene;
}

// The grains dealt round-robin (with their global ids) and rendered across the ranks with
// `compositor`, as one frame of a run.
FrameStats render_dealt(const std::vector<Vec4>& spheres, const RenderSettings& s,
                        mpi::Compositor& compositor) {
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  Renderer renderer(mpi_test_backend());
  std::vector<Vec4> mine;
  std::vector<std::uint64_t> ids;
  for (std::size_t i = rank; i < spheres.size(); i += std::size_t(size)) {
    mine.push_back(spheres[i]);
    ids.push_back(i);
  }
  Image image;
  return mpi::render_distributed(renderer, MPI_COMM_WORLD, view_of(mine, &ids), s, image,
                                 &compositor);
}

// Gathered lit frames on CPU ranks: every rank renders bands of rows dealt round the ranks (up
// to four each), rank 0 stacks them (in shared memory or in messages). Tall narrow pictures give
// several bands a rank, windows of a few rows give some ranks none, and a kept compositor cuts the
// second frame's rows by the rows' costs in the first; the image, depths and ids are the one-rank
// frame's every time.
TEST(MpiRender, GatheredLitFramesInBandsOfRowsMatchOneRank) {
  Rng rng(shared_seed());
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  for (int trial = 0; trial < 6; ++trial) {
    const auto [spheres, speed] = random_gathered_scene(rng);
    RenderSettings s = random_settings(rng, rng() % 2 == 0);
    s.width = 16 + static_cast<int>(rng() % 40);
    s.height = 130 + static_cast<int>(rng() % 300);  // 2 to 4 bands a rank on 2 ranks
    s.color = ColorMapping{static_cast<int>(rng() % 7), true, 0.0f, 1.0f};
    s.shading.shadows = rng() % 2 == 0;
    s.shading.ao_samples = 1 + static_cast<int>(rng() % 12);
    s.shading.samples = rng() % 2 == 0 ? 1 : 4;
    if (trial % 3 == 1) {  // a window of one to three rows: on more ranks, some have none
      const int y = static_cast<int>(rng() % static_cast<unsigned>(s.height - 3));
      s.region = PixelRect{2, y, s.width - 1, y + 1 + static_cast<int>(rng() % 3)};
    } else if (trial % 3 == 2) {
      const int y = static_cast<int>(rng() % 40);
      s.region = PixelRect{1, y, s.width, s.height - static_cast<int>(rng() % 40)};
    }
    const Split split = trial % 2 == 0 ? Split::random : Split::octants;
    // Stacked in shared memory (automatic, on one node) or in messages (binary swap).
    const mpi::CompositeMethod method =
        trial % 2 == 0 ? mpi::CompositeMethod::automatic : mpi::CompositeMethod::binary_swap;
    mpi::Compositor gathered(method);
    gathered.gather_lit_frames_up_to(~std::uint64_t{0});
    gathered.render_gathered_frames_in_bands(true);
    expect_same_as_one_rank(spheres, speed, s, split, rng, &gathered);
    // The second frame: one band a rank, cut by the first frame's costs (the stack kept).
    ASSERT_EQ(gathered.band_costs().rows.size(),
              mpi_test_backend() == BackendKind::cpu
                  ? std::size_t(render_window(s).y1 - render_window(s).y0)
                  : std::size_t(0));
    expect_same_as_one_rank(spheres, speed, s, split, rng, &gathered);

    // With equal shares (a fresh compositor: no costs measured yet) as many ranks render as
    // there are rows, up to every rank (on CPUs; on GPUs rank 0 renders alone).
    mpi::Compositor fresh(method);
    fresh.gather_lit_frames_up_to(~std::uint64_t{0});
    fresh.render_gathered_frames_in_bands(true);
    const FrameStats stats = render_dealt(spheres, s, fresh);
    if (rank != 0 || mpi_test_backend() != BackendKind::cpu) continue;
    const int rows = render_window(s).y1 - render_window(s).y0;
    ASSERT_EQ(stats.ranks.size(), std::size_t(size));
    int rendered = 0;
    for (const RankStats& r : stats.ranks) rendered += r.render_ms > 0.0 ? 1 : 0;
    EXPECT_GT(stats.ranks[0].render_ms, 0.0) << "rank 0's band holds the first row";
    EXPECT_EQ(rendered, std::min(rows, size)) << rows << " rows";
  }
}

// Gathered lit frames on CPU ranks of one node whose CPUs rank 0 may use: rank 0 renders them
// alone with every rank's threads while the others wait; the image, depths and ids are the
// one-rank frame's, only rank 0 renders, and its own thread count is back after the frame.
// Ranks pretending to be on nodes of their own render bands instead.
TEST(MpiRender, GatheredLitFramesRenderedByRankZeroForTheNodeMatchOneRank) {
  Rng rng(shared_seed());
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  const int own_threads = omp_get_max_threads();
  for (int trial = 0; trial < 4; ++trial) {
    const auto [spheres, speed] = random_gathered_scene(rng);
    RenderSettings s = small_lit_settings(rng);
    s.shading.ao_samples = 1 + static_cast<int>(rng() % 12);
    s.shading.samples = rng() % 2 == 0 ? 1 : 4;
    const Split split = trial % 2 == 0 ? Split::random : Split::octants;
    mpi::Compositor alone;
    alone.gather_lit_frames_up_to(~std::uint64_t{0});
    alone.render_gathered_frames_in_bands(false);
    expect_same_as_one_rank(spheres, speed, s, split, rng, &alone);
    expect_same_as_one_rank(spheres, speed, s, split, rng, &alone);  // the decision kept
    if (mpi_test_backend() != BackendKind::cpu) continue;
    EXPECT_GE(alone.gathered_frame_threads(MPI_COMM_WORLD), 1);

    // Who rendered: rank 0 alone.
    const FrameStats stats = render_dealt(spheres, s, alone);
    EXPECT_EQ(omp_get_max_threads(), own_threads);
    if (rank == 0) {
      ASSERT_EQ(stats.ranks.size(), std::size_t(size));
      EXPECT_GT(stats.ranks[0].render_ms, 0.0);
      for (int r = 1; r < size; ++r) EXPECT_EQ(stats.ranks[std::size_t(r)].render_ms, 0.0) << r;
    }

    // Ranks on nodes of their own (pretended) render bands.
    mpi::Compositor apart;
    apart.pretend_nodes_of(1);
    EXPECT_EQ(apart.gathered_frame_threads(MPI_COMM_WORLD) == 0, size > 1);
    mpi::Compositor banded;
    banded.render_gathered_frames_in_bands(true);
    EXPECT_EQ(banded.gathered_frame_threads(MPI_COMM_WORLD), 0);
  }
}

// contract 2e across ranks: a grain's reflection shows grains of other ranks, so the frame (and the
// path-traced still) is rendered from every rank's grains on one; the image is the one-rank
// image, byte for byte, with the materials selecting by the colour field, by one of their own, or
// each by its own.
TEST(MpiRender, MetalAndGlassOnAnyRankCountMatchOneRank) {
  Rng rng(shared_seed());
  for (const Split split : {Split::random, Split::slabs, Split::octants}) {
    const auto spheres = dense_bed(rng, 900, 0.3f, 0.5f);
    std::vector<float> kind(spheres.size()), other_kind(spheres.size()), speed(spheres.size());
    for (auto& k : kind) k = float(rng() % 3);
    for (auto& k : other_kind) k = float(rng() % 3);
    for (auto& v : speed) v = uniform(rng, 0.0f, 3.0f);
    const int own_fields = static_cast<int>(rng() % 3);  // 0: the colour field serves them
    const std::vector<float>& colour = own_fields > 0 ? speed : kind;
    std::vector<const std::vector<float>*> materials;
    if (own_fields > 0) materials.push_back(&kind);
    if (own_fields > 1) materials.push_back(&other_kind);
    RenderSettings s = random_settings(rng, rng() % 2 == 0);
    s.width = std::min(s.width, 100);
    s.height = std::min(s.height, 80);
    s.color = ColorMapping{static_cast<int>(rng() % 7), true, 0.0f, 1.0f};
    s.shading.shadows = rng() % 2 == 0;
    s.shading.ao_samples = static_cast<int>(rng() % 6);
    s.shading.samples = rng() % 2 == 0 ? 1 : 4;
    s.shading.bounces = 1 + static_cast<int>(rng() % 4);
    s.materials = steel_and_glass(rng);
    s.materials[1].field_slot = own_fields > 1 ? 1 : 0;  // the glass by a field of its own
    expect_same_as_one_rank(spheres, colour, s, split, rng, nullptr, nullptr, materials);
    // The path-traced still: its random numbers are the pixel's, the sample's and the bounce's.
    s.model = ImageModel::path;
    s.path.samples = 4;
    s.path.aperture = rng() % 2 == 0 ? 0.0f : 0.1f;
    expect_same_as_one_rank(spheres, colour, s, split, rng, nullptr, nullptr, materials);
  }
}

// contract 2b, 2c and 2d's see-through walls across ranks: every rank knows the walls and the clip
// planes, each renders its own grains with them, and the composited frame is the one-rank frame
// byte for byte, unlit, lit by gathering, and lit by the passes over ranks.
TEST(MpiRender, WallsAndClipPlanesOnAnyRankCountMatchOneRank) {
  Rng rng(shared_seed());
  for (const Split split : {Split::random, Split::slabs, Split::octants}) {
    for (const bool lit : {false, true}) {
      const auto spheres = dense_bed(rng, 1200, 0.3f, 0.5f);
      std::vector<float> speed(spheres.size());
      for (auto& v : speed) v = uniform(rng, 0.0f, 5.0f);
      Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
      for (const Vec4& p : spheres) {
        lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
        hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
      }
      RenderSettings s = small_random_settings(rng, rng() % 2 == 0);
      auto walls = std::make_shared<WallList>(3);
      (*walls)[0].triangles = box_triangles(lo - Vec3{1, 1, 1}, hi + Vec3{1, 1, 1});
      (*walls)[0].faces = WallFaces::back;
      const Vec3 c = (lo + hi) * 0.5f;
      (*walls)[1].triangles =
          cylinder_triangles(c, {0, 0, 1}, 0.3f * (hi.x - lo.x), hi.z - lo.z, 40);
      for (int k = 0; k < 40; ++k) {
        const Vec3 a{uniform(rng, lo.x, hi.x), uniform(rng, lo.y, hi.y), uniform(rng, lo.z, hi.z)};
        (*walls)[2].triangles.push_back({a,
                                         a + Vec3{uniform(rng, -2, 2), uniform(rng, -2, 2), 0.0f},
                                         a + Vec3{0.0f, uniform(rng, -2, 2), uniform(rng, -2, 2)}});
      }
      (*walls)[2].color = {0.9f, 0.3f, 0.2f};
      // See-through (contract 2d) or not: the container and the soup, each at random.
      for (const int k : {0, 2}) {
        if (rng() % 2 == 0) (*walls)[k].opacity = uniform(rng, 0.1f, 0.9f);
      }
      s.walls = walls;
      s.clip = {{c, normalize({uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)})}};
      random_inside_shading(rng, s.shading);  // the cue's box holds the walls
      if (lit) {
        s.shading.shadows = true;
        s.shading.ao_samples = static_cast<int>(rng() % 16);
        s.shading.samples = rng() % 2 == 0 ? 1 : 4;
      }
      expect_same_as_one_rank(spheres, speed, s, split, rng);
      if (lit) {
        mpi::Compositor passes;
        passes.gather_lit_frames_up_to(0);
        expect_same_as_one_rank(spheres, speed, s, split, rng, &passes);
      }
    }
  }
}

TEST(MpiRender, LiggghtsPackingMatchesOneRank) {
  const std::string path = shared_data(kLiggghtsPacking);
  if (path.empty()) GTEST_SKIP() << "../shared/data not present";
  Rng rng(shared_seed());
  const auto frame = io::read_particle_file(path, io::ParticleFormat::automatic, {"speed"});
  RenderSettings s;
  s.width = 480;
  s.height = 270;
  s.color = ColorMapping{0, true, 0.0f, 1.0f};
  for (const Split split : {Split::random, Split::slabs}) {
    expect_same_as_one_rank(frame[0].xyzr, frame[0].scalar, s, split, rng);
  }
  // Lit: shadows, occlusion and four samples, at a smaller size.
  s.width = 160;
  s.height = 90;
  s.shading.shadows = true;
  s.shading.ao_samples = 8;
  s.shading.samples = 4;
  expect_same_as_one_rank(frame[0].xyzr, frame[0].scalar, s, Split::slabs, rng);
  mpi::Compositor passes;
  passes.gather_lit_frames_up_to(0);
  expect_same_as_one_rank(frame[0].xyzr, frame[0].scalar, s, Split::random, rng, &passes);
}

// The halo: a grain of another rank within the occlusion distance of a grain's visible surface
// darkens it, so the ranks must send it over; one just beyond that distance leaves it as it is.
TEST(MpiRender, AGrainOfAnotherRankWithinTheOcclusionDistanceDarkensASurface) {
  Rng rng(shared_seed());
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  const float d = uniform(rng, 0.2f, 0.5f);
  for (const float gap : {uniform(rng, 0.1f, 0.5f) * d, uniform(rng, 1.05f, 1.5f) * d}) {
    const std::vector<Vec4> grains = {{0.0f, 0.0f, 0.0f, 1.0f}, {2.0f + gap, 0.0f, 0.0f, 1.0f}};
    const std::vector<std::uint64_t> ids = {0, 1};
    RenderSettings s;
    s.width = 96;
    s.height = 72;
    s.shading.ao_samples = 16;
    s.shading.ao_distance = d;
    s.camera.position =
        Vec3{1.0f + 0.5f * gap, uniform(rng, -9.0f, -7.0f), uniform(rng, 1.0f, 4.0f)};
    s.camera.target = Vec3{1.0f + 0.5f * gap, 0.0f, 0.0f};
    // The first grain on rank 0, the second on the last rank.
    ParticleView mine;
    if (rank == 0) {
      mine.xyzr = grains.data();
      mine.ids = ids.data();
      mine.count = size == 1 ? 2 : 1;
    } else if (rank == size - 1) {
      mine.xyzr = grains.data() + 1;
      mine.ids = ids.data() + 1;
      mine.count = 1;
    }
    Renderer renderer(mpi_test_backend());
    mpi::Compositor across;
    across.gather_lit_frames_up_to(0);
    Image composited;
    const FrameStats stats =
        mpi::render_distributed(renderer, MPI_COMM_WORLD, mine, s, composited, &across);
    if (rank != 0) continue;
    // Rank 0's grain is the other's halo when within reach; beyond it nothing travels (no
    // shadow rays here), but the composite.
    if (size > 1 && gap < d) EXPECT_GT(stats.exchange_bytes, 0u);
    if (size > 1 && gap > d) EXPECT_EQ(stats.exchange_bytes, 0u);
    ParticleView both{grains.data(), 2};
    both.ids = ids.data();
    ParticleView alone{grains.data(), 1};
    Image with_neighbour, without;
    renderer.render(both, s, with_neighbour, {RenderMethod::grid, true});
    renderer.render(alone, s, without, {RenderMethod::grid, true});
    EXPECT_EQ(composited.rgb, with_neighbour.rgb) << "gap " << gap << ", distance " << d;
    std::size_t shown = 0, darker = 0;
    for (std::size_t p = 0; p < without.hit_id.size(); ++p) {
      if (with_neighbour.hit_id[p] != 0 || without.hit_id[p] != 0) continue;
      ++shown;
      darker += with_neighbour.rgb[3 * p] + with_neighbour.rgb[3 * p + 1] +
                    with_neighbour.rgb[3 * p + 2] <
                without.rgb[3 * p] + without.rgb[3 * p + 1] + without.rgb[3 * p + 2];
    }
    ASSERT_GT(shown, 100u);
    if (gap < d) {
      EXPECT_GT(darker, 0u) << "the neighbour within reach darkens nothing";
    } else {
      EXPECT_EQ(darker, 0u) << "a neighbour beyond the occlusion distance darkened the grain";
    }
  }
}

// Lit frames by halo whose images meet in GPU memory take their halos from the other ranks'
// mailboxes there (CUDA ranks of one host): frames of growing size through one renderer make the
// mailboxes larger, every frame equals one rank's image, and so do the halos in messages
// (GRANRAY_HALO=host), which leave the mailboxes unmade.
TEST(MpiRender, LitFramesWithHalosInGpuMemoryMatchOneRank) {
  if (mpi_test_backend() != BackendKind::cuda) GTEST_SKIP() << "CUDA renderers only";
  Rng rng(shared_seed());
  const int size = size_of(MPI_COMM_WORLD);
  for (const bool host : {false, true}) {
    if (host) setenv("GRANRAY_HALO", "host", 1);
    Renderer renderer(mpi_test_backend());
    mpi::Compositor compositor;
    compositor.gather_lit_frames_up_to(0);
    std::uint64_t first_capacity = 0, largest = 0;
    for (const int grains : {400, 1500, 4000}) {
      for (const Split split :
           {Split::slabs, Split::round_robin, Split::octants, Split::all_on_last}) {
        auto spheres = dense_bed(rng, grains, 0.3f, 0.5f);
        std::vector<float> speed(spheres.size());
        for (auto& v : speed) v = uniform(rng, 0.0f, 5.0f);
        RenderSettings s = small_lit_settings(rng);
        s.shading.ao_samples = 1 + static_cast<int>(rng() % 16);
        s.shading.ao_distance = uniform(rng, 0.2f, 1.5f);  // grains of radius 0.3 to 0.5
        s.shading.samples = 1;
        if (rng() % 2 == 0) {
          s.select = SelectRange{uniform(rng, 0.0f, 2.0f), uniform(rng, 2.5f, 5.0f)};
        }
        expect_same_as_one_rank(spheres, speed, s, split, rng, &compositor, &renderer);
        // The largest mailbox over the ranks (each is made for its own halos).
        std::uint64_t capacity = rank_stages(renderer).halo_mailbox_capacity();
        MPI_Allreduce(MPI_IN_PLACE, &capacity, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (size == 1 || host) {
          EXPECT_EQ(capacity, 0u) << "no mailbox without other ranks or with GRANRAY_HALO=host";
          continue;
        }
        EXPECT_TRUE(compositor.in_gpu_memory());
        EXPECT_GT(rank_stages(renderer).halo_mailbox_capacity(), 0u)
            << "every rank's mailbox is mapped";
        EXPECT_GE(capacity, largest) << "a mailbox never shrinks";
        if (first_capacity == 0) first_capacity = capacity;
        largest = capacity;
      }
    }
    // The round-robin splits' halos are the whole bed within reach of every box: ten times the
    // first frame's grains outgrow the first mailboxes.
    if (size > 1 && !host) EXPECT_GT(largest, first_capacity);
    if (host) unsetenv("GRANRAY_HALO");
  }
}

// The per-frame choice between gathering a lit frame onto rank 0 and lighting it by halo: GPUs
// gather small frames, a composite in GPU memory moves the switch down (0.44 M grains at one
// sample of 1080p instead of 1.1 M), more samples per pixel move it up, CPUs gather small frames
// too (to render them in bands) but never more than 16 MB of grains, and nothing beyond
// kLitGatherParticles is gathered.
TEST(MpiRender, LitFramesAreGatheredByTheirSizes) {
  Rng rng(shared_seed());
  const std::uint64_t pixels = 1920 * 1080;
  for (int trial = 0; trial < 20; ++trial) {
    const std::uint64_t between = 450'000 + rng() % 650'000;  // 0.45 M .. 1.1 M grains
    EXPECT_TRUE(mpi::gathered_lit_frame(between, pixels, 1, BackendKind::cuda, false)) << between;
    EXPECT_FALSE(mpi::gathered_lit_frame(between, pixels, 1, BackendKind::cuda, true)) << between;
    EXPECT_TRUE(mpi::gathered_lit_frame(between, pixels, 4, BackendKind::cuda, true)) << between;
    const std::uint64_t few = 1 + rng() % 400'000;
    EXPECT_TRUE(mpi::gathered_lit_frame(few, pixels, 1, BackendKind::cuda, true)) << few;
    EXPECT_TRUE(mpi::gathered_lit_frame(few, pixels, 1, BackendKind::cpu, false)) << few;
    EXPECT_FALSE(
        mpi::gathered_lit_frame(1'200'000 + rng() % 800'000, pixels, 1, BackendKind::cpu, false));
    // Every CPU rank gets every grain: no more than 16 MB of them, whatever the samples.
    const std::uint64_t beyond = 600'000 + rng() % 500'000;
    EXPECT_TRUE(mpi::gathered_lit_frame(beyond, pixels, 4, BackendKind::cuda, false)) << beyond;
    EXPECT_FALSE(mpi::gathered_lit_frame(beyond, pixels, 4, BackendKind::cpu, false)) << beyond;
  }
  EXPECT_FALSE(mpi::gathered_lit_frame(mpi::kLitGatherParticles + 1, pixels * 64, 16,
                                       BackendKind::cuda, false));
}

}  // namespace
}  // namespace granray::test
