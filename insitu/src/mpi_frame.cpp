#include "granray/insitu/mpi_frame.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "granray/errors.h"
#include "granray/kernels/shading.h"
#include "image_rect.h"
#include "mpi_agree.h"
#include "shared_memory_compositor.h"

namespace granray::mpi {

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(std::string("granray: ") + call + " failed: " + std::string(text, length));
}

namespace {

#define GRANRAY_MPI_CHECK(call) check((call), #call)

using detail::drawn_rect;
using detail::Rect;

// One pixel as compositing sees it; 16 bytes, sent as MPI_BYTE.
struct Sample {
  float depth;
  std::uint8_t rgb[3];
  std::uint8_t unused;
  std::uint64_t id;
};
static_assert(sizeof(Sample) == 16, "samples travel as raw bytes");

// Leaves new samples uninitialised: every buffer here is written before it is read, and zeroing
// an image's worth of samples per frame would cost as much as merging them.
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() = default;
  template <class U>
  UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using Samples = std::vector<Sample, UninitialisedAllocator<Sample>>;

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

// What binary swap keeps between frames.
struct MessageBuffers {
  Samples canvas, out, in, gathered;
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

}  // namespace

// The ranks of `comm` grouped by node: this rank's node, and on each node's first rank the
// communicator of those first ranks (MPI_COMM_NULL elsewhere). Kept for one communicator handle.
class NodeSplit {
 public:
  NodeSplit() = default;
  NodeSplit(const NodeSplit&) = delete;
  NodeSplit& operator=(const NodeSplit&) = delete;
  ~NodeSplit() { release(); }

  bool made_for(MPI_Comm comm) const { return node_ != MPI_COMM_NULL && comm == for_; }

  // Collective. `pretend` > 0: runs of that many consecutive ranks stand for nodes (tests).
  void make(MPI_Comm comm, int pretend) {
    release();
    int rank = 0;
    GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    if (pretend > 0) {
      GRANRAY_MPI_CHECK(MPI_Comm_split(comm, rank / pretend, rank, &node_));
    } else {
      GRANRAY_MPI_CHECK(
          MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_));
    }
    int node_rank = 0;
    GRANRAY_MPI_CHECK(MPI_Comm_rank(node_, &node_rank));
    GRANRAY_MPI_CHECK(MPI_Comm_split(comm, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, &leaders_));
    for_ = comm;
  }

  MPI_Comm node() const { return node_; }
  MPI_Comm leaders() const { return leaders_; }

 private:
  void release() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
    if (leaders_ != MPI_COMM_NULL) MPI_Comm_free(&leaders_);
    node_ = leaders_ = MPI_COMM_NULL;
  }

  MPI_Comm for_ = MPI_COMM_NULL;
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Comm leaders_ = MPI_COMM_NULL;
};

