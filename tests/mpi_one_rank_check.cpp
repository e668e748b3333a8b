#include "mpi_one_rank_check.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>

#include "mpi_support.h"

namespace granray::test {
namespace {

// An image the size of `settings` still holding another frame: near depths everywhere, which
// would win every pixel if compositing read them outside what this frame drew.
Image image_holding_another_frame(const RenderSettings& settings) {
  const std::size_t pixels = std::size_t(settings.width) * settings.height;
  Image image;
  image.width = settings.width;
  image.height = settings.height;
  image.rgb.assign(3 * pixels, 0x5a);
  image.depth.resize(pixels);
  image.hit_id.resize(pixels);
  for (std::size_t p = 0; p < pixels; ++p) {
    image.depth[p] = 1e-3f * float(p % 97);
    image.hit_id[p] = p;
  }
  return image;
}

}  // namespace

void expect_same_as_one_rank(const std::vector<Vec4>& spheres, const std::vector<float>& speed,
                             RenderSettings settings, Split split, Rng& rng, mpi::Compositor* kept,
                             Renderer* used,
                             const std::vector<const std::vector<float>*>& materials) {
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  std::vector<Vec4> mine;
  std::vector<float> my_speed;
  std::vector<std::vector<float>> my_materials(materials.size());
  std::vector<std::uint64_t> ids;
  const std::size_t n = spheres.size();
  float x_lo = INFINITY, x_hi = -INFINITY;
  Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (const Vec4& s : spheres) {
    x_lo = std::min(x_lo, s.x);
    x_hi = std::max(x_hi, s.x);
    lo = {std::min(lo.x, s.x), std::min(lo.y, s.y), std::min(lo.z, s.z)};
    hi = {std::max(hi.x, s.x), std::max(hi.y, s.y), std::max(hi.z, s.z)};
  }
  const Vec3 pivot{uniform(rng, lo.x, hi.x), uniform(rng, lo.y, hi.y), uniform(rng, lo.z, hi.z)};
  for (std::size_t i = 0; i < n; ++i) {
    int owner = 0;
    switch (split) {
      case Split::random:
        owner = static_cast<int>(rng() % size);  // same rng stream on every rank
        break;
      case Split::slabs:
        owner = std::min(size - 1,
                         static_cast<int>((spheres[i].x - x_lo) / (x_hi - x_lo + 1e-6f) * size));
        break;
      case Split::all_on_last:
        owner = size - 1;
        break;
      case Split::contiguous_without_ids:
        owner = static_cast<int>(i * size / n);
        break;
      case Split::round_robin:
        owner = static_cast<int>(i % static_cast<std::size_t>(size));
        break;
      case Split::octants:
        owner = ((spheres[i].x > pivot.x) + 2 * (spheres[i].y > pivot.y) +
                 4 * (spheres[i].z > pivot.z)) %
                size;
        break;
    }
    if (owner != rank) continue;
    mine.push_back(spheres[i]);
    my_speed.push_back(speed[i]);
    for (std::size_t k = 0; k < materials.size(); ++k)
      my_materials[k].push_back((*materials[k])[i]);
    ids.push_back(i);
  }
  ParticleView view;
  view.xyzr = mine.data();
  view.count = mine.size();
  view.scalar = my_speed.data();
  for (std::size_t k = 0; k < materials.size(); ++k)
    view.material_values[k] = my_materials[k].data();
  view.ids = split == Split::contiguous_without_ids ? nullptr : ids.data();
  // Every rank's grains on one, for the one-rank reference.
  ParticleView all;
  all.xyzr = spheres.data();
  all.count = n;
  all.scalar = speed.data();
  for (std::size_t k = 0; k < materials.size(); ++k) all.material_values[k] = materials[k]->data();
  Renderer fresh_renderer(mpi_test_backend());
  Renderer& renderer = used != nullptr ? *used : fresh_renderer;
  // Each method on the same split (one test body per method, as Kokkos runs one per backend).
  // two_level with nodes of two ranks: on 3 ranks one node of one, on 4 two nodes of two.
  std::vector<mpi::CompositeMethod> methods = {mpi::CompositeMethod::shared_memory,
                                               mpi::CompositeMethod::binary_swap,
                                               mpi::CompositeMethod::two_level};
  if (kept != nullptr) methods = {kept->method()};
  for (const mpi::CompositeMethod method : methods) {
    mpi::Compositor fresh(method);
    if (method == mpi::CompositeMethod::two_level) fresh.pretend_nodes_of(2);
    mpi::Compositor& compositor = kept != nullptr ? *kept : fresh;
    Image composited = image_holding_another_frame(settings);
    const FrameStats stats =
        mpi::render_distributed(renderer, MPI_COMM_WORLD, view, settings, composited, &compositor);
    if (rank != 0) continue;

    Image reference;
    const FrameStats one = renderer.render(all, settings, reference, {RenderMethod::grid, true});
    const std::string what = "split " + std::to_string(int(split)) + " on " + std::to_string(size) +
                             " ranks, method " + std::to_string(int(method));
    EXPECT_EQ(stats.particles, n);
    // Every rank's hidden grains and drawn categories, as one rank counts them.
    if (settings.select || !settings.clip.empty()) EXPECT_EQ(stats.hidden, one.hidden) << what;
    EXPECT_EQ(stats.categories, one.categories) << what;
    EXPECT_EQ(composited.rgb, reference.rgb) << what;
    EXPECT_EQ(composited.depth, reference.depth) << what;
    std::size_t differing = 0, first = 0;
    for (std::size_t p = 0; p < reference.hit_id.size(); ++p) {
      if (composited.hit_id[p] != reference.hit_id[p] && differing++ == 0) first = p;
    }
    EXPECT_EQ(differing, 0u) << what << ": first at pixel " << first << " id "
                             << composited.hit_id[first] << " vs " << reference.hit_id[first];
  }
  // The picture alone (what the plugin asks for): the same rgb.
  for (const mpi::CompositeMethod method : methods) {
    mpi::Compositor fresh(method);
    if (method == mpi::CompositeMethod::two_level) fresh.pretend_nodes_of(2);
    mpi::Compositor& compositor = kept != nullptr ? *kept : fresh;
    Image composited = image_holding_another_frame(settings);
    mpi::render_distributed(renderer, MPI_COMM_WORLD, view, settings, composited, &compositor,
                            mpi::Composited::rgb);
    if (rank != 0) continue;
    Image reference;
    renderer.render(all, settings, reference, {RenderMethod::grid, false});
    EXPECT_EQ(composited.rgb, reference.rgb) << "rgb alone, method " << int(method);
  }
}

// A random small frame with shadows, coloured by the global auto range of the scalar.
RenderSettings small_lit_settings(Rng& rng) {
  RenderSettings s = small_random_settings(rng, rng() % 2 == 0);
  s.color = ColorMapping{static_cast<int>(rng() % 7), true, 0.0f, 1.0f};
  s.shading.shadows = true;
  return s;
}

}  // namespace granray::test
