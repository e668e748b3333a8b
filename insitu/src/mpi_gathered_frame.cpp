// SPEC 2a frames across ranks while the particles fit on one rank: gathered onto rank 0, or onto
// every rank to render bands of the picture's rows (mpi_gathered_frame.h).
#include "mpi_gathered_frame.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "granray/errors.h"
#include "granray/tiled_render.h"
#include "mpi_agree.h"
#include "mpi_exchange.h"

namespace granray::mpi::detail {

namespace {

// Gathers one kind of per-particle value, rank after rank, onto rank 0 or onto every rank
// (`counts`: every rank's particles, known where they are gathered).
template <class T>
void gather_values(const std::vector<T>& mine, std::vector<T>& all, int components,
                   MPI_Datatype type, const std::vector<int>& counts, bool onto_every_rank,
                   int rank, MPI_Comm comm) {
  std::vector<int> sizes, offsets;
  if (onto_every_rank || rank == 0) {
    std::size_t total = 0;
    for (const int c : counts) {
      offsets.push_back(static_cast<int>(total * components));
      sizes.push_back(c * components);
      total += static_cast<std::size_t>(c);
    }
    all.resize(total);
  }
  const int count = static_cast<int>(mine.size()) * components;
  if (onto_every_rank) {  // the ranks come from the frame before at their own pace
    MPI_Request request = MPI_REQUEST_NULL;
    GRANRAY_MPI_CHECK(MPI_Iallgatherv(mine.data(), count, type, all.data(), sizes.data(),
                                      offsets.data(), type, comm, &request));
    wait_all(1, &request);
  } else {
    GRANRAY_MPI_CHECK(MPI_Gatherv(mine.data(), count, type, all.data(), sizes.data(),
                                  offsets.data(), type, 0, comm));
  }
}

// Every rank's particles, with their global ids, and their scalars and selection values where
// every rank that has particles offers them, onto rank 0 or onto every rank. `sent`: the bytes
// this rank's particles travelled.
HostParticles gathered_particles(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                                 bool onto_every_rank, std::uint64_t& sent) {
  const int rank = rank_of(comm), size = size_of(comm);
  HostParticles mine;
  agreed_step("copying the particles to the host", comm,
              [&] { renderer.copy_to_host(view, mine); });
  // A scalar only when every rank that has particles offers one.
  int scalar = mine.xyzr.empty() || !mine.scalar.empty() ? 1 : 0;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &scalar, 1, MPI_INT, MPI_MIN, comm));
  if (scalar == 1) mine.scalar.resize(mine.xyzr.size());           // a rank without particles
  int select = mine.xyzr.empty() || !mine.select.empty() ? 1 : 0;  // SPEC 2d values, likewise
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &select, 1, MPI_INT, MPI_MIN, comm));
  if (select == 1) mine.select.resize(mine.xyzr.size());
  const int count = static_cast<int>(mine.xyzr.size());
  std::vector<int> counts(onto_every_rank || rank == 0 ? size : 0);
  if (onto_every_rank) {
    GRANRAY_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
  } else {
    GRANRAY_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  }
  HostParticles all;
  gather_values(mine.xyzr, all.xyzr, 4, MPI_FLOAT, counts, onto_every_rank, rank, comm);
  gather_values(mine.ids, all.ids, 1, MPI_UINT64_T, counts, onto_every_rank, rank, comm);
  if (scalar == 1) {
    gather_values(mine.scalar, all.scalar, 1, MPI_FLOAT, counts, onto_every_rank, rank, comm);
  }
  if (select == 1) {
    gather_values(mine.select, all.select, 1, MPI_FLOAT, counts, onto_every_rank, rank, comm);
  }
  const std::uint64_t bytes = mine.xyzr.size() * sizeof(Vec4) + mine.ids.size() * 8 +
                              (scalar == 1 ? mine.scalar.size() * 4 : 0) +
                              (select == 1 ? mine.select.size() * 4 : 0);
  if (onto_every_rank) {
    sent += bytes * static_cast<std::uint64_t>(size - 1);
  } else if (rank != 0) {
    sent += bytes;
  }
  return all;
}

// The view of gathered particles (their scalars and selection values where they have them).
ParticleView view_of(const HostParticles& all) {
  ParticleView everything;
  everything.xyzr = all.xyzr.data();
  everything.count = all.xyzr.size();
  everything.ids = all.ids.data();
  everything.scalar = all.scalar.empty() ? nullptr : all.scalar.data();
  everything.select_scalar = all.select.empty() ? nullptr : all.select.data();
  return everything;
}

// Gathered frames in bands of rows on CPU ranks: up to four rounds, none thinner than 32 rows a
// rank, since each band pays its own set-up (screen tiles, the light's columns); each round's
// rows cut among the ranks in order, so that a part of the picture where the rays do more work
// (a bed's face against the sky) is shared.
int band_rounds(int rows, int size) { return std::max(1, std::min(4, rows / (32 * size))); }

