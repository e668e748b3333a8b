// Compositor: which way a frame's images meet on rank 0 (shared memory within a node, binary swap
// among nodes or everywhere), set up once per communicator and image size.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "band_stack.h"
#include "binary_swap.h"
#include "gpu_plane_compositor.h"
#include "granray/errors.h"
#include "granray/insitu/mpi_frame.h"
#include "granray/kernels/shading.h"
#include "image_rect.h"
#include "mpi_agree.h"
#include "shared_memory_compositor.h"

namespace granray::mpi {

using detail::composite_by_messages;
using detail::drawn_rect;
using detail::MessageBuffers;
using detail::Sample;

namespace {

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

}  // namespace

struct Compositor::Buffers : MessageBuffers {
  NodeSplit nodes;
  int width = 0, height = 0;  // the image size the segments were made for
  std::unique_ptr<detail::SharedMemoryCompositor> shared;  // null on a node of one rank
  detail::GpuPlaneCompositor gpu;
  std::unique_ptr<detail::BandStack> bands;
  bool bands_failed = false;
  std::optional<int> render_threads;  // for the communicator `nodes` was made for
};

Compositor::Compositor(CompositeMethod method)
    : buffers_(std::make_unique<Buffers>()), requested_(method), method_(method) {}
Compositor::~Compositor() = default;

void composite(Image& image, Vec3 background, MPI_Comm comm, CompositeMethod method,
               Composited result) {
  Compositor(method).composite(image, background, comm, result);
}

int Compositor::gathered_frame_threads(MPI_Comm comm) {
  Buffers& b = *buffers_;
  if (gathered_in_bands_ == true) return 0;
  if (!b.nodes.made_for(comm)) {
    b.nodes.make(comm, pretend_node_size_);
    b.render_threads.reset();
  }
  if (!b.render_threads) {
    // Ranks on several nodes render bands: each node's cores are its own ranks' (the answer is
    // the same everywhere, since no node then holds every rank).
    b.render_threads = size_of(b.nodes.node()) == size_of(comm) ? node_render_threads(comm) : 0;
  }
  if (gathered_in_bands_ == false && *b.render_threads == 0) {
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
  }
  return *b.render_threads;
}

detail::BandStack* Compositor::band_stack(MPI_Comm comm, int width, int rows, bool with_hits) {
  Buffers& b = *buffers_;
  if (requested_ != CompositeMethod::automatic && requested_ != CompositeMethod::shared_memory) {
    return nullptr;
  }
  if (b.bands_failed) return nullptr;
  if (!b.nodes.made_for(comm)) b.nodes.make(comm, pretend_node_size_);
  if (size_of(b.nodes.node()) != size_of(comm)) return nullptr;  // the same on every rank
  if (b.bands && b.bands->fits(width, rows, with_hits)) return b.bands.get();
  b.bands.reset();
  try {
    b.bands = std::make_unique<detail::BandStack>(comm, width, rows, with_hits);
  } catch (const Error& e) {  // thrown on every rank alike
    b.bands_failed = true;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
      std::fprintf(stderr, "granray: bands of gathered frames go in messages: %s\n", e.what());
    }
    return nullptr;
  }
  return b.bands.get();
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

bool Compositor::composites_in_gpu_memory(Renderer& renderer, MPI_Comm comm, int width,
                                          int height) {
  Buffers& b = *buffers_;
  in_gpu_memory_ = false;
  // Alike on every rank: the method asked for and the pretended nodes are.
  if (requested_ != CompositeMethod::automatic || pretend_node_size_ > 0 || b.gpu.refused()) {
    return false;
  }
  if (!b.nodes.made_for(comm)) b.nodes.make(comm, 0);
  in_gpu_memory_ =
      b.gpu.ready(renderer, comm, width, height, size_of(b.nodes.node()) == size_of(comm));
  return in_gpu_memory_;
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

}  // namespace granray::mpi