int size_of(MPI_Comm comm) {
  int size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

struct Compositor::Buffers : MessageBuffers {
  NodeSplit nodes;
  int width = 0, height = 0;  // the image size the segments were made for
  std::unique_ptr<detail::SharedMemoryCompositor> shared;  // null on a node of one rank
};

Compositor::Compositor(CompositeMethod method)
    : buffers_(std::make_unique<Buffers>()), requested_(method), method_(method) {}
Compositor::~Compositor() = default;

void composite(Image& image, Vec3 background, MPI_Comm comm, CompositeMethod method,
               Composited result) {
  Compositor(method).composite(image, background, comm, result);
}

void Compositor::set_up_shared_memory(MPI_Comm comm, int width, int height, int rank, int size) {
  Buffers& b = *buffers_;
  b.shared.reset();
  b.width = width;
  b.height = height;
  if (!b.nodes.made_for(comm)) b.nodes.make(comm, pretend_node_size_);
  const MPI_Comm node = b.nodes.node();
  const bool one_node = size_of(node) == size;
  if (requested_ == CompositeMethod::shared_memory && !one_node) {
    throw Error("granray: shared-memory compositing needs every rank on one node");
  }
  std::string error;
  if (size_of(node) > 1) {
    try {
      b.shared = std::make_unique<detail::SharedMemoryCompositor>(node, width, height);
    } catch (const Error& e) {
      error = e.what();  // every rank of this node has failed alike (the set-up agrees)
    }
  }
  // Every node must have its segments, or no node uses them.
  int ok = error.empty() ? 1 : 0;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
  if (ok == 1) {
    method_ = one_node ? CompositeMethod::shared_memory : CompositeMethod::two_level;
    return;
  }
  b.shared.reset();
  if (requested_ != CompositeMethod::automatic) {
    throw Error(error.empty() ? "granray: another node's shared-memory segments could not be made"
                              : error);
  }
  if (rank == 0) {
    std::fprintf(
        stderr, "granray: compositing by messages: %s\n",
        error.empty() ? "another node's shared memory could not be set up" : error.c_str());
  }
  method_ = CompositeMethod::binary_swap;
}

void Compositor::composite(Image& image, Vec3 background, MPI_Comm comm, Composited result,
                           const DrawnRegion* drawn) {
  Buffers& b = *buffers_;
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const std::size_t pixels = static_cast<std::size_t>(image.width) * image.height;
  if (image.depth.size() != pixels || image.hit_id.size() != pixels) {
    throw Error("granray: compositing needs depth and hit ids (RenderOptions::with_hits)");
  }
  if (size == 1) return;

  const Rgb8 bg = to_rgb8(background);
  const Sample background_sample{INFINITY, {bg.r, bg.g, bg.b}, 0, ~std::uint64_t{0}};
  // (Re)made when the communicator or the image size changes: the same frames on every rank, so
  // every rank takes part in the same collectives.
  if (method_ != CompositeMethod::binary_swap &&
      !(b.nodes.made_for(comm) && b.width == image.width && b.height == image.height)) {
    set_up_shared_memory(comm, image.width, image.height, rank, size);
  }
  DrawnRegion found;
  if (drawn == nullptr) {
    found = DrawnRegion::whole(drawn_rect(image));
    drawn = &found;
  }
  if (method_ == CompositeMethod::binary_swap) {
    // Messages carry depth and ids through to rank 0 whatever `result` asks.
    composite_by_messages(image, *drawn, background_sample, comm, b);
    return;
  }
  // Within each node into its first rank (with depth and ids when nodes are still to be merged),
  // then among those first ranks.
  const bool one_node = method_ == CompositeMethod::shared_memory;
  if (b.shared) {
    b.shared->composite(image, *drawn, {{bg.r, bg.g, bg.b}}, b.nodes.node(),
                        !one_node || result == Composited::rgb_depth_ids);
  }
  if (!one_node && b.nodes.leaders() != MPI_COMM_NULL) {
    // The node's composite fills the leader's whole image (alone on its node: its own drawing).
    if (b.shared) found = DrawnRegion::whole(drawn_rect(image));
    composite_by_messages(image, b.shared ? found : *drawn, background_sample, b.nodes.leaders(),
                          b);
  }
}

namespace detail {

void agree(bool ok, const std::string& error, const char* stage, MPI_Comm comm) {
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  int first_failed = ok ? size : rank;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm));
  if (first_failed == size) return;
  if (!ok) throw Error("rank " + std::to_string(rank) + ": " + error);
  throw Error(std::string(stage) + " failed on rank " + std::to_string(first_failed) +
              " (its log says why)");
}

}  // namespace detail

