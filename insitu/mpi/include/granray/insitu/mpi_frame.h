// Many ranks, one picture: each rank renders its own particles with the camera and colour range
// of all of them, and sort-last compositing keeps the nearest hit per pixel (equal depth: the
// smaller global id), so the image is the same for any number of ranks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "granray/image.h"
#include "granray/insitu/rank_group.h"
#include "granray/renderer.h"

namespace granray::mpi {

// Throws granray::Error naming `call` and MPI's reason unless `status` is MPI_SUCCESS.
void check(int status, const char* call);

// How the ranks' images come together. All give the same image; they differ in cost.
enum class CompositeMethod {
  // Shared memory when every rank is on one node, two_level when they span several (tried once;
  // binary swap if the shared memory cannot be set up, with the reason on stderr).
  automatic,
  // Every rank's image in a POSIX shared-memory segment that all ranks map; rank r merges band r
  // of the rows from all of them, with no pixel sent in a message. One node only: throws Error
  // otherwise, or when /dev/shm has no room.
  shared_memory,
  // Messages: binary swap over the largest power of two of ranks, the remaining ranks folded in
  // first, then rank 0 gathers the pieces. Each rank sends and receives at most about one image
  // whatever the rank count, and only the pixels inside the bounding rectangle of what it has
  // drawn. Any number of nodes.
  binary_swap,
  // Shared memory among the ranks of each node into the node's first rank, then binary swap among
  // those (one rank per node). Throws Error when a node's segments cannot be made.
  two_level,
};

// Lit frames are gathered onto rank 0 only up to this many particles: 32 M grains take 1.3 GB
// there with their ids and scalars.
constexpr std::uint64_t kLitGatherParticles = std::uint64_t{1} << 25;

// What rank 0's image holds after compositing: rgb, depth and hit ids, or the rgb alone (what
// a picture needs, and shared memory then copies a fifth). With rgb alone, depth and hit_id are
// not composited and hold nothing to rely on: clearing them would cost the next frame a zero
// fill of 12 bytes a pixel when the renderer sizes them again.
enum class Composited { rgb_depth_ids, rgb };

// Composites every rank's image (rgb, depth and hit_id, as rendered with
// RenderOptions::with_hits) into rank 0's `image`: per pixel the nearest hit (equal depth: the
// smaller id), `background` where no rank drew. Collective; other ranks' images are left
// unspecified. Throws granray::Error when an MPI call fails.
void composite(Image& image, Vec3 background, MPI_Comm comm,
               CompositeMethod method = CompositeMethod::automatic,
               Composited result = Composited::rgb_depth_ids);

namespace detail {
class BandStack;
}

// What each row of a gathered lit frame on CPU ranks costs to render (milliseconds, from the
// window's top), estimated from the times of the bands of the frames before.
struct BandCosts {
  std::vector<double> rows;
};

// The same, keeping its buffers or shared-memory segments from frame to frame (made again when
// the image size or the communicator changes): fresh ones would cost a page fault per 4 KiB
// every frame.
class Compositor {
 public:
  explicit Compositor(CompositeMethod method = CompositeMethod::automatic);
  ~Compositor();
  Compositor(const Compositor&) = delete;
  Compositor& operator=(const Compositor&) = delete;
  // `drawn`: where this rank's image shows anything (FrameStats::drawn); its pixels elsewhere
  // are then never read and may hold anything (RenderOptions::copy_drawn_only). Without it,
  // the bounding rectangle of the finite depths is read whole.
  void composite(Image& image, Vec3 background, MPI_Comm comm,
                 Composited result = Composited::rgb_depth_ids, const DrawnRegion* drawn = nullptr);
  // The method frames use now: automatic until the first frame decides; shared_memory,
  // two_level or binary_swap after it.
  CompositeMethod method() const { return method_; }

  // Unlit frames of CUDA renderers whose ranks share one host, with the automatic method: the
  // ranks' frames meet in GPU memory (CUDA IPC) and rank 0 merges them there; no pixel goes
  // through the host but rank 0's picture. Collective; set up on the first frame and again when
  // the size, the renderer or the communicator changes. False for good where any rank cannot
  // (another backend, several nodes, GPUs that cannot map each other's memory, or the
  // environment variable GRANRAY_COMPOSITE=host), with the reason on rank 0's stderr.
  bool composites_in_gpu_memory(Renderer& renderer, MPI_Comm comm, int width, int height);
  // Whether the last frame asked was composited in GPU memory.
  bool in_gpu_memory() const { return in_gpu_memory_; }

  // For tests on one machine: treat each run of `ranks` consecutive ranks as a node (two_level and
  // automatic then see several nodes). Call before the first frame.
  void pretend_nodes_of(int ranks) { pretend_node_size_ = ranks; }

  // Lit frames (contract 2a): by default decided per frame from sizes (gathered_lit_frame); with
  // this, frames of at most `particles` over all ranks are gathered onto rank 0, which renders
  // them alone, and larger ones go across the ranks (by halo). 0: never gathered.
  void gather_lit_frames_up_to(std::uint64_t particles) { lit_gather_limit_ = particles; }
  std::optional<std::uint64_t> lit_gather_limit() const { return lit_gather_limit_; }

