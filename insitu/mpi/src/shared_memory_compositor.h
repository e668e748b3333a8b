// Compositing among ranks that share one node's memory, with no pixel sent in a message: every
// rank puts what it drew into a POSIX shared-memory segment that all the ranks map, rank r then
// merges band r of the rows straight out of every rank's segment into rank 0's, and rank 0 copies
// the result into its image. Each rank reads about one image's depths whatever the rank count,
// and all its cores do it; a message would be copied twice by one core of MPI's shared-memory
// transport instead.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "granray/image.h"
#include "image_rect.h"

namespace granray::mpi::detail {

// One named POSIX shared-memory segment mapped into this process; unmapped when destroyed.
class MappedSegment {
 public:
  // Creates the segment with all of its pages reserved (a full /dev/shm shows here as an error,
  // not as a SIGBUS later). Throws Error naming the segment and the reason.
  static MappedSegment create(const std::string& name, std::size_t bytes);
  // Maps a segment another process created.
  static MappedSegment open(const std::string& name, std::size_t bytes);

  MappedSegment() = default;
  MappedSegment(MappedSegment&& other) noexcept;
  MappedSegment& operator=(MappedSegment&& other) noexcept;
  MappedSegment(const MappedSegment&) = delete;
  MappedSegment& operator=(const MappedSegment&) = delete;
  ~MappedSegment();

  unsigned char* data() const { return static_cast<unsigned char*>(address_); }

 private:
  void* address_ = nullptr;
  std::size_t bytes_ = 0;
};

// Stores this rank's writes to shared segments before the other ranks of `comm` read them, and
// loads theirs after: the barrier orders the processes, the fences the memory. Collective.
void synchronise(MPI_Comm comm);

// A number for naming segments that no other job or segment of this one uses: rank 0's process
// id and a count of the segments' owners it made, the same on every rank. Collective.
std::uint64_t segment_token(MPI_Comm comm);

// The background as compositing writes it.
struct BackgroundPixel {
  std::uint8_t rgb[3];
};

class SharedMemoryCompositor {
 public:
  // Collective over `comm`, whose ranks share one node (the caller groups them): makes this
  // rank's segment for images of `pixels` and maps every other rank's. Throws Error on every rank
  // alike when a segment cannot be made or mapped; nothing is left behind in /dev/shm either way.
  SharedMemoryCompositor(MPI_Comm comm, int width, int height);

  // Composites every rank's `image` (rgb, depth, hit_id) into rank 0's: all three, or with
  // `keep_hits` false the rgb alone (depth and hit_id left as rendered). Collective.
  // Reads this rank's image inside `drawn` alone.
  void composite(Image& image, const DrawnRegion& drawn, const BackgroundPixel& background,
                 MPI_Comm comm, bool keep_hits);

 private:
  int rank_ = 0, size_ = 1;
  int width_ = 0, height_ = 0;
  std::vector<MappedSegment> segments_;  // every rank's, this rank's own included
};

}  // namespace granray::mpi::detail
