// contract 2a frames across ranks while the particles fit on one rank: gathered onto rank 0, or
// onto every rank to render bands of the picture's rows (mpi_gathered_frame.h).
#include "mpi_gathered_frame.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "band_stack.h"
#include "granray/errors.h"
#include "granray/rank_stages.h"
#include "granray/tiled_render.h"
#include "mpi_agree.h"
#include "mpi_exchange.h"
#include "stage_laps.h"

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

// The optional values a grain may carry besides its sphere: the colour, selection and material
// values of each field slot (contract 2a, 2d, 2e).
constexpr int kOptionalValues = 2 + kMaterialFields;
std::vector<float>& optional_values(HostParticles& p, int k) {
  return k == 0 ? p.scalar : k == 1 ? p.select : p.material[k - 2];
}

// Every rank's particles, with their global ids, and each of their optional values where every
// rank that has particles offers it, onto rank 0 or onto every rank. `sent`: the bytes this
// rank's particles travelled.
HostParticles gathered_particles(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                                 bool onto_every_rank, std::uint64_t& sent) {
  const int rank = rank_of(comm), size = size_of(comm);
  HostParticles mine;
  agreed_step("copying the particles to the host", comm,
              [&] { rank_stages(renderer).copy_to_host(view, mine); });
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
  std::uint64_t bytes = mine.xyzr.size() * sizeof(Vec4) + mine.ids.size() * 8;
  // Each value only when every rank that has particles offers it (a rank without particles
  // offers none): one reduction for all of them.
  int offered[kOptionalValues];
  for (int k = 0; k < kOptionalValues; ++k) {
    offered[k] = mine.xyzr.empty() || !optional_values(mine, k).empty() ? 1 : 0;
  }
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, offered, kOptionalValues, MPI_INT, MPI_MIN, comm));
  for (int k = 0; k < kOptionalValues; ++k) {
    if (offered[k] == 0) continue;
    std::vector<float>& values = optional_values(mine, k);
    values.resize(mine.xyzr.size());
    gather_values(values, optional_values(all, k), 1, MPI_FLOAT, counts, onto_every_rank, rank,
                  comm);
    bytes += values.size() * 4;
  }
  if (onto_every_rank) {
    sent += bytes * static_cast<std::uint64_t>(size - 1);
  } else if (rank != 0) {
    sent += bytes;
  }
  return all;
}

// The view of gathered particles (with each optional value where they have it), and the frame's
// contact pairs (gathered whole already: no index into the particles).
ParticleView view_of(const HostParticles& all, const ContactView& contacts) {
  const auto or_null = [](const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); };
  ParticleView everything;
  everything.xyzr = all.xyzr.data();
  everything.count = all.xyzr.size();
  everything.ids = all.ids.data();
  everything.scalar = or_null(all.scalar);
  everything.select_scalar = or_null(all.select);
  for (int k = 0; k < kMaterialFields; ++k) {
    everything.material_values[k] = or_null(all.material[k]);
  }
  everything.contacts = contacts;
  return everything;
}

// Gathered frames in bands of rows on CPU ranks, while no cost is known: up to four rounds, none
// thinner than 32 rows a rank, since each band pays its own set-up (screen tiles, the light's
// columns); band b goes to rank b mod ranks, so that the ranks share each part of the picture.
int band_rounds(int rows, int size) { return std::max(1, std::min(4, rows / (32 * size))); }

