// Agreement among ranks on whether a step succeeded, so that no rank waits in a collective that
// a failed rank will never join; and the check of every MPI call's status.
#pragma once

#include <mpi.h>

#include <chrono>
#include <exception>
#include <string>

#include "granray/insitu/mpi_frame.h"

// Throws granray::Error naming the call when it does not return MPI_SUCCESS.
#define GRANRAY_MPI_CHECK(call) ::granray::mpi::check((call), #call)

namespace granray::mpi::detail {

// Collective. Returns when every rank passed ok; otherwise a rank that failed throws Error with
// its own `error`, the others one naming `stage` and the first rank that failed.
void agree(bool ok, const std::string& error, const char* stage, MPI_Comm comm);

// Waits for `requests` (MPI_Waitall's arguments) without holding a core: polls for a moment, then
// sleeps between polls, so that ranks sharing a node's cores lend them to the ranks still
// rendering instead of spinning in MPI.
void wait_all(int count, MPI_Request* requests);

// Runs one step of a frame on this rank, then agrees: when it threw on any rank, every rank
// throws (the failing one its own error), so none is left waiting in the next collective.
template <class Step>
void agreed_step(const char* stage, MPI_Comm comm, Step&& step) {
  std::string error;
  bool ok = true;
  try {
    step();
  } catch (const std::exception& e) {
    ok = false;
    error = e.what();
  }
  agree(ok, error, stage, comm);
}

// Host time for a frame's statistics.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace granray::mpi::detail
