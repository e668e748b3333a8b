// How many OpenMP threads a CPU rank runs when ranks share a node's cores (mpi_frame.h).
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "granray/insitu/mpi_frame.h"
#include "mpi_agree.h"
#include "mpi_cores.h"

namespace granray::mpi {

namespace {

// mpirun binds two ranks or fewer to a core each by default: CPU ranks then leave the node's
// other cores idle, which the user should hear of (a binding may also be meant).
void warn_of_idle_cpus(const std::vector<cpu_set_t>& all) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t used;
  CPU_ZERO(&used);
  for (const cpu_set_t& set : all) CPU_OR(&used, &used, &set);
  const int busy = CPU_COUNT(&used);
  if (online <= 0 || busy >= online) return;
  std::fprintf(stderr,
               "granray: the %zu rank(s) on this node may run on %d of its %ld CPUs (mpirun's "
               "binding); CPU rendering uses them all under `mpirun --bind-to none`\n",
               all.size(), busy, online);
}

// Collective over `node`: this process's CPUs, as mpirun's binding left them (`mine`), and every
// rank's in node order (`all`), left empty unless the system told every rank its own. Returns
// the first MPI status that failed, or MPI_SUCCESS.
int gather_node_cpus(MPI_Comm node, cpu_set_t& mine, std::vector<cpu_set_t>& all) {
  CPU_ZERO(&mine);
  int known = sched_getaffinity(0, sizeof(mine), &mine) == 0 ? 1 : 0, size = 1;
  int status = MPI_Allreduce(MPI_IN_PLACE, &known, 1, MPI_INT, MPI_MIN, node);
  if (status == MPI_SUCCESS) status = MPI_Comm_size(node, &size);
  all.clear();
  if (status == MPI_SUCCESS && known == 1) {
    all.resize(static_cast<std::size_t>(size));
    status = MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all.data(), sizeof(mine), MPI_BYTE, node);
  }
  return status;
}

}  // namespace

int share_cores(MPI_Comm comm, bool warn_of_idle) {
  MPI_Comm node = MPI_COMM_NULL;
  GRANRAY_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  cpu_set_t mine;
  std::vector<cpu_set_t> all;
  int local_rank = 0;
  int status = gather_node_cpus(node, mine, all);
  if (status == MPI_SUCCESS) status = MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  check(status, "sharing the node's cores among its ranks");
  const bool known = !all.empty();
  if (warn_of_idle && known && local_rank == 0) warn_of_idle_cpus(all);
#if defined(_OPENMP)
  const char* chosen = std::getenv("OMP_NUM_THREADS");
  if ((chosen != nullptr && *chosen != '\0') || !known) return omp_get_max_threads();
  // Ranks bound to their own cores share none; unbound ranks (or ranks bound to one socket) share
  // every CPU they can run on, and each takes its part, so the node runs one thread a core.
  int sharing = 0;
  for (const cpu_set_t& set : all) {
    cpu_set_t both;
    CPU_AND(&both, &mine, &set);
    if (CPU_COUNT(&both) > 0) ++sharing;
  }
  const int threads = std::max(1, CPU_COUNT(&mine) / std::max(1, sharing));
  omp_set_num_threads(threads);
  return threads;
#else
  return 1;
#endif
}

namespace detail {

int node_render_threads(const std::vector<cpu_set_t>& cpus, const std::vector<int>& threads) {
  if (cpus.empty() || cpus.size() != threads.size()) return 0;
  cpu_set_t all;
  CPU_ZERO(&all);
  int total = 0;
  for (std::size_t r = 0; r < cpus.size(); ++r) {
    CPU_OR(&all, &all, &cpus[r]);
    total += std::max(1, threads[r]);
  }
  const int first = CPU_COUNT(&cpus[0]);
  if (first == 0 || first < CPU_COUNT(&all)) return 0;
  return std::min(total, first);
}

}  // namespace detail

int node_render_threads(MPI_Comm node) {
#if defined(_OPENMP)
  cpu_set_t mine;
  std::vector<cpu_set_t> cpus;
  int status = gather_node_cpus(node, mine, cpus);
  const int threads = omp_get_max_threads();
  std::vector<int> counts(cpus.size());
  if (status == MPI_SUCCESS && !cpus.empty()) {
    status = MPI_Allgather(&threads, 1, MPI_INT, counts.data(), 1, MPI_INT, node);
  }
  check(status, "counting the node's threads");
  return detail::node_render_threads(cpus, counts);  // 0 where the CPUs are not known
#else
  (void)node;
  return 0;  // one thread a rank: bands use them all
#endif
}

}  // namespace granray::mpi
