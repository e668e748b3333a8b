// The example DEM's slab exchange over MPI (built when CMake finds MPI).
#pragma once

#include <mpi.h>

#include <memory>

#include "dem_slabs.h"

namespace granray::dem {

// Rank order is slab order along x. Throws granray::Error when an MPI call fails.
std::shared_ptr<SlabExchange> make_mpi_slabs(MPI_Comm comm);

}  // namespace granray::dem
