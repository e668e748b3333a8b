#include "gpu_plane_compositor.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "granray/rank_stages.h"
#include "mpi_agree.h"
#include "mpi_exchange.h"

namespace granray::mpi::detail {

namespace {

// GRANRAY_COMPOSITE=host keeps compositing on the host (benchmarks compare the two ways).
bool host_asked() {
  const char* way = std::getenv("GRANRAY_COMPOSITE");
  return way != nullptr && std::strcmp(way, "host") == 0;
}

}  // namespace

bool GpuPlaneCompositor::ready(Renderer& renderer, MPI_Comm comm, int width, int height,
                               bool one_node) {
  if (refused_) return false;
  // Set up again when any rank's renderer, size or communicator changed: decided together, so
  // that every rank takes part in the same collectives.
  int stale =
      comm == for_ && &renderer == renderer_ && width == width_ && height == height_ ? 0 : 1;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &stale, 1, MPI_INT, MPI_MAX, comm));
  if (stale == 0) return true;
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  // Every rank must be able to take part, or none does.
  int able = renderer.backend() == BackendKind::cuda && one_node && !host_asked() ? 1 : 0;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &able, 1, MPI_INT, MPI_MIN, comm));
  if (able == 0) {
    refused_ = true;
    return false;
  }

  std::string error;
  std::vector<unsigned char> handle;
  try {
    handle = rank_stages(renderer).share_planes(std::size_t(width) * std::size_t(height));
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::vector<std::vector<unsigned char>> handles = every_rank_handle(handle, comm);
  int shared = error.empty() ? 1 : 0;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MIN, comm));
  // Rank 0 alone reads the others' planes: it maps them, and says whether it could.
  if (shared == 1 && rank == 0) {
    try {
      rank_stages(renderer).open_shared_planes(handles, 0);
    } catch (const std::exception& e) {
      shared = 0;
      error = e.what();
    }
  }
  GRANRAY_MPI_CHECK(MPI_Bcast(&shared, 1, MPI_INT, 0, comm));
  if (shared == 0) {
    refused_ = true;
    if (rank == 0) {
      std::fprintf(stderr, "granray: compositing on the host, not in GPU memory: %s\n",
                   error.empty() ? "another rank could not share its frame planes" : error.c_str());
    }
    return false;
  }
  for_ = comm;
  renderer_ = &renderer;
  width_ = width;
  height_ = height;
  return true;
}

}  // namespace granray::mpi::detail
