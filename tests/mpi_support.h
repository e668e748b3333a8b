// Helpers for the tests that run under mpirun (granray_mpi_tests).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "test_support.h"

namespace granray::test {

inline int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

inline int size_of(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

// The same seed on every rank, fresh each run.
inline std::uint64_t shared_seed() {
  std::uint64_t seed = rank_of(MPI_COMM_WORLD) == 0 ? fresh_seed() : 0;
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return seed;
}

// The backend the rendering MPI tests run on: the CPU, or the GPU where GRANRAY_MPI_TEST_BACKEND
// is "cuda" (the GPU machine's scripts; every rank then shares the one GPU).
inline BackendKind mpi_test_backend() {
  const char* name = std::getenv("GRANRAY_MPI_TEST_BACKEND");
  return name != nullptr && std::strcmp(name, "cuda") == 0 ? BackendKind::cuda : BackendKind::cpu;
}

}  // namespace granray::test
