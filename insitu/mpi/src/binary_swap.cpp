#include "binary_swap.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "granray/errors.h"
#include "granray/kernels/shading.h"
#include "image_rect.h"
#include "mpi_agree.h"

namespace granray::mpi::detail {

namespace {

bool nearer(const Sample& a, const Sample& b) {
  return detail::nearer(a.depth, a.id, b.depth, b.id);
}

static_assert(sizeof(Rect) == sizeof(Sample), "a message's first sample holds its rectangle");

int byte_count(std::size_t samples) {
  const std::size_t bytes = samples * sizeof(Sample);
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error("granray: an image piece of " + std::to_string(bytes) +
                " bytes is too large for one MPI message");
  }
  return static_cast<int>(bytes);
}

// One rank's working image during compositing: samples valid inside `drawn`, background
// elsewhere.
class Canvas {
 public:
  // Reads `image` inside `drawn` alone; the rest of its bounding rectangle starts as background.
  Canvas(const Image& image, const DrawnRegion& drawn, const Sample& background, Samples& storage)
      : width_(image.width), background_(background), samples_(storage), drawn_(drawn.bounds) {
    samples_.resize(image.rgb.size() / 3);
#pragma omp parallel for schedule(static)
    for (int y = drawn_.y0; y < drawn_.y1; ++y) {
      const Rect span = drawn.row(y);
      for (int x = drawn_.x0; x < drawn_.x1; ++x) {
        const std::size_t p = std::size_t(y) * width_ + x;
        samples_[p] = span.contains(x, y)
                          ? Sample{image.depth[p],
                                   {image.rgb[3 * p], image.rgb[3 * p + 1], image.rgb[3 * p + 2]},
                                   0,
                                   image.hit_id[p]}
                          : background_;
      }
    }
  }

  // Rows [lo, hi) as a message: the rectangle drawn there, then its samples row by row.
  void pack(int lo, int hi, Samples& message) const {
    const Rect r = drawn_.rows(lo, hi);
    message.resize(1 + r.area());
    std::memcpy(&message[0], &r, sizeof(Rect));
    Sample* out = message.data() + 1;
    const int row_length = r.x1 - r.x0;
#pragma omp parallel for schedule(static)
    for (int y = r.y0; y < r.y1; ++y) {
      std::copy_n(samples_.data() + std::size_t(y) * width_ + r.x0, row_length,
                  out + std::size_t(y - r.y0) * row_length);
    }
  }

  // Keeps rows [lo, hi) and merges a message from another rank into them.
  void merge(int lo, int hi, const Sample* message) {
    Rect theirs;
    std::memcpy(static_cast<void*>(&theirs), message, sizeof(Rect));
    const Rect mine = drawn_.rows(lo, hi);
    const Rect both = mine.join(theirs);
#pragma omp parallel for schedule(static)
    for (int y = both.y0; y < both.y1; ++y) {  // newly covered pixels start as background
      for (int x = both.x0; x < both.x1; ++x) {
        if (!mine.contains(x, y)) samples_[std::size_t(y) * width_ + x] = background_;
      }
    }
    const int row_length = theirs.x1 - theirs.x0;
#pragma omp parallel for schedule(static)
    for (int y = theirs.y0; y < theirs.y1; ++y) {
      Sample* row = samples_.data() + std::size_t(y) * width_;
      const Sample* in = message + 1 + std::size_t(y - theirs.y0) * row_length;
      for (int x = theirs.x0; x < theirs.x1; ++x, ++in) {
        if (nearer(*in, row[x])) row[x] = *in;
      }
    }
    drawn_ = both;
  }

 private:
  int width_;
  Sample background_;
  Samples& samples_;
  Rect drawn_;
};

// Sends rows [send_lo, send_hi) to `partner` and merges what it sends for [keep_lo, keep_hi).
void swap_rows(Canvas& canvas, int partner, int send_lo, int send_hi, int keep_lo, int keep_hi,
               int width, MPI_Comm comm, Samples& out, Samples& in) {
  constexpr int kTag = 7401;
  in.resize(1 + std::size_t(keep_hi - keep_lo) * width);
  canvas.pack(send_lo, send_hi, out);
  GRANRAY_MPI_CHECK(MPI_Sendrecv(out.data(), byte_count(out.size()), MPI_BYTE, partner, kTag,
                                 in.data(), byte_count(in.size()), MPI_BYTE, partner, kTag, comm,
                                 MPI_STATUS_IGNORE));
  canvas.merge(keep_lo, keep_hi, in.data());
}

}  // namespace

