#include "granray/insitu/mpi_frame.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "granray/errors.h"

namespace granray::mpi {
namespace {

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(std::string("granray: ") + call + " failed: " + std::string(text, length));
}
#define GRANRAY_MPI_CHECK(call) check((call), #call)

// One pixel as compositing sees it; 16 bytes, sent as MPI_BYTE.
struct Sample {
  float depth;
  std::uint8_t rgb[3];
  std::uint8_t unused;
  std::uint64_t id;
};
static_assert(sizeof(Sample) == 16, "samples travel as raw bytes");

bool nearer(const Sample& a, const Sample& b) {
  return a.depth < b.depth || (a.depth == b.depth && a.id < b.id);
}

void merge(Sample* into, const Sample* from, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) {
    if (nearer(from[k], into[k])) into[k] = from[k];
  }
}

int byte_count(std::size_t samples) {
  const std::size_t bytes = samples * sizeof(Sample);
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error("granray: an image piece of " + std::to_string(bytes) +
                " bytes is too large for one MPI message");
  }
  return static_cast<int>(bytes);
}

}  // namespace

void composite(Image& image, MPI_Comm comm) {
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const std::size_t pixels = static_cast<std::size_t>(image.width) * image.height;
  if (image.depth.size() != pixels || image.hit_id.size() != pixels) {
    throw Error("granray: compositing needs depth and hit ids (RenderOptions::with_hits)");
  }
  if (size == 1) return;

  std::vector<Sample> mine(pixels);
  for (std::size_t p = 0; p < pixels; ++p) {
    mine[p] = {image.depth[p],
               {image.rgb[3 * p], image.rgb[3 * p + 1], image.rgb[3 * p + 2]},
               0,
               image.hit_id[p]};
  }
  int swap_ranks = 1;
  while (swap_ranks * 2 <= size) swap_ranks *= 2;
  constexpr int kTag = 7401;
  std::size_t lo = 0, hi = pixels;
  if (rank >= swap_ranks) {
    // Fold: hand the whole image to a rank of the power-of-two group and sit out the swap.
    GRANRAY_MPI_CHECK(
        MPI_Send(mine.data(), byte_count(pixels), MPI_BYTE, rank - swap_ranks, kTag, comm));
    lo = hi = 0;
  } else {
    std::vector<Sample> incoming(pixels);
    if (rank + swap_ranks < size) {
      GRANRAY_MPI_CHECK(MPI_Recv(incoming.data(), byte_count(pixels), MPI_BYTE, rank + swap_ranks,
                                 kTag, comm, MPI_STATUS_IGNORE));
      merge(mine.data(), incoming.data(), pixels);
    }
    // Binary swap: each round halves the range a rank owns and merges its partner's half.
    for (int bit = swap_ranks / 2; bit >= 1; bit /= 2) {
      const int partner = rank ^ bit;
      const std::size_t mid = lo + (hi - lo) / 2;
      const bool keep_low = (rank & bit) == 0;
      const std::size_t keep_lo = keep_low ? lo : mid, keep_hi = keep_low ? mid : hi;
      const std::size_t send_lo = keep_low ? mid : lo, send_hi = keep_low ? hi : mid;
      GRANRAY_MPI_CHECK(MPI_Sendrecv(mine.data() + send_lo, byte_count(send_hi - send_lo), MPI_BYTE,
                                     partner, kTag, incoming.data(), byte_count(keep_hi - keep_lo),
                                     MPI_BYTE, partner, kTag, comm, MPI_STATUS_IGNORE));
      merge(mine.data() + keep_lo, incoming.data(), keep_hi - keep_lo);
      lo = keep_lo;
      hi = keep_hi;
    }
  }

  // Rank 0 gathers the composited pieces.
  const int piece[2] = {byte_count(lo), byte_count(hi - lo)};
  std::vector<int> pieces(rank == 0 ? 2 * size : 0);
  GRANRAY_MPI_CHECK(MPI_Gather(piece, 2, MPI_INT, pieces.data(), 2, MPI_INT, 0, comm));
  std::vector<int> displacements, counts;
  std::vector<Sample> final_image(rank == 0 ? pixels : 0);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      displacements.push_back(pieces[2 * r]);
      counts.push_back(pieces[2 * r + 1]);
    }
  }
  GRANRAY_MPI_CHECK(MPI_Gatherv(mine.data() + lo, piece[1], MPI_BYTE, final_image.data(),
                                counts.data(), displacements.data(), MPI_BYTE, 0, comm));
  if (rank != 0) return;
  for (std::size_t p = 0; p < pixels; ++p) {
    const Sample& s = final_image[p];
    image.depth[p] = s.depth;
    image.hit_id[p] = s.id;
    std::memcpy(&image.rgb[3 * p], s.rgb, 3);
  }
}

FrameStats render_distributed(Renderer& renderer, MPI_Comm comm, ParticleView view,
                              const RenderSettings& settings, Image& image) {
  const FrameExtent local = renderer.measure(view);
  float lo[4] = {local.bounds.lo.x, local.bounds.lo.y, local.bounds.lo.z, local.scalar_lo};
  float hi[4] = {local.bounds.hi.x, local.bounds.hi.y, local.bounds.hi.z, local.scalar_hi};
  std::uint64_t counts[3] = {local.bounds.renderable, local.bounds.skipped, view.count};
  double diameters = local.bounds.diameter_sum;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, lo, 4, MPI_FLOAT, MPI_MIN, comm));
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, hi, 4, MPI_FLOAT, MPI_MAX, comm));
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_UINT64_T, MPI_SUM, comm));
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &diameters, 1, MPI_DOUBLE, MPI_SUM, comm));
  // Every rank takes part in the scan: whether a rank passes ids is its own business (a rank
  // with no particles may well pass none).
  std::uint64_t before = 0;
  const std::uint64_t mine = view.count;
  GRANRAY_MPI_CHECK(MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, comm));
  int rank = 0;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  if (view.ids == nullptr && rank > 0) view.id_offset += before;  // rank 0's result is undefined
  RenderOptions options;
  options.with_hits = true;
  options.camera_bounds =
      SceneBounds{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, counts[0], counts[1], diameters};
  if (lo[3] <= hi[3])
    options.color_range = std::make_pair(lo[3], hi[3]);
  else
    options.color_range = std::make_pair(0.0f, 0.0f);
  FrameStats stats = renderer.render(view, settings, image, options);
  composite(image, comm);
  stats.particles = counts[2];
  stats.skipped = counts[1];
  return stats;
}

}  // namespace granray::mpi