namespace {

using detail::agree;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Runs one step of a frame on this rank, then agrees: when it threw on any rank, every rank
// throws (the failing one its own error), so none is left waiting in the next collective.
template <class Step>
void agreed_step(const char* stage, MPI_Comm comm, Step&& step) {
  std::string error;
  bool ok = true;
  try {
    step();
  } catch (const std::exception& e) {
    ok = false;
    error = e.what();
  }
  agree(ok, error, stage, comm);
}

// Per-sample surfaces travel as opaque records; the nearest of two is a total order (ties go to
// the smaller id), so the reduction's result does not depend on the order ranks combine in.
void keep_nearest_surface(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* theirs = static_cast<const SurfaceSample*>(in);
  auto* mine = static_cast<SurfaceSample*>(inout);
  for (int k = 0; k < *count; ++k) {
    if (nearer_surface(theirs[k], mine[k])) mine[k] = theirs[k];
  }
}

// An MPI datatype and reduction made for one frame and freed with it.
class SurfaceReduction {
 public:
  SurfaceReduction() {
    GRANRAY_MPI_CHECK(MPI_Type_contiguous(sizeof(SurfaceSample), MPI_BYTE, &type_));
    GRANRAY_MPI_CHECK(MPI_Type_commit(&type_));
    GRANRAY_MPI_CHECK(MPI_Op_create(keep_nearest_surface, 1, &op_));
  }
  SurfaceReduction(const SurfaceReduction&) = delete;
  SurfaceReduction& operator=(const SurfaceReduction&) = delete;
  ~SurfaceReduction() {
    if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  MPI_Datatype type() const { return type_; }
  MPI_Op op() const { return op_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

// Reductions go in pieces: counts are ints, and MPI's own buffers grow with a message.
constexpr std::size_t kReductionPiece = std::size_t{1} << 22;

void keep_nearest_surfaces(std::vector<SurfaceSample>& surfaces, MPI_Comm comm) {
  const SurfaceReduction reduction;
  for (std::size_t first = 0; first < surfaces.size(); first += kReductionPiece) {
    const int count = static_cast<int>(std::min(kReductionPiece, surfaces.size() - first));
    GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, surfaces.data() + first, count, reduction.type(),
                                    reduction.op(), comm));
  }
}

void or_blocked_onto_rank0(std::vector<std::uint32_t>& blocked, int rank, MPI_Comm comm) {
  for (std::size_t first = 0; first < blocked.size(); first += kReductionPiece) {
    const int count = static_cast<int>(std::min(kReductionPiece, blocked.size() - first));
    std::uint32_t* words = blocked.data() + first;
    GRANRAY_MPI_CHECK(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : words, rank == 0 ? words : nullptr,
                                 count, MPI_UINT32_T, MPI_BOR, 0, comm));
  }
}

// SPEC 2a over ranks. A shadow ray crosses the whole domain, so no ghost layer would do: every
// rank finds its own nearest surface per sample and all ranks keep the nearest of all; every
// rank then finds which of those surfaces' secondary rays its own particles block; the blocked
// bits are OR-ed onto rank 0, which shades. Each step agrees first, so a rank that fails leaves
// none waiting in a collective.
FrameStats render_lit_distributed(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                                  const RenderSettings& settings, const RenderOptions& options,
                                  Image& image) {
  int rank = 0;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  std::vector<SurfaceSample> surfaces;
  std::vector<std::uint32_t> blocked;
  FrameStats stats;
  agreed_step("finding the visible surfaces", comm,
              [&] { stats = renderer.find_surfaces(view, settings, options, surfaces); });
  auto exchange_start = std::chrono::steady_clock::now();
  keep_nearest_surfaces(surfaces, comm);
  double exchange_ms = ms_since(exchange_start);
  agreed_step("tracing shadow and occlusion rays", comm, [&] {
    stats.secondary_ms = renderer.find_blockers(view, settings, options, surfaces, blocked);
  });
  exchange_start = std::chrono::steady_clock::now();
  or_blocked_onto_rank0(blocked, rank, comm);
  exchange_ms += ms_since(exchange_start);
  agreed_step("shading", comm, [&] {
    if (rank == 0) renderer.shade_surfaces(settings, options, surfaces, blocked, image);
  });
  stats.render_ms += stats.secondary_ms;
  stats.composite_ms = exchange_ms;
  return stats;
}

// Gathers one kind of per-particle value onto rank 0, rank after rank.
template <class T>
void gather_onto_rank0(const std::vector<T>& mine, std::vector<T>& all, int components,
                       MPI_Datatype type, const std::vector<int>& counts, int rank, MPI_Comm comm) {
  std::vector<int> sizes, offsets;
  if (rank == 0) {
    std::size_t total = 0;
    for (const int c : counts) {
      offsets.push_back(static_cast<int>(total * components));
      sizes.push_back(c * components);
      total += static_cast<std::size_t>(c);
    }
    all.resize(total);
  }
  GRANRAY_MPI_CHECK(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()) * components, type,
                                all.data(), sizes.data(), offsets.data(), type, 0, comm));
}

