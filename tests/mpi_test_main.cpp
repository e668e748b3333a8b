// main() of the tests run under mpirun: every rank runs every test; only rank 0 prints, and the
// run fails when a test failed on any rank. Asked for the CUDA backend (GRANRAY_MPI_TEST_BACKEND)
// where no GPU is present, every rank skips the whole run (exit 77); with GPUs, each rank takes
// its node's GPU by rank, as the in-situ codes do.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <memory>

#include "granray/insitu/mpi_frame.h"
#include "granray/renderer.h"
#include "mpi_support.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (granray::test::mpi_test_backend() == granray::BackendKind::cuda) {
    if (granray::mpi::use_node_local_gpu(MPI_COMM_WORLD) < 0) {
      if (rank == 0) std::printf("no CUDA device: the MPI tests on GPUs run on the GPU machine\n");
      MPI_Finalize();
      return 77;
    }
  }
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    std::unique_ptr<::testing::TestEventListener> silenced(
        listeners.Release(listeners.default_result_printer()));
  }
  int failed = RUN_ALL_TESTS();
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
