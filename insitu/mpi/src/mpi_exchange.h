// Lists of values from every rank to every rank (lit frames across ranks), and the rank helpers
// they use.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "granray/errors.h"
#include "mpi_agree.h"

namespace granray::mpi::detail {

inline int rank_of(MPI_Comm comm) {
  int rank = 0;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}
inline int size_of(MPI_Comm comm) {
  int size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

// Every rank's lists to every rank, as raw bytes (one MPI_Alltoallv of counts, one of data):
// `packed` holds the lists rank after rank, `counts[r]` elements for rank r. Returns what this
// rank received, rank after rank, with each rank's count in `received`. Adds the bytes sent to
// `sent_bytes`.
template <class T>
inline std::vector<T> exchange_packed(const std::vector<T>& packed,
                                      const std::vector<std::size_t>& counts, MPI_Comm comm,
                                      std::vector<int>& received, std::uint64_t& sent_bytes) {
  const int size = static_cast<int>(counts.size());
  std::vector<int> send_counts(size), send_offsets(size), recv_counts(size), recv_offsets(size);
  std::size_t total = 0;
  for (int r = 0; r < size; ++r) {
    const std::size_t bytes = counts[r] * sizeof(T);
    if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
        total + bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw Error("granray: a lit frame across ranks would send more than 2 GiB in one exchange");
    }
    send_offsets[r] = static_cast<int>(total);
    send_counts[r] = static_cast<int>(bytes);
    total += bytes;
  }
  GRANRAY_MPI_CHECK(
      MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm));
  std::size_t in = 0;
  for (int r = 0; r < size; ++r) {
    recv_offsets[r] = static_cast<int>(in);
    in += static_cast<std::size_t>(recv_counts[r]);
    if (in > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw Error("granray: a lit frame across ranks would receive more than 2 GiB at once");
    }
  }
  std::vector<T> all(in / sizeof(T));
  GRANRAY_MPI_CHECK(MPI_Alltoallv(packed.data(), send_counts.data(), send_offsets.data(), MPI_BYTE,
                                  all.data(), recv_counts.data(), recv_offsets.data(), MPI_BYTE,
                                  comm));
  received.resize(size);
  for (int r = 0; r < size; ++r) received[r] = recv_counts[r] / static_cast<int>(sizeof(T));
  for (int r = 0; r < size; ++r) {
    if (r != rank_of(comm)) sent_bytes += static_cast<std::uint64_t>(send_counts[r]);
  }
  return all;
}

// The same for lists kept apart, `out[r]` for rank r.
template <class T>
inline std::vector<T> exchange(const std::vector<std::vector<T>>& out, MPI_Comm comm,
                               std::vector<int>& received, std::uint64_t& sent_bytes) {
  std::vector<std::size_t> counts(out.size());
  std::size_t total = 0;
  for (std::size_t r = 0; r < out.size(); ++r) total += counts[r] = out[r].size();
  std::vector<T> packed;
  packed.reserve(total);
  for (const std::vector<T>& list : out) packed.insert(packed.end(), list.begin(), list.end());
  return exchange_packed(packed, counts, comm, received, sent_bytes);
}

// Every rank's handle to memory it lets the host's other processes map (CUDA IPC), in rank
// order. Handles are alike in length on every rank of one CUDA build; a rank without one (it
// failed to share) passes an empty handle and the others get zeros of that length.
inline std::vector<std::vector<unsigned char>> every_rank_handle(std::vector<unsigned char> handle,
                                                                 MPI_Comm comm) {
  const int size = size_of(comm);
  int length = static_cast<int>(handle.size());
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &length, 1, MPI_INT, MPI_MAX, comm));
  handle.resize(static_cast<std::size_t>(length));
  std::vector<unsigned char> all(static_cast<std::size_t>(length) * size);
  GRANRAY_MPI_CHECK(
      MPI_Allgather(handle.data(), length, MPI_BYTE, all.data(), length, MPI_BYTE, comm));
  std::vector<std::vector<unsigned char>> handles(size);
  for (int q = 0; q < size; ++q) {
    handles[q].assign(all.begin() + std::ptrdiff_t(q) * length,
                      all.begin() + std::ptrdiff_t(q + 1) * length);
  }
  return handles;
}

}  // namespace granray::mpi::detail