// An estimate of every one of `rows` rows, each finite and not below zero, not all zero.
bool usable(const BandCosts* before, int rows) {
  if (before == nullptr || before->rows.size() != static_cast<std::size_t>(rows)) return false;
  double total = 0.0;
  for (const double ms : before->rows) {
    if (!(ms >= 0.0) || !std::isfinite(ms)) return false;
    total += ms;
  }
  return total > 0.0;
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
  if (rank != 0) {  // all posted at once, then waited for together
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
  size_for_bands(image, width, rows, with_hits);
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

// This process's OpenMP threads raised to the node's for one frame (0: left as they are): the
// node's other ranks wait asleep meanwhile.
class NodeThreads {
 public:
  explicit NodeThreads(int threads) {
#if defined(_OPENMP)
    if (threads > 0) omp_set_num_threads(threads);
#else
    (void)threads;
#endif
  }
  ~NodeThreads() {
#if defined(_OPENMP)
    omp_set_num_threads(own_);
#endif
  }
  NodeThreads(const NodeThreads&) = delete;
  NodeThreads& operator=(const NodeThreads&) = delete;

 private:
#if defined(_OPENMP)
  int own_ = omp_get_max_threads();
#endif
};

}  // namespace

std::vector<int> band_edges(int rows, int bands, const BandCosts* before) {
  std::vector<int> edges(static_cast<std::size_t>(bands) + 1, rows);
  edges[0] = 0;
  if (!usable(before, rows)) {
    // Rounded up: with fewer rows than bands the first bands (rank 0's first) get them.
    for (int b = 1; b < bands; ++b) {
      edges[static_cast<std::size_t>(b)] =
          static_cast<int>((std::int64_t{rows} * b + bands - 1) / bands);
    }
    return edges;
  }
  // The running estimated cost before each row, every row with a floor of a fiftieth of the mean
  // so that rows of sky, which cost next to nothing, are still shared out.
  double estimate = 0.0;
  for (const double c : before->rows) estimate += c;
  const double floor = estimate / rows / 50.0;
  std::vector<double> before_row(static_cast<std::size_t>(rows) + 1, 0.0);
  for (int y = 0; y < rows; ++y) {
    before_row[y + 1] = before_row[y] + before->rows[static_cast<std::size_t>(y)] + floor;
  }
  // Band b starts at the last row whose running cost is within b / bands of the total, leaving
  // at least a row to each band before it and after it.
  for (int b = 1; b < bands; ++b) {
    const double target = before_row.back() * b / bands;
    const int y = static_cast<int>(std::upper_bound(before_row.begin(), before_row.end(), target) -
                                   before_row.begin() - 1);
    const int least = std::min(rows, edges[static_cast<std::size_t>(b) - 1] + 1);
    edges[static_cast<std::size_t>(b)] =
        std::min(std::max(y, least), std::max(least, rows - (bands - b)));
  }
  return edges;
}

void learn_band_costs(BandCosts& costs, const std::vector<int>& edges,
                      const std::vector<double>& ms) {
  const int rows = edges.back();
  if (costs.rows.size() != static_cast<std::size_t>(rows)) costs.rows.assign(rows, 1.0);
  for (std::size_t b = 0; b + 1 < edges.size(); ++b) {
    const int y0 = edges[b], y1 = edges[b + 1];
    if (y1 == y0 || !(ms[b] >= 0.0) || !std::isfinite(ms[b])) continue;
    double shape = 0.0;
    for (int y = y0; y < y1; ++y) shape += costs.rows[static_cast<std::size_t>(y)];
    // A tenth spread evenly, so that rows once cheap (sky) can be found costly when the scene
    // moves into them.
    const double even = ms[b] / (y1 - y0);
    for (int y = y0; y < y1; ++y) {
      double& row = costs.rows[static_cast<std::size_t>(y)];
      row = shape > 0.0 && std::isfinite(shape) ? 0.9 * ms[b] * (row / shape) + 0.1 * even : even;
    }
  }
}

// contract 2a over ranks while the particles fit on one (mpi_gathered_frame.h): every rank's
// particles, with their global ids and scalars, gathered onto rank 0, which renders the frame
// alone, or onto every rank, each rendering its band of the picture's rows for rank 0 to stack.
FrameStats render_lit_gathered(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, RenderOptions options, Image& image,
                               Composited result, bool in_bands, Compositor* kept, int threads) {
  options.same_particles = false;   // a gathered copy, made again for each band of a poster
  options.particle_bounds.reset();  // this rank's own no longer
  options.with_hits = result == Composited::rgb_depth_ids;
  options.copy_drawn_only = false;
  const int rank = rank_of(comm), size = size_of(comm);
  const auto start = std::chrono::steady_clock::now();
  StageLaps laps;
  std::uint64_t sent = 0;
  const HostParticles all = gathered_particles(renderer, comm, view, in_bands, sent);
  const double gather_ms = ms_since(start);
  laps.lap("gather");
  FrameStats stats;
  if (!in_bands) {
    agreed_step("rendering the gathered frame", comm, [&] {
      if (rank == 0) {
        const NodeThreads node(threads);
        stats = renderer.render(view_of(all, view.contacts), settings, image, options);
      }
    });
    stats.composite_ms = gather_ms;
    stats.exchange_bytes = sent;
    return stats;
  }
  BandCosts* costs = kept != nullptr ? &kept->band_costs() : nullptr;
  const PixelRect window = render_window(settings);
  const int rows = window.y1 - window.y0, width = window.x1 - window.x0;
  // Rounds share the picture's parts while nothing is known of their costs; once the rows' costs
  // are, one band a rank, cut by them, saves each later band's set-up (the screen tiles).
  const int bands = (usable(costs, rows) ? 1 : band_rounds(rows, size)) * size;
  const std::vector<int> edges = band_edges(rows, bands, costs);
  std::vector<double> band_ms(static_cast<std::size_t>(bands), 0.0);
  std::vector<int> mine;  // this rank's bands, in order
  std::vector<Image> band_images;
  agreed_step("rendering this rank's bands of the gathered frame", comm, [&] {
    RenderSettings band = settings;
    for (int b = rank; b < bands; b += size) {
      const int y0 = window.y0 + edges[b], y1 = window.y0 + edges[b + 1];
      if (y1 == y0) continue;  // more bands than rows (an empty region would be the whole)
      band.region = {window.x0, y0, window.x1, y1};
      band_images.emplace_back();
      const auto band_start = std::chrono::steady_clock::now();
      FrameStats one =
          renderer.render(view_of(all, view.contacts), band, band_images.back(), options);
      settle(band_images.back());
      band_ms[static_cast<std::size_t>(b)] = ms_since(band_start);
      laps.lap("band");
      laps.part("grid", one.grid_ms);
      laps.part("render", one.render_ms);
      options.same_particles = true;  // the next band's grid is this one's
      if (mine.empty()) {
        stats = one;
      } else {
        add_band_stats(stats, one);
      }
      mine.push_back(b);
    }
  });
  laps.lap("agreement");
  if (costs != nullptr) {  // every band's time (each rank gives its own), for the next frame's
    GRANRAY_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, band_ms.data(), bands, MPI_DOUBLE, MPI_SUM, comm));
    learn_band_costs(*costs, edges, band_ms);
  }
  // Each rank counted every grain it hid, as one rank does: the frame's count is rank 0's.
  if (rank != 0) stats.hidden = 0;
  const auto stack_start = std::chrono::steady_clock::now();
  BandStack* shared =
      kept != nullptr ? kept->band_stack(comm, width, rows, options.with_hits) : nullptr;
  if (shared != nullptr) {
    for (std::size_t k = 0; k < mine.size(); ++k) {
      shared->put(band_images[k], edges[mine[k]]);
      const Image& own = band_images[k];
      if (rank != 0) {  // what crossed to rank 0's picture, as in messages
        sent +=
            own.rgb.size() + (options.with_hits ? own.depth.size() * 4 + own.hit_id.size() * 8 : 0);
      }
    }
    shared->take(image, comm);
  } else {
    sent += stack_bands(band_images, mine, edges, width, rows, options.with_hits, image, comm);
  }
  stats.composite_ms = gather_ms + ms_since(stack_start);
  stats.exchange_bytes = sent;
  laps.lap("stack");
  laps.print(rank);
  return stats;
}

}  // namespace granray::mpi::detail
