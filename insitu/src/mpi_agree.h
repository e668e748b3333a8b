// Agreement among ranks on whether a step succeeded, so that no rank waits in a collective that
// a failed rank will never join.
#pragma once

#include <mpi.h>

#include <string>

namespace granray::mpi::detail {

// Collective. Returns when every rank passed ok; otherwise a rank that failed throws Error with
// its own `error`, the others one naming `stage` and the first rank that failed.
void agree(bool ok, const std::string& error, const char* stage, MPI_Comm comm);

}  // namespace granray::mpi::detail
