#include "mpi_agree.h"

#include <string>

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

void agree(bool ok, const std::string& error, const char* stage, MPI_Comm comm) {
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  int first_failed = ok ? size : rank;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm));
  if (first_failed == size) return;
  if (!ok) throw Error("rank " + std::to_string(rank) + ": " + error);
  throw Error(std::string(stage) + " failed on rank " + std::to_string(first_failed) +
              " (its log says why)");
}

}  // namespace detail

}  // namespace granray::mpi