// The first row of every band and the end of the last (band b = round * size + rank): each round's
// rows cut in proportion to `weights` (one per rank, > 0). Rank r's part ends at the ceiling of
// its share's end, so that with rows to spare every rank, rank 0 first, gets one.
std::vector<int> band_edges(int rows, int size, const std::vector<double>& weights) {
  const int rounds = band_rounds(rows, size);
  double total = 0.0;
  for (const double w : weights) total += w;
  std::vector<int> edges;
  for (int j = 0; j < rounds; ++j) {
    const int first = static_cast<int>(std::int64_t{rows} * j / rounds);
    const int end = static_cast<int>(std::int64_t{rows} * (j + 1) / rounds);
    double before = 0.0;
    for (int r = 0; r < size; ++r) {
      const int cut =
          r == 0 ? first
                 : std::min(end,
                            first + static_cast<int>(std::ceil((end - first) * (before / total))));
      edges.push_back(std::max(cut, edges.empty() ? 0 : edges.back()));
      before += weights[static_cast<std::size_t>(r)];
    }
  }
  edges.push_back(rows);
  return edges;
}

// The weights of the next frame's bands: the ranks' rows per millisecond in the last one, each
// kept within a quarter and four times their mean (a rank that drew sky alone would take
// every row next time); equal before the first frame or when a rank measured none.
std::vector<double> band_weights(const std::vector<double>* speeds, int size) {
  std::vector<double> w(static_cast<std::size_t>(size), 1.0);
  if (speeds == nullptr || speeds->size() != w.size()) return w;
  double mean = 0.0;
  for (const double s : *speeds) {
    if (!(s > 0.0) || !std::isfinite(s)) return w;
    mean += s / size;
  }
  for (int r = 0; r < size; ++r) {
    w[static_cast<std::size_t>(r)] =
        std::clamp((*speeds)[static_cast<std::size_t>(r)], 0.25 * mean, 4.0 * mean);
  }
  return w;
}

// One plane of a band as MPI sees it: `rows` rows of `width` pixels of `per_pixel` values.
class RowType {
 public:
  RowType(int width, int per_pixel, MPI_Datatype type) {
    GRANRAY_MPI_CHECK(MPI_Type_contiguous(width * per_pixel, type, &row_));
    GRANRAY_MPI_CHECK(MPI_Type_commit(&row_));
  }
  ~RowType() { MPI_Type_free(&row_); }
  RowType(const RowType&) = delete;
  RowType& operator=(const RowType&) = delete;
  MPI_Datatype get() const { return row_; }

 private:
  MPI_Datatype row_ = MPI_DATATYPE_NULL;
};

// Rank 0 takes every rank's bands (`mine`: this rank's, their images in `band_images`) straight
// into the rows of `image` (rgb, and depth and ids `with_hits`); returns what this rank sent. One
// tag per plane: MPI delivers a rank's messages of one tag in the order it sends them, and each
// rank sends its bands, and rank 0 posts their receives, in band order.
std::uint64_t stack_bands(const std::vector<Image>& band_images, const std::vector<int>& mine,
                          const std::vector<int>& edges, int width, int rows, bool with_hits,
                          Image& image, MPI_Comm comm) {
  const int rank = rank_of(comm), size = size_of(comm);
  const int bands = static_cast<int>(edges.size()) - 1;
  const RowType rgb_row(width, 3, MPI_UINT8_T), depth_row(width, 1, MPI_FLOAT),
      id_row(width, 1, MPI_UINT64_T);
  constexpr int kRgbTag = 0, kDepthTag = 1, kIdTag = 2;
  std::uint64_t sent = 0;
  std::vector<MPI_Request> requests;
  if (rank != 0) {  // sent at once, then waited for while rank 0 may still render its own bands
    requests.resize(mine.size() * (with_hits ? 3 : 1));
    MPI_Request* r = requests.data();
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const Image& own = band_images[k];
      GRANRAY_MPI_CHECK(
          MPI_Isend(own.rgb.data(), own.height, rgb_row.get(), 0, kRgbTag, comm, r++));
      sent += std::uint64_t(own.rgb.size());
      if (with_hits) {
        GRANRAY_MPI_CHECK(
            MPI_Isend(own.depth.data(), own.height, depth_row.get(), 0, kDepthTag, comm, r++));
        GRANRAY_MPI_CHECK(
            MPI_Isend(own.hit_id.data(), own.height, id_row.get(), 0, kIdTag, comm, r++));
        sent += std::uint64_t(own.depth.size()) * 4 + std::uint64_t(own.hit_id.size()) * 8;
      }
    }
    wait_all(static_cast<int>(requests.size()), requests.data());
    return sent;
  }
  const std::size_t pixels = std::size_t(width) * std::size_t(rows);
  image.pending.reset();
  image.width = width;
  image.height = rows;
  image.rgb.resize(pixels * 3);
  if (with_hits) {
    image.depth.resize(pixels);
    image.hit_id.resize(pixels);
  }
  for (int b = 0; b < bands; ++b) {
    const int y0 = edges[b], n = edges[b + 1] - y0, from = b % size;
    if (n == 0 || from == 0) continue;
    const std::size_t at = std::size_t(y0) * std::size_t(width);
    const std::size_t planes = with_hits ? 3 : 1;
    requests.resize(requests.size() + planes);
    MPI_Request* r = &requests[requests.size() - planes];
    GRANRAY_MPI_CHECK(MPI_Irecv(&image.rgb[at * 3], n, rgb_row.get(), from, kRgbTag, comm, r));
    if (with_hits) {
      GRANRAY_MPI_CHECK(
          MPI_Irecv(&image.depth[at], n, depth_row.get(), from, kDepthTag, comm, r + 1));
      GRANRAY_MPI_CHECK(MPI_Irecv(&image.hit_id[at], n, id_row.get(), from, kIdTag, comm, r + 2));
    }
  }
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const Image& own = band_images[k];
    const std::size_t at = std::size_t(edges[mine[k]]) * std::size_t(width);
    std::copy(own.rgb.begin(), own.rgb.end(), image.rgb.begin() + std::ptrdiff_t(at * 3));
    if (with_hits) {
      std::copy(own.depth.begin(), own.depth.end(), image.depth.begin() + std::ptrdiff_t(at));
      std::copy(own.hit_id.begin(), own.hit_id.end(), image.hit_id.begin() + std::ptrdiff_t(at));
    }
  }
  wait_all(static_cast<int>(requests.size()), requests.data());
  return sent;
}

}  // namespace