// SPEC 2a over ranks while the particles fit on one: rank 0 gathers every rank's particles, with
// their global ids and scalars, and renders the frame alone, as one rank would.
FrameStats render_lit_gathered(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, RenderOptions options, Image& image,
                               Composited result) {
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const auto start = std::chrono::steady_clock::now();
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
  std::vector<int> counts(rank == 0 ? size : 0);
  GRANRAY_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  HostParticles all;
  gather_onto_rank0(mine.xyzr, all.xyzr, 4, MPI_FLOAT, counts, rank, comm);
  gather_onto_rank0(mine.ids, all.ids, 1, MPI_UINT64_T, counts, rank, comm);
  if (scalar == 1) gather_onto_rank0(mine.scalar, all.scalar, 1, MPI_FLOAT, counts, rank, comm);
  if (select == 1) gather_onto_rank0(mine.select, all.select, 1, MPI_FLOAT, counts, rank, comm);
  const double gather_ms = ms_since(start);
  FrameStats stats;
  agreed_step("rendering the gathered frame", comm, [&] {
    if (rank != 0) return;
    ParticleView everything;
    everything.xyzr = all.xyzr.data();
    everything.count = all.xyzr.size();
    everything.ids = all.ids.data();
    everything.scalar = scalar == 1 ? all.scalar.data() : nullptr;
    everything.select_scalar = select == 1 ? all.select.data() : nullptr;
    options.particle_bounds.reset();  // this rank's own no longer
    options.with_hits = result == Composited::rgb_depth_ids;
    options.copy_drawn_only = false;
    stats = renderer.render(everything, settings, image, options);
  });
  stats.composite_ms = gather_ms;
  return stats;
}

}  // namespace

