// Compositing in GPU memory among the ranks of one host: each rank's CUDA renderer leaves its
// frame (colours, depths, ids) in planes the other processes map (CUDA IPC), and rank 0 merges
// all of them there, straight out of each rank's memory, over the GPUs' peer links where the
// ranks have GPUs of their own. No pixel goes through host memory or a message, except the
// finished picture on rank 0, as on one rank.
#pragma once

#include <mpi.h>

#include "granray/renderer.h"

namespace granray::mpi::detail {

class GpuPlaneCompositor {
 public:
  // Collective: whether frames of `width` x `height` of `renderer` composite in GPU memory on
  // `comm`, every rank on one node (`one_node`). Sets up on the first call and again when the
  // size, the renderer or the communicator changes. False for good once any rank cannot (another
  // backend, several nodes, planes that do not map, GRANRAY_COMPOSITE=host), with the reason on
  // rank 0's stderr where CUDA renderers were refused.
  bool ready(Renderer& renderer, MPI_Comm comm, int width, int height, bool one_node);

  bool refused() const { return refused_; }

 private:
  bool refused_ = false;
  MPI_Comm for_ = MPI_COMM_NULL;
  const Renderer* renderer_ = nullptr;
  int width_ = 0, height_ = 0;
};

}  // namespace granray::mpi::detail
