// Sort-last compositing by messages: binary swap among the ranks of a communicator, each
// sending only the rows of the rectangle it has drawn, then rank 0 gathers the rows. The
// shared-memory compositor hands its node's result to this among the nodes' first ranks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "granray/image.h"
#include "granray/tiled_render.h"

namespace granray::mpi::detail {

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

// What binary swap keeps between frames.
struct MessageBuffers {
  Samples canvas, out, in, gathered;
};

// Binary swap in messages, then rank 0 gathers the rows (see CompositeMethod::binary_swap).
void composite_by_messages(Image& image, const DrawnRegion& drawn, const Sample& background_sample,
                           MPI_Comm comm, MessageBuffers& b);

}  // namespace granray::mpi::detail
