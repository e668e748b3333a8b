#include "mpi_contacts.h"

#include <limits>
#include <string>

#include "granray/errors.h"
#include "mpi_agree.h"

namespace granray::mpi::detail {
namespace {

// Every rank's `mine` (items of `bytes` bytes) into `all`, in rank order.
template <class T>
void all_gather(MPI_Comm comm, const std::vector<T>& mine, std::vector<T>& all,
                const std::vector<long long>& items) {
  std::vector<int> counts(items.size()), offsets(items.size());
  long long total = 0;
  for (std::size_t r = 0; r < items.size(); ++r) {
    const long long bytes = items[r] * static_cast<long long>(sizeof(T));
    if (total + bytes > std::numeric_limits<int>::max()) {
      throw OutOfMemoryError("[insitu.contacts]: the frame's contact pairs exceed 2 GiB to gather");
    }
    counts[r] = static_cast<int>(bytes);
    offsets[r] = static_cast<int>(total);
    total += bytes;
  }
  all.resize(static_cast<std::size_t>(total) / sizeof(T));
  GRANRAY_MPI_CHECK(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size() * sizeof(T)), MPI_BYTE,
                                   all.data(), counts.data(), offsets.data(), MPI_BYTE, comm));
}

}  // namespace

ContactView gather_contacts(MPI_Comm comm, Renderer& renderer, const ParticleView& view,
                            HostPairs& out) {
  HostPairs mine;
  agreed_step("gathering the contact pairs", comm,
              [&] { rank_stages(renderer).copy_contacts_to_host(view, mine); });
  int size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const long long count = static_cast<long long>(mine.value.size());
  std::vector<long long> pairs(static_cast<std::size_t>(size));
  GRANRAY_MPI_CHECK(MPI_Allgather(&count, 1, MPI_LONG_LONG, pairs.data(), 1, MPI_LONG_LONG, comm));
  std::vector<long long> grains(pairs);
  for (long long& g : grains) g *= 2;
  all_gather(comm, mine.value, out.value, pairs);
  all_gather(comm, mine.spheres, out.spheres, grains);
  all_gather(comm, mine.ids, out.ids, grains);
  // Every rank's spheres are grains, or none of the gathered pairs' are taken for grains.
  int grains_only = view.contacts.ends_are_grains ? 1 : 0;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &grains_only, 1, MPI_INT, MPI_LAND, comm));
  ContactView all;
  all.ends_are_grains = grains_only != 0;
  all.value = out.value.data();
  all.count = out.value.size();
  all.spheres = out.spheres.data();
  all.ids = out.ids.data();
  all.on_host = true;
  return all;
}

}  // namespace granray::mpi::detail
