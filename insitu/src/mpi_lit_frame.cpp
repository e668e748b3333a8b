#include "mpi_lit_frame.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "granray/errors.h"
#include "granray/kernels/lighting.h"
#include "granray/tiled_render.h"
#include "mpi_agree.h"
#include "mpi_exchange.h"
#include "sample_composite.h"

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
  if (onto_every_rank) {
    GRANRAY_MPI_CHECK(MPI_Allgatherv(mine.data(), count, type, all.data(), sizes.data(),
                                     offsets.data(), type, comm));
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
  if (rank != 0) {
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const Image& own = band_images[k];
      GRANRAY_MPI_CHECK(MPI_Send(own.rgb.data(), own.height, rgb_row.get(), 0, kRgbTag, comm));
      sent += std::uint64_t(own.rgb.size());
      if (with_hits) {
        GRANRAY_MPI_CHECK(
            MPI_Send(own.depth.data(), own.height, depth_row.get(), 0, kDepthTag, comm));
        GRANRAY_MPI_CHECK(MPI_Send(own.hit_id.data(), own.height, id_row.get(), 0, kIdTag, comm));
        sent += std::uint64_t(own.depth.size()) * 4 + std::uint64_t(own.hit_id.size()) * 8;
      }
    }
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
  std::vector<MPI_Request> requests;
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
  GRANRAY_MPI_CHECK(
      MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  return sent;
}

// Every rank's box, grown by a margin for rounding; an empty one where a rank draws nothing.
std::vector<RankBox> rank_boxes(const SceneBounds& own, const SceneBounds& all, MPI_Comm comm) {
  float mine[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
  if (own.renderable > 0) {
    const Vec3 size = all.hi - all.lo;
    const float margin = 1e-5f * std::max({size.x, size.y, size.z}) + 1e-3f * all.max_radius;
    mine[0] = own.lo.x - margin;
    mine[1] = own.lo.y - margin;
    mine[2] = own.lo.z - margin;
    mine[3] = own.hi.x + margin;
    mine[4] = own.hi.y + margin;
    mine[5] = own.hi.z + margin;
  }
  std::vector<float> every(6 * static_cast<std::size_t>(size_of(comm)));
  GRANRAY_MPI_CHECK(MPI_Allgather(mine, 6, MPI_FLOAT, every.data(), 6, MPI_FLOAT, comm));
  std::vector<RankBox> boxes;
  for (std::size_t r = 0; r < every.size(); r += 6) {
    boxes.push_back(
        {{every[r], every[r + 1], every[r + 2]}, {every[r + 3], every[r + 4], every[r + 5]}});
  }
  return boxes;
}

// With GRANRAY_STAGE_TIMES set, each rank prints how long each stage of its lit frame took
// (host time from the end of the stage before, waits on the GPU and the other ranks included):
// the breakdown behind docs/benchmarks.md's lit frames across ranks.
class StageLaps {
 public:
  StageLaps() : on_(std::getenv("GRANRAY_STAGE_TIMES") != nullptr) {}
  void lap(const char* stage) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    line_ += std::string(line_.empty() ? "" : ", ") + stage + " " +
             std::to_string(std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }
  // A part of the last stage the renderer timed itself.
  void part(const char* name, double ms) {
    if (on_) line_ += std::string(" [") + name + " " + std::to_string(ms) + "]";
  }
  void print(int rank) const {
    if (on_) std::fprintf(stderr, "granray: lit stages, rank %d (ms): %s\n", rank, line_.c_str());
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::string line_;
};

// GRANRAY_HALO=host sends the halos in messages even where the images meet in GPU memory
// (benchmarks compare the two ways).
bool halo_on_host_asked() {
  const char* way = std::getenv("GRANRAY_HALO");
  return way != nullptr && std::string(way) == "host";
}

// The halos in messages through host memory: each rank's grains near every other rank's box,
// then one exchange per kind of value.
HostParticles halo_in_messages(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, const RenderOptions& options,
                               const std::vector<RankBox>& boxes, std::uint64_t& sent) {
  const int rank = rank_of(comm), size = size_of(comm);
  std::vector<HostParticles> halos;
  agreed_step("picking the halos", comm,
              [&] { halos = renderer.halo_for(view, settings, options, boxes, rank); });
  std::vector<std::vector<Vec4>> xyzr(size);
  std::vector<std::vector<std::uint64_t>> ids(size);
  std::vector<std::vector<float>> select(size);
  for (int r = 0; r < size; ++r) {
    xyzr[r] = std::move(halos[r].xyzr);
    ids[r] = std::move(halos[r].ids);
    select[r] = std::move(halos[r].select);
  }
  HostParticles halo;
  std::vector<int> counts;
  halo.xyzr = exchange(xyzr, comm, counts, sent);
  halo.ids = exchange(ids, comm, counts, sent);
  if (settings.select) halo.select = exchange(select, comm, counts, sent);
  return halo;
}

// The halos through the ranks' mailboxes in GPU memory (frames whose images meet there): each
// rank picks its grains for the others, one MPI_Allgather tells every rank every count (and
// whether some rank's mailbox is too small or not mapped: then every rank makes its own again,
// half as large again as it needs and never smaller than before, and maps the others'), each posts
// its grains, and once all have (the agreement) each reads its part straight out of the others'
// mailboxes in its cast. What a rank "sends" is what the others read of its mailbox.
MailboxHalo halo_through_mailboxes(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                                   const RenderSettings& settings, const RenderOptions& options,
                                   const std::vector<RankBox>& boxes, std::uint64_t& sent) {
  const int rank = rank_of(comm), size = size_of(comm);
  std::vector<std::uint64_t> counts;
  agreed_step("picking the halos", comm,
              [&] { counts = renderer.pick_halo(view, settings, options, boxes, rank); });
  std::uint64_t total = 0;
  for (const std::uint64_t c : counts) total += c;
  const std::size_t capacity = renderer.halo_mailbox_capacity();
  std::vector<std::uint64_t> row = counts;
  row.push_back(capacity == 0 || total > capacity ? 1 : 0);
  const int stride = size + 1;
  std::vector<std::uint64_t> every(static_cast<std::size_t>(stride) * size);
  GRANRAY_MPI_CHECK(
      MPI_Allgather(row.data(), stride, MPI_UINT64_T, every.data(), stride, MPI_UINT64_T, comm));
  bool remake = false;
  for (int q = 0; q < size; ++q) remake = remake || every[q * stride + size] != 0;
  if (remake) {
    std::vector<unsigned char> handle;
    agreed_step("making the halo mailboxes", comm, [&] {
      handle =
          renderer.share_halo_mailbox(std::max<std::uint64_t>(capacity, total + total / 2 + 1024));
    });
    const std::vector<std::vector<unsigned char>> handles = every_rank_handle(handle, comm);
    agreed_step(
        "mapping the other ranks' halo mailboxes (GRANRAY_HALO=host sends the halos in "
        "messages instead)",
        comm, [&] { renderer.open_halo_mailboxes(handles, rank); });
  }
  agreed_step("posting the halos", comm, [&] { renderer.post_halo(view.cuda_stream); });
  MailboxHalo halo;
  halo.first.assign(size, 0);
  halo.count.assign(size, 0);
  for (int q = 0; q < size; ++q) {
    const std::uint64_t* theirs = &every[static_cast<std::size_t>(q) * stride];
    for (int d = 0; d < rank; ++d) halo.first[q] += theirs[d];
    halo.count[q] = theirs[rank];
  }
  for (int d = 0; d < size; ++d) {
    if (d != rank) sent += counts[d] * kHaloRecordBytes;
  }
  return halo;
}

}  // namespace

// The halo path (mpi_lit_frame.h): what travels is the halos (grains near each box, once), the
// samples whose open rays cross other boxes (32 bytes each) with their answers (the blocked
// words), and the composite of the finished images.
FrameStats render_lit_by_halo(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                              const RenderSettings& settings, RenderOptions options, Image& image,
                              Compositor* compositor, Composited result, const SceneBounds& own,
                              bool in_gpu_memory) {
  const int rank = rank_of(comm), size = size_of(comm);
  const bool see_through = has_see_through_walls(settings);
  options.with_hits = true;
  options.copy_drawn_only = size > 1 && !see_through;
  options.share_planes = in_gpu_memory;
  const auto start = std::chrono::steady_clock::now();
  StageLaps laps;
  std::uint64_t sent = 0;
  const std::vector<RankBox> boxes = rank_boxes(own, *options.camera_bounds, comm);
  laps.lap("boxes");

  const bool halo_in_gpu_memory = in_gpu_memory && !halo_on_host_asked();
  HostParticles halo;
  MailboxHalo mailbox_halo;
  if (halo_in_gpu_memory) {
    mailbox_halo = halo_through_mailboxes(renderer, comm, view, settings, options, boxes, sent);
  } else {
    halo = halo_in_messages(renderer, comm, view, settings, options, boxes, sent);
  }
  const double halo_ms = ms_since(start);
  laps.lap("halo");

  FrameStats stats;
  std::vector<SecondaryQuery> queries;
  std::vector<std::uint64_t> targets;
  agreed_step("casting this rank's samples", comm, [&] {
    stats = halo_in_gpu_memory ? renderer.cast_with_halo(view, settings, options, mailbox_halo,
                                                         boxes, rank, rank == 0, queries, targets)
                               : renderer.cast_with_halo(view, settings, options, halo, boxes, rank,
                                                         rank == 0, queries, targets);
    laps.lap("cast");
  });
  laps.lap("cast agree");
  std::uint64_t halo_grains = halo.xyzr.size();
  for (const std::uint64_t c : mailbox_halo.count) halo_grains += c;
  laps.part("halo grains", static_cast<double>(halo_grains));
  laps.part("queries", static_cast<double>(queries.size()));
  laps.part("grid", stats.grid_ms);
  laps.part("primary", stats.primary_ms);
  laps.part("secondary", stats.secondary_ms);

  // Each query to every rank its bit names; the answers come back in the same order.
  auto asked_start = std::chrono::steady_clock::now();
  std::vector<std::vector<SecondaryQuery>> to(size);
  std::vector<std::vector<std::uint32_t>> asked(size);  // the query's index here, per rank
  const int groups = target_words(size);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (int r = 0; r < size; ++r) {
      if ((targets[q * groups + r / 64] >> (r % 64)) & 1u) {
        to[r].push_back(queries[q]);
        asked[r].push_back(static_cast<std::uint32_t>(q));
      }
    }
  }
  std::vector<int> from;
  const std::vector<SecondaryQuery> theirs = exchange(to, comm, from, sent);
  double exchange_ms = ms_since(asked_start);
  laps.lap("ask");
  std::vector<std::uint32_t> words;
  double answer_ms = 0.0;
  agreed_step("answering other ranks' rays", comm,
              [&] { answer_ms = renderer.answer_queries(theirs, words); });
  stats.secondary_ms += answer_ms;
  laps.lap("answer");
  laps.part("asked", static_cast<double>(theirs.size()));
  laps.part("answer on the device", answer_ms);
  const int mask_words = blocked_mask_words(settings.shading.ao_samples);
  asked_start = std::chrono::steady_clock::now();
  std::vector<std::vector<std::uint32_t>> replies(size);
  std::size_t at = 0;
  for (int r = 0; r < size; ++r) {
    const std::size_t n = static_cast<std::size_t>(from[r]) * mask_words;
    replies[r].assign(words.begin() + static_cast<std::ptrdiff_t>(at),
                      words.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  std::vector<int> replied;
  const std::vector<std::uint32_t> answers = exchange(replies, comm, replied, sent);
  // One answer per sample: the ranks' answers OR-ed.
  std::vector<std::uint32_t> merged(queries.size() * mask_words, 0u);
  at = 0;
  for (int r = 0; r < size; ++r) {
    for (const std::uint32_t q : asked[r]) {
      for (int w = 0; w < mask_words; ++w) merged[q * mask_words + w] |= answers[at++];
    }
  }
  std::vector<std::uint32_t> samples(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) samples[q] = queries[q].sample;
  exchange_ms += ms_since(asked_start);
  laps.lap("reply");

  if (settings.shading.samples > 1) {  // a pixel's samples may be different ranks'
    HostSamples shown{nullptr, 0};
    agreed_step("shading", comm,
                [&] { shown = renderer.shade_samples_with_answers(samples, merged); });
    const auto composite_start = std::chrono::steady_clock::now();
    const PixelRect window = render_window(settings);
    sent += composite_samples(shown, window.x1 - window.x0, window.y1 - window.y0,
                              settings.shading.samples,
                              result == Composited::rgb_depth_ids || see_through, image, comm);
    stats.composite_ms = halo_ms + exchange_ms + ms_since(composite_start);
    stats.exchange_bytes = sent;
    laps.lap("shade and composite samples");
    laps.print(rank);
    return stats;
  }
  agreed_step("shading", comm,
              [&] { renderer.shade_with_answers(settings, samples, merged, image, stats); });
  laps.lap("shade");
  stats.composite_ms = halo_ms + exchange_ms;
  if (in_gpu_memory) {
    composite_in_gpu_memory(renderer, comm, view.cuda_stream, settings, result, image, stats);
  } else {
    composite_rendered(image, settings, comm, compositor, result, see_through, stats);
  }
  laps.lap("composite");
  laps.print(rank);
  stats.exchange_bytes = sent;
  return stats;
}

// SPEC 2a over ranks while the particles fit on one (mpi_lit_frame.h): every rank's particles,
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
