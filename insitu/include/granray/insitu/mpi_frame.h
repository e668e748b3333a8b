// Many ranks, one picture: each rank renders its own particles with the camera and colour range
// of all of them, and sort-last compositing keeps the nearest hit per pixel (equal depth: the
// smaller global id), so the image is the same for any number of ranks.
#pragma once

#include <mpi.h>

#include <memory>

#include "granray/image.h"
#include "granray/insitu/rank_group.h"
#include "granray/renderer.h"

namespace granray::mpi {

// Throws granray::Error naming `call` and MPI's reason unless `status` is MPI_SUCCESS.
void check(int status, const char* call);

// Composites every rank's image (rgb, depth and hit_id, as rendered with
// RenderOptions::with_hits) into rank 0's `image`. Binary swap over the largest power of two of
// ranks, the remaining ranks folded in first, then rank 0 gathers the pieces: each rank sends and
// receives at most about one image whatever the rank count, and only the pixels inside the
// bounding rectangle of what it has drawn (the rest is `background`). Collective; other ranks'
// images are left unspecified. Throws granray::Error when an MPI call fails.
void composite(Image& image, Vec3 background, MPI_Comm comm);

// The same, keeping its buffers (several image sizes of samples) from frame to frame: fresh
// ones would cost a page fault per 4 KiB every frame.
class Compositor {
 public:
  Compositor();
  ~Compositor();
  Compositor(const Compositor&) = delete;
  Compositor& operator=(const Compositor&) = delete;
  void composite(Image& image, Vec3 background, MPI_Comm comm);

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

// Collective: measures every rank's particles, renders this rank's part with the global camera
// box and colour range (particles without ids get index + the counts of the ranks before) and
// composites into rank 0's `image`. The returned stats count the particles of all ranks; on
// rank 0 they list every rank's share. When rendering fails on any rank, every rank throws.
FrameStats render_distributed(Renderer& renderer, MPI_Comm comm, ParticleView view,
                              const RenderSettings& settings, Image& image,
                              Compositor* compositor = nullptr);

// The in-situ plugin's view of `comm` (see InsituRenderer).
std::shared_ptr<RankGroup> rank_group(MPI_Comm comm);

// Makes this rank use the GPU of index (rank on its node) mod (GPUs on the node), the node's
// ranks found with MPI's shared-memory communicator. Returns the device index, or -1 when no GPU
// is present (the CPU backend is used then). Collective.
int use_node_local_gpu(MPI_Comm comm);

// True when this process was started by an MPI launcher (mpirun, mpiexec, srun), so MPI_Init is
// worth calling; a plain run stays a one-rank run without initialising MPI at all.
bool launched_by_mpi();

}  // namespace granray::mpi
