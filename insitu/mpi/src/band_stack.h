// Rank 0's picture of a gathered lit frame on CPU ranks in shared memory (docs/design.md, "Many
// ranks"): every rank of the node maps it and copies its bands of rows straight into it, so no
// pixel goes through MPI's shared-memory transport, which copies a message twice on one core.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "granray/image.h"
#include "shared_memory_compositor.h"

namespace granray::mpi::detail {

// Makes `image` a settled picture of `width` x `rows` pixels (rgb, and depths and ids
// `with_hits`) for the bands to be stacked into.
void size_for_bands(Image& image, int width, int rows, bool with_hits);

class BandStack {
 public:
  // Collective over `comm`, whose ranks share one node: rank 0 makes the segment for a picture of
  // `width` x `rows` pixels (rgb, and depths and ids `with_hits`) and every other rank maps it.
  // Throws Error on every rank alike when it cannot; nothing is left in /dev/shm either way.
  BandStack(MPI_Comm comm, int width, int rows, bool with_hits);

  bool fits(int width, int rows, bool with_hits) const {
    return width == width_ && rows == rows_ && with_hits == with_hits_;
  }

  // This rank's band, `band.height` rows from row `y0` of the picture, into the segment.
  void put(const Image& band, int y0);

  // Collective, once every rank has put its bands: rank 0 copies the picture into `image`.
  void take(Image& image, MPI_Comm comm);

 private:
  int width_ = 0, rows_ = 0;
  bool with_hits_ = false;
  std::size_t depth_at_ = 0, id_at_ = 0;
  MappedSegment segment_;
};

}  // namespace granray::mpi::detail
