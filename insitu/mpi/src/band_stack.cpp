#include "band_stack.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "granray/errors.h"
#include "mpi_agree.h"

namespace granray::mpi::detail {

namespace {

std::size_t cache_lines(std::size_t bytes) { return (bytes + 63) / 64 * 64; }

}  // namespace

void size_for_bands(Image& image, int width, int rows, bool with_hits) {
  const std::size_t pixels = std::size_t(width) * std::size_t(rows);
  image.pending.reset();
  image.width = width;
  image.height = rows;
  image.rgb.resize(pixels * 3);
  if (with_hits) {
    image.depth.resize(pixels);
    image.hit_id.resize(pixels);
  }
}

BandStack::BandStack(MPI_Comm comm, int width, int rows, bool with_hits)
    : width_(width), rows_(rows), with_hits_(with_hits) {
  int rank = 0;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const std::size_t pixels = std::size_t(width) * std::size_t(rows);
  depth_at_ = cache_lines(3 * pixels);
  id_at_ = cache_lines(depth_at_ + (with_hits ? sizeof(float) * pixels : 0));
  const std::size_t bytes =
      std::max<std::size_t>(64, id_at_ + (with_hits ? sizeof(std::uint64_t) * pixels : 0));
  const std::string name = "/granray-bands-" + std::to_string(segment_token(comm));
  bool ok = true;
  std::string error;
  if (rank == 0) {
    try {
      segment_ = MappedSegment::create(name, bytes);
    } catch (const Error& e) {
      ok = false;
      error = e.what();
    }
  }
  agree(ok, error, "making the bands' shared-memory segment", comm);
  if (rank != 0) {
    try {
      segment_ = MappedSegment::open(name, bytes);
    } catch (const Error& e) {
      ok = false;
      error = e.what();
    }
  }
  // Every rank has mapped it (or failed to): the name can go, the memory stays while mapped.
  GRANRAY_MPI_CHECK(MPI_Barrier(comm));
  if (rank == 0) shm_unlink(name.c_str());
  agree(ok, error, "mapping the bands' shared-memory segment", comm);
}

void BandStack::put(const Image& band, int y0) {
  const std::size_t at = std::size_t(y0) * std::size_t(width_), row = std::size_t(width_);
  unsigned char* base = segment_.data();
#pragma omp parallel for schedule(static)
  for (int y = 0; y < band.height; ++y) {
    const std::size_t from = std::size_t(y) * row, to = at + from;
    std::memcpy(base + 3 * to, band.rgb.data() + 3 * from, 3 * row);
    if (with_hits_) {
      std::memcpy(base + depth_at_ + sizeof(float) * to, band.depth.data() + from,
                  sizeof(float) * row);
      std::memcpy(base + id_at_ + sizeof(std::uint64_t) * to, band.hit_id.data() + from,
                  sizeof(std::uint64_t) * row);
    }
  }
}

void BandStack::take(Image& image, MPI_Comm comm) {
  synchronise(comm);
  int rank = 0;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  if (rank != 0) return;
  size_for_bands(image, width_, rows_, with_hits_);
  const std::size_t row = std::size_t(width_);
  const unsigned char* base = segment_.data();
#pragma omp parallel for schedule(static)
  for (int y = 0; y < rows_; ++y) {
    const std::size_t p = std::size_t(y) * row;
    std::memcpy(image.rgb.data() + 3 * p, base + 3 * p, 3 * row);
    if (with_hits_) {
      std::memcpy(image.depth.data() + p, base + depth_at_ + sizeof(float) * p,
                  sizeof(float) * row);
      std::memcpy(image.hit_id.data() + p, base + id_at_ + sizeof(std::uint64_t) * p,
                  sizeof(std::uint64_t) * row);
    }
  }
  // Rank 0 leaves the segment only for the next frame's collectives, so no rank writes the
  // next frame's bands into it before this copy is done.
}

}  // namespace granray::mpi::detail
