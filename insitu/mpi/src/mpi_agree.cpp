#include "mpi_agree.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "granray/errors.h"

namespace granray::mpi {

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(std::string("granray: ") + call + " failed: " + std::string(text, length));
}

namespace detail {

void wait_all(int count, MPI_Request* requests) {
  using clock = std::chrono::steady_clock;
  // A short wait stays a spin (a GPU frame's agreements take microseconds); a longer one sleeps
  // between polls, a twentieth of a millisecond at first and twice as long each time up to a
  // millisecond: a rank waiting out another's CPU frame (tens to hundreds of milliseconds) then
  // polls about a thousand times a second, not ten thousand (each poll and wake-up took a
  // sixth of a core on 2 cores, with 0.1 ms sleeps), and hears of the end within a
  // millisecond.
  const auto spin_until = clock::now() + std::chrono::microseconds(200);
  auto nap = std::chrono::microseconds(50);
  int done = 0;
  for (;;) {
    GRANRAY_MPI_CHECK(MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE));
    if (done != 0) return;
    if (clock::now() > spin_until) {
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds(1000));
    }
  }
}

void agree(bool ok, const std::string& error, const char* stage, MPI_Comm comm) {
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  int first_failed = ok ? size : rank;
  MPI_Request request = MPI_REQUEST_NULL;
  GRANRAY_MPI_CHECK(
      MPI_Iallreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm, &request));
  wait_all(1, &request);
  if (first_failed == size) return;
  if (!ok) throw Error("rank " + std::to_string(rank) + ": " + error);
  throw Error(std::string(stage) + " failed on rank " + std::to_string(first_failed) +
              " (its log says why)");
}

}  // namespace detail

}  // namespace granray::mpi