// SPEC 2a over ranks while the particles fit on one (mpi_gathered_frame.h): every rank's particles,
// with their global ids and scalars, gathered onto rank 0, which renders the frame alone, or
// onto every rank, each rendering its band of the picture's rows for rank 0 to stack.
FrameStats render_lit_gathered(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, RenderOptions options, Image& image,
                               Composited result, bool in_bands, std::vector<double>* speeds) {
  options.same_particles = false;   // a gathered copy, made again for each band of a poster
  options.particle_bounds.reset();  // this rank's own no longer
  options.with_hits = result == Composited::rgb_depth_ids;
  options.copy_drawn_only = false;
  const int rank = rank_of(comm), size = size_of(comm);
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t sent = 0;
  const HostParticles all = gathered_particles(renderer, comm, view, in_bands, sent);
  const double gather_ms = ms_since(start);
  FrameStats stats;
  if (!in_bands) {
    agreed_step("rendering the gathered frame", comm, [&] {
      if (rank == 0) stats = renderer.render(view_of(all), settings, image, options);
    });
    stats.composite_ms = gather_ms;
    stats.exchange_bytes = sent;
    return stats;
  }
  const PixelRect window = render_window(settings);
  const int rows = window.y1 - window.y0, width = window.x1 - window.x0;
  const std::vector<int> edges = band_edges(rows, size, band_weights(speeds, size));
  const int bands = static_cast<int>(edges.size()) - 1;
  std::vector<int> mine;  // this rank's bands, in order
  std::vector<Image> band_images;
  const auto bands_start = std::chrono::steady_clock::now();
  double bands_ms = 0.0;
  agreed_step("rendering this rank's bands of the gathered frame", comm, [&] {
    RenderSettings band = settings;
    for (int b = rank; b < bands; b += size) {
      const int y0 = window.y0 + edges[b], y1 = window.y0 + edges[b + 1];
      if (y1 == y0) continue;  // more bands than rows (an empty region would be the whole)
      band.region = {window.x0, y0, window.x1, y1};
      band_images.emplace_back();
      FrameStats one = renderer.render(view_of(all), band, band_images.back(), options);
      settle(band_images.back());
      options.same_particles = true;  // the next band's grid is this one's
      if (mine.empty()) {
        stats = one;
      } else {
        add_band_stats(stats, one);
      }
      mine.push_back(b);
    }
    bands_ms = ms_since(bands_start);  // before the agreement, which waits for the slowest rank
  });
  if (speeds != nullptr) {  // every rank's rows per millisecond, for the next frame's bands
    int drawn_rows = 0;
    for (const Image& own : band_images) drawn_rows += own.height;
    const double speed = drawn_rows > 0 ? drawn_rows / std::max(bands_ms, 1e-3) : 0.0;
    speeds->resize(static_cast<std::size_t>(size));
    GRANRAY_MPI_CHECK(MPI_Allgather(&speed, 1, MPI_DOUBLE, speeds->data(), 1, MPI_DOUBLE, comm));
  }
  // Each rank counted every grain it hid, as one rank does: the frame's count is rank 0's.
  if (rank != 0) stats.hidden = 0;
  const auto stack_start = std::chrono::steady_clock::now();
  sent += stack_bands(band_images, mine, edges, width, rows, options.with_hits, image, comm);
  stats.composite_ms = gather_ms + ms_since(stack_start);
  stats.exchange_bytes = sent;
  return stats;
}

}  // namespace granray::mpi::detail
