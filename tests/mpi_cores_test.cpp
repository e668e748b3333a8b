// Ranks sharing a node's cores (mpi::share_cores) under mpirun -np 1..4: one thread a core across
// the node unless OMP_NUM_THREADS chose, so that CPU ranks never crowd their cores.
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "granray/insitu/mpi_frame.h"
#include "mpi_support.h"

namespace granray::test {
namespace {

// OMP_NUM_THREADS as the test found it, put back however the test ends.
class ThreadsEnvironment {
 public:
  ThreadsEnvironment() : threads_(omp_get_max_threads()) {
    const char* value = std::getenv("OMP_NUM_THREADS");
    if (value != nullptr) saved_ = value;
    had_ = value != nullptr;
  }
  ~ThreadsEnvironment() {
    if (had_) {
      setenv("OMP_NUM_THREADS", saved_.c_str(), 1);
    } else {
      unsetenv("OMP_NUM_THREADS");
    }
    omp_set_num_threads(threads_);
  }

 private:
  int threads_;
  bool had_ = false;
  std::string saved_;
};

cpu_set_t my_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  return set;
}

TEST(SharedCores, OneThreadACoreAcrossTheNodeUnlessChosen) {
  const ThreadsEnvironment restore;
  MPI_Comm node = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            MPI_SUCCESS);
  const int local_size = size_of(node);

  // A count the user chose stays.
  setenv("OMP_NUM_THREADS", "3", 1);
  omp_set_num_threads(3);
  EXPECT_EQ(mpi::share_cores(MPI_COMM_WORLD), 3);
  EXPECT_EQ(omp_get_max_threads(), 3);

  // Otherwise the ranks whose CPUs overlap run no more threads than those CPUs, at least one each.
  unsetenv("OMP_NUM_THREADS");
  omp_set_num_threads(64);
  const int threads = mpi::share_cores(MPI_COMM_WORLD);
  EXPECT_GE(threads, 1);
  EXPECT_EQ(omp_get_max_threads(), threads);
  cpu_set_t mine = my_cpus();
  std::vector<cpu_set_t> sets(static_cast<std::size_t>(local_size));
  std::vector<int> counts(static_cast<std::size_t>(local_size));
  MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, sets.data(), sizeof(mine), MPI_BYTE, node);
  MPI_Allgather(&threads, 1, MPI_INT, counts.data(), 1, MPI_INT, node);
  cpu_set_t shared;
  CPU_ZERO(&shared);
  int threads_on_my_cpus = 0, sharing = 0;
  for (int r = 0; r < local_size; ++r) {
    cpu_set_t both;
    CPU_AND(&both, &mine, &sets[static_cast<std::size_t>(r)]);
    if (CPU_COUNT(&both) == 0) continue;
    CPU_OR(&shared, &shared, &sets[static_cast<std::size_t>(r)]);
    threads_on_my_cpus += counts[static_cast<std::size_t>(r)];
    ++sharing;
  }
  EXPECT_LE(threads_on_my_cpus, std::max(CPU_COUNT(&shared), sharing))
      << "ranks sharing these CPUs run more threads than the CPUs";
  // And they use them: a lone rank on its CPUs runs one thread on each.
  if (sharing == 1) EXPECT_EQ(threads, CPU_COUNT(&mine));
  MPI_Comm_free(&node);
}

}  // namespace
}  // namespace granray::test
