#include "mpi_lit_frame.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "granray/errors.h"
#include "granray/kernels/lighting.h"
#include "granray/rank_stages.h"
#include "mpi_agree.h"
#include "mpi_exchange.h"
#include "sample_composite.h"
#include "stage_laps.h"

namespace granray::mpi::detail {

namespace {
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

// GRANRAY_HALO=host sends the halos in messages even where the images meet in GPU memory
// (benchmarks compare the two ways).
bool halo_on_host_asked() {
  const char* way = std::getenv("GRANRAY_HALO");
  return way != nullptr && std::string(way) == "host";
}

// The halos in messages through host memory: each rank's grains near every other rank's box,
// then one exchange per kind of value.
HostParticles halo_in_messages(RankStages& stages, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, const RenderOptions& options,
                               const std::vector<RankBox>& boxes, std::uint64_t& sent) {
  const int rank = rank_of(comm), size = size_of(comm);
  std::vector<HostParticles> halos;
  agreed_step("picking the halos", comm,
              [&] { halos = stages.halo_for(view, settings, options, boxes, rank); });
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
MailboxHalo halo_through_mailboxes(RankStages& stages, MPI_Comm comm, const ParticleView& view,
                                   const RenderSettings& settings, const RenderOptions& options,
                                   const std::vector<RankBox>& boxes, std::uint64_t& sent) {
  const int rank = rank_of(comm), size = size_of(comm);
  std::vector<std::uint64_t> counts;
  agreed_step("picking the halos", comm,
              [&] { counts = stages.pick_halo(view, settings, options, boxes, rank); });
  std::uint64_t total = 0;
  for (const std::uint64_t c : counts) total += c;
  const std::size_t capacity = stages.halo_mailbox_capacity();
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
          stages.share_halo_mailbox(std::max<std::uint64_t>(capacity, total + total / 2 + 1024));
    });
    const std::vector<std::vector<unsigned char>> handles = every_rank_handle(handle, comm);
    agreed_step(
        "mapping the other ranks' halo mailboxes (GRANRAY_HALO=host sends the halos in "
        "messages instead)",
        comm, [&] { stages.open_halo_mailboxes(handles, rank); });
  }
  agreed_step("posting the halos", comm, [&] { stages.post_halo(view.cuda_stream); });
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
  RankStages& stages = rank_stages(renderer);
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
    mailbox_halo = halo_through_mailboxes(stages, comm, view, settings, options, boxes, sent);
  } else {
    halo = halo_in_messages(stages, comm, view, settings, options, boxes, sent);
  }
  const double halo_ms = ms_since(start);
  laps.lap("halo");

  FrameStats stats;
  std::vector<SecondaryQuery> queries;
  std::vector<std::uint64_t> targets;
  agreed_step("casting this rank's samples", comm, [&] {
    stats = halo_in_gpu_memory ? stages.cast_with_halo(view, settings, options, mailbox_halo, boxes,
                                                       rank, rank == 0, queries, targets)
                               : stages.cast_with_halo(view, settings, options, halo, boxes, rank,
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
              [&] { answer_ms = stages.answer_queries(theirs, words); });
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
                [&] { shown = stages.shade_samples_with_answers(samples, merged); });
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
              [&] { stages.shade_with_answers(settings, samples, merged, image, stats); });
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

}  // namespace granray::mpi::detail