// Binary swap in messages, then rank 0 gathers the rows (see CompositeMethod::binary_swap).
void composite_by_messages(Image& image, const DrawnRegion& drawn, const Sample& background_sample,
                           MPI_Comm comm, MessageBuffers& b) {
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const std::size_t pixels = static_cast<std::size_t>(image.width) * image.height;
  Canvas canvas(image, drawn, background_sample, b.canvas);
  const int width = image.width, height = image.height;
  int swap_ranks = 1;
  while (swap_ranks * 2 <= size) swap_ranks *= 2;
  int lo = 0, hi = height;  // the rows this rank composites
  if (rank >= swap_ranks) {
    // Fold: hand what this rank drew to a rank of the power-of-two group and sit out the swap.
    canvas.pack(0, height, b.out);
    GRANRAY_MPI_CHECK(
        MPI_Send(b.out.data(), byte_count(b.out.size()), MPI_BYTE, rank - swap_ranks, 7400, comm));
    lo = hi = 0;
  } else {
    if (rank + swap_ranks < size) {
      b.in.resize(1 + pixels);
      GRANRAY_MPI_CHECK(MPI_Recv(b.in.data(), byte_count(b.in.size()), MPI_BYTE, rank + swap_ranks,
                                 7400, comm, MPI_STATUS_IGNORE));
      canvas.merge(0, height, b.in.data());
    }
    // Binary swap: each round halves the rows a rank owns and merges its partner's half.
    for (int bit = swap_ranks / 2; bit >= 1; bit /= 2) {
      const int mid = lo + (hi - lo) / 2;
      const bool keep_low = (rank & bit) == 0;
      if (keep_low) {
        swap_rows(canvas, rank ^ bit, mid, hi, lo, mid, width, comm, b.out, b.in);
        hi = mid;
      } else {
        swap_rows(canvas, rank ^ bit, lo, mid, mid, hi, width, comm, b.out, b.in);
        lo = mid;
      }
    }
  }

  // Rank 0 gathers each rank's composited rows (only what was drawn there).
  Samples& piece = b.out;
  canvas.pack(lo, hi, piece);
  const int piece_bytes = byte_count(piece.size());
  std::vector<int> counts(rank == 0 ? size : 0), offsets(rank == 0 ? size : 0);
  GRANRAY_MPI_CHECK(MPI_Gather(&piece_bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  Samples& gathered = b.gathered;
  if (rank == 0) {
    std::size_t total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[r] = static_cast<int>(total);
      total += counts[r];
      if (total > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        throw Error("granray: the composited image is too large for one MPI gather");
      }
    }
    gathered.resize(total / sizeof(Sample));
  }
  GRANRAY_MPI_CHECK(MPI_Gatherv(piece.data(), piece_bytes, MPI_BYTE, gathered.data(), counts.data(),
                                offsets.data(), MPI_BYTE, 0, comm));
  if (rank != 0) return;
  const auto fill = static_cast<std::int64_t>(pixels);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < fill; ++p) {
    image.depth[p] = INFINITY;
    image.hit_id[p] = background_sample.id;
    std::memcpy(&image.rgb[3 * p], background_sample.rgb, 3);
  }
  for (int r = 0; r < size; ++r) {
    const Sample* message = gathered.data() + offsets[r] / sizeof(Sample);
    Rect rect;
    std::memcpy(static_cast<void*>(&rect), message, sizeof(Rect));
    const int row_length = rect.x1 - rect.x0;
#pragma omp parallel for schedule(static)
    for (int y = rect.y0; y < rect.y1; ++y) {
      const Sample* s = message + 1 + std::size_t(y - rect.y0) * row_length;
      for (int x = rect.x0; x < rect.x1; ++x, ++s) {
        const std::size_t p = std::size_t(y) * width + x;
        image.depth[p] = s->depth;
        image.hit_id[p] = s->id;
        std::memcpy(&image.rgb[3 * p], s->rgb, 3);
      }
    }
  }
}

}  // namespace granray::mpi::detail
