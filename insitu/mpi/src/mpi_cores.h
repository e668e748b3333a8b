// What mpi_cores.cpp decides from the ranks' CPUs, apart from MPI (tested on its own).
#pragma once

#include <sched.h>

#include <vector>

namespace granray::mpi::detail {

// node_render_threads (granray/insitu/mpi_frame.h) from each rank's CPUs and threads, the
// node's first rank first: every rank's threads together, no more than the first rank's CPUs;
// 0 unless the first rank's CPUs are every CPU the ranks run on, or when nothing is known.
int node_render_threads(const std::vector<cpu_set_t>& cpus, const std::vector<int>& threads);

}  // namespace granray::mpi::detail
