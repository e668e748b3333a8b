// How many OpenMP threads a CPU rank runs when ranks share a node's cores (mpi_frame.h).
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "granray/insitu/mpi_frame.h"
#include "mpi_agree.h"

namespace granray::mpi {

namespace {

// This process's CPUs (its affinity mask, as mpirun's binding left it), or none when the
// system does not say.
std::vector<unsigned char> affinity_mask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return {};
  std::vector<unsigned char> bytes(sizeof(set));
  std::memcpy(bytes.data(), &set, sizeof(set));
  return bytes;
}

int cpus_in(const unsigned char* mask, std::size_t bytes) {
  int n = 0;
  for (std::size_t i = 0; i < bytes; ++i) n += __builtin_popcount(mask[i]);
  return n;
}

bool overlap(const unsigned char* a, const unsigned char* b, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) {
    if ((a[i] & b[i]) != 0) return true;
  }
  return false;
}

// mpirun binds two ranks or fewer to a core each by default: CPU ranks then leave the node's
// other cores idle, which the user should hear of (a binding may also be meant).
void warn_of_idle_cpus(const std::vector<unsigned char>& all, int local_size) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<unsigned char> used(sizeof(cpu_set_t), 0);
  for (std::size_t i = 0; i < all.size(); ++i) used[i % used.size()] |= all[i];
  const int busy = cpus_in(used.data(), used.size());
  if (online <= 0 || busy >= online) return;
  std::fprintf(stderr,
               "granray: the %d rank(s) on this node may run on %d of its %ld CPUs (mpirun's "
               "binding); CPU rendering uses them all under `mpirun --bind-to none`\n",
               local_size, busy, online);
}

}  // namespace

int share_cores(MPI_Comm comm, bool warn_of_idle) {
  MPI_Comm node = MPI_COMM_NULL;
  GRANRAY_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  std::vector<unsigned char> mine = affinity_mask();
  int known = mine.empty() ? 0 : 1, local_size = 1, local_rank = 0;
  int status = MPI_Allreduce(MPI_IN_PLACE, &known, 1, MPI_INT, MPI_MIN, node);
  if (status == MPI_SUCCESS) status = MPI_Comm_size(node, &local_size);
  if (status == MPI_SUCCESS) status = MPI_Comm_rank(node, &local_rank);
  std::vector<unsigned char> all;
  const std::size_t bytes = sizeof(cpu_set_t);
  if (status == MPI_SUCCESS && known == 1) {
    all.resize(bytes * static_cast<std::size_t>(local_size));
    status = MPI_Allgather(mine.data(), static_cast<int>(bytes), MPI_UNSIGNED_CHAR, all.data(),
                           static_cast<int>(bytes), MPI_UNSIGNED_CHAR, node);
  }
  MPI_Comm_free(&node);
  check(status, "sharing the node's cores among its ranks");
  if (warn_of_idle && known == 1 && local_rank == 0) warn_of_idle_cpus(all, local_size);
#if defined(_OPENMP)
  const char* chosen = std::getenv("OMP_NUM_THREADS");
  if ((chosen != nullptr && *chosen != '\0') || known == 0) return omp_get_max_threads();
  // Ranks bound to their own cores share none; unbound ranks (or ranks bound to one socket) share
  // every CPU they can run on, and each takes its part, so the node runs one thread a core.
  int sharing = 0;
  for (int r = 0; r < local_size; ++r) {
    if (overlap(mine.data(), &all[bytes * static_cast<std::size_t>(r)], bytes)) ++sharing;
  }
  const int threads = std::max(1, cpus_in(mine.data(), bytes) / std::max(1, sharing));
  omp_set_num_threads(threads);
  return threads;
#else
  return 1;
#endif
}

}  // namespace granray::mpi
