#include "mpi_contacts.h"

#include <cmath>
#include <limits>
#include <string>

#include "granray/errors.h"
#include "mpi_agree.h"

namespace granray::mpi::detail {
namespace {

// This rank's pairs, whole.
GatheredContacts own_pairs(const ParticleView& view) {
  const ContactView& c = view.contacts;
  GatheredContacts mine;
  if (c.count == 0) return mine;
  const bool host = c.on_host || view.space == MemorySpace::host;
  const bool by_index = c.spheres == nullptr;
  if (!host || (by_index && view.space != MemorySpace::host)) {
    throw ConfigError(
        "[insitu.contacts]: across ranks the contact pairs (and, by index, the particles) are "
        "gathered in host memory; this rank passed them in device memory");
  }
  mine.spheres.resize(2 * c.count);
  mine.ids.resize(2 * c.count);
  mine.value.assign(c.value, c.value + c.count);
  if (!by_index) {
    mine.spheres.assign(c.spheres, c.spheres + 2 * c.count);
    mine.ids.assign(c.ids, c.ids + 2 * c.count);
    return mine;
  }
  const Vec4 broken{NAN, NAN, NAN, 0.0f};
  for (std::size_t k = 0; k < c.count; ++k) {
    const std::uint32_t grain[2] = {c.first[k], c.second[k]};
    for (int side = 0; side < 2; ++side) {
      const std::uint32_t i = grain[side];
      const bool known = i < view.count;
      mine.spheres[2 * k + side] = known ? view.xyzr[i] : broken;
      mine.ids[2 * k + side] = !known                ? std::numeric_limits<std::uint64_t>::max()
                               : view.ids != nullptr ? view.ids[i]
                                                     : view.id_offset + i;
    }
  }
  return mine;
}

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

ContactView gather_contacts(MPI_Comm comm, const ParticleView& view, GatheredContacts& out) {
  GatheredContacts mine;
  agreed_step("gathering the contact pairs", comm, [&] { mine = own_pairs(view); });
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
  ContactView all;
  all.value = out.value.data();
  all.count = out.value.size();
  all.spheres = out.spheres.data();
  all.ids = out.ids.data();
  all.on_host = true;
  return all;
}

}  // namespace granray::mpi::detail