  // Gathered lit frames on CPU ranks (docs/design.md, "Many ranks: by halo"). Where every rank
  // runs on one node and the first rank may use all the CPUs the ranks run on, rank 0 renders
  // the frame alone with every rank's threads (node_render_threads) while the others wait
  // asleep: one rank's speed, less a gather. Elsewhere each rank renders bands of rows.
  // Collective: the threads rank 0 renders with (the same answer on every rank), or 0 for bands;
  // settled once per communicator.
  int gathered_frame_threads(MPI_Comm comm);
  // For tests and measurements: always bands (true), or rank 0 alone where the node's threads
  // are not its to use too (false, with its own threads).
  void render_gathered_frames_in_bands(bool in_bands) { gathered_in_bands_ = in_bands; }

  // Gathered lit frames on CPU ranks in bands of rows: what each row cost
  // in the frames before, the same on every rank, by which the next one cuts its rows; empty
  // before the first.
  BandCosts& band_costs() { return band_costs_; }
  // ... and, where every rank shares one node and the method allows shared memory (automatic or
  // shared_memory), rank 0's picture in a shared-memory segment that each rank copies its bands
  // into; null elsewhere, or for good once a segment could not be made (the reason on rank 0's
  // stderr). Collective; made again when the picture's size changes.
  detail::BandStack* band_stack(MPI_Comm comm, int width, int rows, bool with_hits);

 private:
  // Collective: groups the ranks by node and makes each node's shared-memory segments; settles
  // method_ (binary swap for good when a node cannot and the method was automatic).
  void set_up_shared_memory(MPI_Comm comm, int width, int height, int rank, int size);

  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
  CompositeMethod requested_;
  CompositeMethod method_;
  int pretend_node_size_ = 0;
  bool in_gpu_memory_ = false;
  std::optional<std::uint64_t> lit_gather_limit_;
  std::optional<bool> gathered_in_bands_;
  BandCosts band_costs_;
};

// Whether a lit frame of `particles` over all ranks, `pixels` and `samples` per pixel on `backend`
// is gathered (onto rank 0 on GPUs, onto every rank to render bands of rows on CPUs) rather than
// lit across the ranks by halo: while the gathered grains (28 bytes each) move no more than one
// composite of the image's samples would (15 bytes each; 6 when the halo's composite is
// `in_gpu_memory`, where its exchanges are what is left to weigh) and fit (kLitGatherParticles),
// and on CPUs while they make at most 16 MB (docs/design.md, docs/benchmarks.md).
bool gathered_lit_frame(std::uint64_t particles, std::uint64_t pixels, int samples,
                        BackendKind backend, bool in_gpu_memory = false);

// Collective: measures every rank's particles, renders this rank's part with the global camera
// box and colour range (particles without ids get index + the counts of the ranks before) and
// composites into rank 0's `image`. The returned stats count the particles of all ranks; on
// rank 0 they list every rank's share. When rendering fails on any rank, every rank throws.
// On several ranks each copies out of its renderer only the pixels it drew (stats.drawn): the
// other ranks' images hold nothing to rely on elsewhere. `same_particles`: a later band of a
// frame rendered in bands, whose ranks may reuse the grids they built for the band before
// (RenderOptions::same_particles).
FrameStats render_distributed(Renderer& renderer, MPI_Comm comm, ParticleView view,
                              const RenderSettings& settings, Image& image,
                              Compositor* compositor = nullptr,
                              Composited result = Composited::rgb_depth_ids,
                              bool same_particles = false);

// The in-situ plugin's view of `comm` (see InsituRenderer); its frames composite rgb alone.
std::shared_ptr<RankGroup> rank_group(MPI_Comm comm);

// Makes this rank use the GPU of index (rank on its node) mod (GPUs on the node), the node's
// ranks found with MPI's shared-memory communicator. Returns the device index, or -1 when no GPU
// is present (the CPU backend is used then). Collective.
int use_node_local_gpu(MPI_Comm comm);

// Sets this rank's OpenMP threads to its share of the CPUs it may run on: those CPUs divided by
// the ranks of its node whose CPUs overlap them (one thread a core across the node, whether
// mpirun bound each rank to a core, to a socket, or not at all). A rank keeps the count that
// OMP_NUM_THREADS sets. With `warn_of_idle`, the node's first rank says on stderr when the
// ranks' bindings leave some of the node's CPUs unused. Returns the threads this rank runs.
// Collective.
int share_cores(MPI_Comm comm, bool warn_of_idle = false);

// Collective over `node`, a communicator of ranks on one node: how many OpenMP threads the
// node's first rank runs when it renders a frame alone for the node while the others wait asleep
// (Compositor::gathered_frame_threads): every rank's threads together, no more than that rank's
// CPUs; 0 when the ranks' CPUs are not all its own (mpirun bound them to cores of their own,
// where rendering alone would leave the other ranks' cores idle) or are not known.
int node_render_threads(MPI_Comm node);

// True when this process was started by an MPI launcher (mpirun, mpiexec, srun), so MPI_Init is
// worth calling; a plain run stays a one-rank run without initialising MPI at all.
bool launched_by_mpi();

}  // namespace granray::mpi
