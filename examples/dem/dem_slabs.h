// The example DEM across MPI ranks: the box is cut into slabs of whole contact-grid columns along
// x, one per rank. A rank integrates the grains of its slab (it owns them), keeps copies of the
// neighbouring slabs' grains in the columns next to its own (ghosts) for the contact forces, and
// hands a grain to its neighbour when it drifts across a slab face. This interface is all the
// time stepping sees of MPI; dem_mpi.cpp implements it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dem_kernels.h"

namespace granray::dem {

class SlabExchange {
 public:
  virtual ~SlabExchange() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;

  // Sends grains to the ranks of the lower and upper slabs (nothing goes past the box's ends)
  // and returns what they sent this rank. Collective among neighbours.
  virtual void swap(const std::vector<Grain>& to_lower, const std::vector<Grain>& to_upper,
                    std::vector<Grain>& from_lower, std::vector<Grain>& from_upper) = 0;

  // Collective reductions over all ranks.
  virtual Energy combine(const Energy& mine) = 0;
  virtual std::uint64_t sum(std::uint64_t mine) = 0;

  // A grain crossed more than one slab in one step: the integration has blown up and the other
  // ranks cannot go on without it. Ends the whole job with `why`.
  [[noreturn]] virtual void abort(const std::string& why) = 0;
};

// The columns [first, end) of the global contact grid that `rank` of `ranks` owns: equal shares.
struct SlabColumns {
  int first;
  int end;
};
inline SlabColumns slab_columns(int columns, int rank, int ranks) {
  const auto share = [&](int r) {
    return static_cast<int>(static_cast<long long>(columns) * r / ranks);
  };
  return {share(rank), share(rank + 1)};
}

}  // namespace granray::dem
