#include "sample_composite.h"

#include <cmath>
#include <cstring>
#include <numeric>

#include "granray/errors.h"
#include "mpi_exchange.h"

namespace granray::mpi::detail {

namespace {

// A drawn sample on its way to the rank that keeps its row.
struct DrawnSample {
  std::uint32_t sample;  // in the window, pixel by pixel
  std::uint32_t unused = 0;
  ShownSample shown;
};
static_assert(sizeof(DrawnSample) == 32, "samples travel as raw bytes");

bool nearer(const ShownSample& a, const ShownSample& b) {
  return a.t < b.t || (a.t == b.t && a.id < b.id);
}

// The first row of rank r's band.
int band_start(int r, int height, int ranks) {
  return static_cast<int>(static_cast<std::int64_t>(height) * r / ranks);
}

}  // namespace

std::uint64_t composite_samples(HostSamples mine, int width, int height, int samples,
                                bool with_hits, Image& image, MPI_Comm comm) {
  const int rank = rank_of(comm), size = size_of(comm);
  const std::size_t per_row = static_cast<std::size_t>(width) * samples;
  if (mine.count != per_row * static_cast<std::size_t>(height)) {
    throw Error("granray: the shown samples do not cover the window");
  }
  std::uint64_t sent = 0;
  // The drawn samples of the other ranks' bands, band after band, packed as they go (a list per
  // rank and a copy would fault in as many fresh pages again).
  std::vector<std::size_t> drawn(size, 0);
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    const std::size_t first = per_row * band_start(r, height, size),
                      last = per_row * band_start(r + 1, height, size);
    for (std::size_t k = first; k < last; ++k) drawn[r] += mine.data[k].t < INFINITY ? 1 : 0;
  }
  std::vector<DrawnSample> packed;
  packed.reserve(std::accumulate(drawn.begin(), drawn.end(), std::size_t{0}));
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    const std::size_t first = per_row * band_start(r, height, size),
                      last = per_row * band_start(r + 1, height, size);
    for (std::size_t k = first; k < last; ++k) {
      if (mine.data[k].t < INFINITY) {
        packed.push_back({static_cast<std::uint32_t>(k), 0u, mine.data[k]});
      }
    }
  }
  std::vector<int> counts;
  const std::vector<DrawnSample> theirs = exchange_packed(packed, drawn, comm, counts, sent);
  const int y0 = band_start(rank, height, size), y1 = band_start(rank + 1, height, size);
  const std::size_t first = per_row * y0;
  ShownSample* band = mine.data + first;  // this rank's rows, composited where they lie
  for (const DrawnSample& d : theirs) {
    ShownSample& kept = band[d.sample - first];
    if (nearer(d.shown, kept)) kept = d.shown;
  }
  // The band's pixels, as one rank's pass 3 takes them (lit_passes.h, ShadeSurfaces).
  const std::size_t pixels = static_cast<std::size_t>(width) * (y1 - y0);
  std::vector<std::uint8_t> rgb(3 * pixels);
  std::vector<float> depth(with_hits ? pixels : 0);
  std::vector<std::uint64_t> ids(with_hits ? pixels : 0);
  for (std::size_t p = 0; p < pixels; ++p) {
    Vec3 sum = {0.0f, 0.0f, 0.0f};
    for (int s = 0; s < samples; ++s) sum = sum + band[p * samples + s].color;
    const Rgb8 c = mean_color(sum, samples);
    rgb[3 * p] = c.r;
    rgb[3 * p + 1] = c.g;
    rgb[3 * p + 2] = c.b;
    if (with_hits) {
      depth[p] = band[p * samples].t;
      ids[p] = band[p * samples].id;
    }
  }
  // Rank 0 gathers the bands.
  std::vector<int> sizes(size), offsets(size);
  for (int r = 0; r < size; ++r) {
    offsets[r] = width * band_start(r, height, size);
    sizes[r] = width * band_start(r + 1, height, size) - offsets[r];
  }
  const std::size_t all = static_cast<std::size_t>(width) * height;
  if (rank == 0) {
    image.width = width;
    image.height = height;
    image.rgb.resize(3 * all);
    image.depth.resize(with_hits ? all : 0);
    image.hit_id.resize(with_hits ? all : 0);
  }
  std::vector<int> rgb_sizes(size), rgb_offsets(size);
  for (int r = 0; r < size; ++r) {
    rgb_sizes[r] = 3 * sizes[r];
    rgb_offsets[r] = 3 * offsets[r];
  }
  GRANRAY_MPI_CHECK(MPI_Gatherv(rgb.data(), static_cast<int>(rgb.size()), MPI_UINT8_T,
                                image.rgb.data(), rgb_sizes.data(), rgb_offsets.data(), MPI_UINT8_T,
                                0, comm));
  if (with_hits) {
    GRANRAY_MPI_CHECK(MPI_Gatherv(depth.data(), static_cast<int>(depth.size()), MPI_FLOAT,
                                  image.depth.data(), sizes.data(), offsets.data(), MPI_FLOAT, 0,
                                  comm));
    GRANRAY_MPI_CHECK(MPI_Gatherv(ids.data(), static_cast<int>(ids.size()), MPI_UINT64_T,
                                  image.hit_id.data(), sizes.data(), offsets.data(), MPI_UINT64_T,
                                  0, comm));
  }
  if (rank != 0) sent += rgb.size() + depth.size() * 4 + ids.size() * 8;
  return sent;
}

}  // namespace granray::mpi::detail
