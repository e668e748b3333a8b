// Ranks sharing a node's cores (mpi::share_cores) under mpirun -np 1..4: one thread a core across
// the node unless OMP_NUM_THREADS chose, so that CPU ranks never crowd their cores.
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "granray/insitu/mpi_frame.h"
#include "mpi_cores.h"
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

// The ranks of this rank's node, as MPI groups them, freed however the test ends.
class NodeRanks {
 public:
  NodeRanks() {
    EXPECT_EQ(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &comm_),
              MPI_SUCCESS);
  }
  ~NodeRanks() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  NodeRanks(const NodeRanks&) = delete;
  NodeRanks& operator=(const NodeRanks&) = delete;
  MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// Each test on this rank's node, OMP_NUM_THREADS put back after it.
class SharedCores : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(ranks_.comm(), MPI_COMM_NULL); }
  MPI_Comm node() const { return ranks_.comm(); }

 private:
  const ThreadsEnvironment restore_;
  const NodeRanks ranks_;
};

TEST_F(SharedCores, OneThreadACoreAcrossTheNodeUnlessChosen) {
  const MPI_Comm node = this->node();
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
}

cpu_set_t cpus(int first, int last) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c = first; c <= last; ++c) CPU_SET(c, &set);
  return set;
}

// Rank 0 renders a gathered frame alone for the node only where every CPU the node's ranks run
// on is one it may run on too; then with all their threads, no more than its CPUs.
TEST_F(SharedCores, RankZeroRendersForTheNodeWhereItsCpusAreEveryRanks) {
  using mpi::detail::node_render_threads;
  // Unbound, or bound to one socket: every rank's threads on rank 0.
  EXPECT_EQ(node_render_threads({cpus(0, 15), cpus(0, 15), cpus(0, 15), cpus(0, 15)}, {4, 4, 4, 4}),
            16);
  EXPECT_EQ(node_render_threads({cpus(0, 15), cpus(0, 7)}, {8, 8}), 16);
  // More threads than CPUs (oversubscribed): the CPUs.
  EXPECT_EQ(node_render_threads({cpus(0, 1), cpus(0, 1), cpus(0, 1), cpus(0, 1)}, {1, 1, 1, 1}), 2);
  // A lone rank: its own threads.
  EXPECT_EQ(node_render_threads({cpus(0, 3)}, {3}), 3);
  // A core each, or halves of the node: rank 0 alone would leave the others' cores idle.
  EXPECT_EQ(node_render_threads({cpus(0, 0), cpus(1, 1)}, {1, 1}), 0);
  EXPECT_EQ(node_render_threads({cpus(0, 7), cpus(8, 15)}, {8, 8}), 0);
  EXPECT_EQ(node_render_threads({cpus(0, 7), cpus(0, 15)}, {8, 8}), 0);
  // Nothing known.
  EXPECT_EQ(node_render_threads({}, {}), 0);
  EXPECT_EQ(node_render_threads({cpus(0, 3)}, {}), 0);
  EXPECT_EQ(node_render_threads({cpus(1, 0)}, {2}), 0);  // an empty set
}

// The collective answer is the one the ranks' own CPUs and threads give.
TEST_F(SharedCores, NodeRenderThreadsFollowTheRanksCpusAndThreads) {
  const MPI_Comm node = this->node();
  const int rank = rank_of(node);
  for (const int threads : {1, 2, 3}) {
    omp_set_num_threads(threads + rank % 2);
    const int answer = mpi::node_render_threads(node);
    const cpu_set_t mine = my_cpus();
    cpu_set_t all = mine;
    int total = 0;
    std::vector<cpu_set_t> sets(static_cast<std::size_t>(size_of(node)));
    MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, sets.data(), sizeof(mine), MPI_BYTE, node);
    for (const cpu_set_t& set : sets) CPU_OR(&all, &all, &set);
    const int own = omp_get_max_threads();
    MPI_Allreduce(&own, &total, 1, MPI_INT, MPI_SUM, node);
    int answers[2] = {answer, -answer};
    MPI_Allreduce(MPI_IN_PLACE, answers, 2, MPI_INT, MPI_MIN, node);
    EXPECT_EQ(answers[0], -answers[1]) << "every rank hears the same answer";
    if (CPU_COUNT(&sets[0]) < CPU_COUNT(&all)) {
      EXPECT_EQ(answer, 0);
    } else {
      EXPECT_EQ(answer, std::min(total, CPU_COUNT(&sets[0])));
    }
  }
}

}  // namespace
}  // namespace granray::test