FrameStats render_distributed(Renderer& renderer, MPI_Comm comm, ParticleView view,
                              const RenderSettings& settings, Image& image, Compositor* compositor,
                              Composited result) {
  const auto start = std::chrono::steady_clock::now();
  FrameExtent local{};
  agreed_step("measuring the particles", comm, [&] { local = renderer.measure(view); });
  // Lows and negated highs in one MPI_MIN (negation is exact).
  float extremes[9] = {local.bounds.lo.x,  local.bounds.lo.y,  local.bounds.lo.z,
                       local.scalar_lo,    -local.bounds.hi.x, -local.bounds.hi.y,
                       -local.bounds.hi.z, -local.scalar_hi,   -local.bounds.max_radius};
  std::uint64_t counts[3] = {local.bounds.renderable, local.bounds.skipped, view.count};
  double diameters = local.bounds.diameter_sum;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, extremes, 9, MPI_FLOAT, MPI_MIN, comm));
  const float* lo = extremes;
  const float hi[4] = {-extremes[4], -extremes[5], -extremes[6], -extremes[7]};
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_UINT64_T, MPI_SUM, comm));
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &diameters, 1, MPI_DOUBLE, MPI_SUM, comm));
  // Every rank takes part in the scan: whether a rank passes ids is its own business (a rank
  // with no particles may well pass none).
  std::uint64_t before = 0;
  const std::uint64_t mine = view.count;
  GRANRAY_MPI_CHECK(MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, comm));
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  if (view.ids == nullptr && rank > 0) view.id_offset += before;  // rank 0's result is undefined
  RenderOptions options;
  options.with_hits = true;
  options.copy_drawn_only = size > 1;      // on one rank the image is the picture
  options.particle_bounds = local.bounds;  // measured above: not reduced a second time
  options.camera_bounds = SceneBounds{
      {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, counts[0], counts[1], diameters, -extremes[8]};
  if (lo[3] <= hi[3])
    options.color_range = std::make_pair(lo[3], hi[3]);
  else
    options.color_range = std::make_pair(0.0f, 0.0f);
  FrameStats stats;
  if (lighting_on(settings.shading)) {
    const std::uint64_t gather_limit =
        compositor != nullptr ? compositor->lit_gather_limit() : kLitGatherParticles;
    if (counts[2] <= gather_limit) {
      stats = render_lit_gathered(renderer, comm, view, settings, options, image, result);
    } else {
      options.with_hits = result == Composited::rgb_depth_ids;  // rank 0's shading fills them
      options.copy_drawn_only = false;
      stats = render_lit_distributed(renderer, comm, view, settings, options, image);
    }
  } else {
    // SPEC 2d: where no rank shows a surface, a pixel is the see-through walls over the
    // background, which every rank computes alike but the compositors fill with the bare
    // background. Rank 0 renders its whole image and keeps its own colour there.
    const bool see_through =
        settings.walls && std::any_of(settings.walls->begin(), settings.walls->end(),
                                      [](const Wall& w) { return w.opacity < 1.0f; });
    const Composited composited = see_through ? Composited::rgb_depth_ids : result;
    if (see_through) options.copy_drawn_only = false;
    agreed_step("rendering", comm,
                [&] { stats = renderer.render(view, settings, image, options); });
    const auto composite_start = std::chrono::steady_clock::now();
    std::vector<std::uint8_t> own_rgb;
    if (see_through && rank == 0) own_rgb = image.rgb;
    if (compositor != nullptr) {
      compositor->composite(image, settings.shading.background, comm, composited, &stats.drawn);
    } else {
      Compositor(CompositeMethod::automatic)
          .composite(image, settings.shading.background, comm, composited, &stats.drawn);
    }
    if (see_through && rank == 0) {
      for (std::size_t p = 0; p < image.hit_id.size(); ++p) {
        if (image.hit_id[p] == ~std::uint64_t{0})
          std::memcpy(&image.rgb[3 * p], &own_rgb[3 * p], 3);
      }
    }
    stats.composite_ms = ms_since(composite_start);
  }

  if (settings.select || !settings.clip.empty()) {  // each rank counted the grains it hid
    GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &stats.hidden, 1, MPI_UINT64_T, MPI_SUM, comm));
  }
  if (settings.category_census) {  // each rank listed the categories it drew
    GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, stats.categories.data(), kCategoryWords,
                                    MPI_UINT64_T, MPI_BOR, comm));
  }
  const RankStats share{view.count, stats.grid_ms, stats.render_ms, stats.composite_ms};
  static_assert(sizeof(RankStats) == 4 * sizeof(double), "shares travel as raw bytes");
  if (rank == 0) stats.ranks.resize(size);
  GRANRAY_MPI_CHECK(MPI_Gather(&share, sizeof(RankStats), MPI_BYTE, stats.ranks.data(),
                               sizeof(RankStats), MPI_BYTE, 0, comm));
  stats.particles = counts[2];
  stats.skipped = counts[1];
  stats.total_ms = ms_since(start);
  return stats;
}

namespace {

class MpiRankGroup final : public RankGroup {
 public:
  explicit MpiRankGroup(MPI_Comm comm) : comm_(comm) {
    GRANRAY_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    GRANRAY_MPI_CHECK(MPI_Comm_size(comm_, &size_));
  }
  int rank() const override { return rank_; }
  int ranks() const override { return size_; }
  FrameStats render(Renderer& renderer, const ParticleView& view, const RenderSettings& settings,
                    Image& image) override {
    return render_distributed(renderer, comm_, view, settings, image, &compositor_,
                              Composited::rgb);
  }
  bool all(bool ok) override {
    int value = ok ? 1 : 0;
    GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, comm_));
    return value == 1;
  }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  Compositor compositor_;
};

}  // namespace

std::shared_ptr<RankGroup> rank_group(MPI_Comm comm) {
  return std::make_shared<MpiRankGroup>(comm);
}

int use_node_local_gpu(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  GRANRAY_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local_rank = 0;
  const int status = MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  check(status, "MPI_Comm_rank(node communicator)");
  const int devices = cuda_device_count();
  if (devices == 0) return -1;
  const int device = local_rank % devices;
  use_cuda_device(device);
  return device;
}

bool launched_by_mpi() {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

}  // namespace granray::mpi
