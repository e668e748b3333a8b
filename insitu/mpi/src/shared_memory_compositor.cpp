#include "shared_memory_compositor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "granray/errors.h"
#include "granray/insitu/mpi_frame.h"
#include "mpi_agree.h"

namespace granray::mpi::detail {

namespace {

std::string reason(int error) { return std::strerror(error); }

// Where each plane of an image lies in a segment: each row's drawn span first, then depths, ids
// and colours, each on its own cache lines. Rank 0's segment holds a second image after its
// own, the composited one.
struct Layout {
  std::size_t depth, id, rgb, bytes;
  Layout(int width, int height) {
    const auto align = [](std::size_t n) { return (n + 63) / 64 * 64; };
    const std::size_t pixels = std::size_t(width) * std::size_t(height);
    depth = align(sizeof(Rect) * std::size_t(height));
    id = align(depth + sizeof(float) * pixels);
    rgb = align(id + sizeof(std::uint64_t) * pixels);
    bytes = align(rgb + 3 * pixels);
  }
};

struct Planes {
  Rect* spans;  // per image row
  float* depth;
  std::uint64_t* id;
  std::uint8_t* rgb;
};

Planes planes(unsigned char* base, const Layout& layout) {
  return {reinterpret_cast<Rect*>(base), reinterpret_cast<float*>(base + layout.depth),
          reinterpret_cast<std::uint64_t*>(base + layout.id), base + layout.rgb};
}

std::string segment_name(std::uint64_t token, int rank) {
  return "/granray-" + std::to_string(token) + "-" + std::to_string(rank);
}

}  // namespace

void synchronise(MPI_Comm comm) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  GRANRAY_MPI_CHECK(MPI_Barrier(comm));
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

std::uint64_t segment_token(MPI_Comm comm) {
  static std::atomic<std::uint32_t> made{0};
  std::uint64_t token = (static_cast<std::uint64_t>(getpid()) << 20) | (made++ & 0xfffff);
  GRANRAY_MPI_CHECK(MPI_Bcast(&token, 1, MPI_UINT64_T, 0, comm));
  return token;
}

MappedSegment MappedSegment::create(const std::string& name, std::size_t bytes) {
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) throw Error("granray: shared memory " + name + ": " + reason(errno));
  int error = ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? 0 : errno;
  if (error == 0) error = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  void* address = nullptr;
  if (error == 0) {
    address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (address == MAP_FAILED) error = errno;
  }
  close(fd);
  if (error != 0) {
    shm_unlink(name.c_str());
    throw Error("granray: shared memory " + name + " of " + std::to_string(bytes) +
                " bytes: " + reason(error));
  }
  MappedSegment segment;
  segment.address_ = address;
  segment.bytes_ = bytes;
  return segment;
}

MappedSegment MappedSegment::open(const std::string& name, std::size_t bytes) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) throw Error("granray: shared memory " + name + ": " + reason(errno));
  void* address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int error = address == MAP_FAILED ? errno : 0;
  close(fd);
  if (error != 0) throw Error("granray: shared memory " + name + ": " + reason(error));
  MappedSegment segment;
  segment.address_ = address;
  segment.bytes_ = bytes;
  return segment;
}

MappedSegment::MappedSegment(MappedSegment&& other) noexcept
    : address_(std::exchange(other.address_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

MappedSegment& MappedSegment::operator=(MappedSegment&& other) noexcept {
  if (this != &other) {
    if (address_ != nullptr) munmap(address_, bytes_);
    address_ = std::exchange(other.address_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

MappedSegment::~MappedSegment() {
  if (address_ != nullptr) munmap(address_, bytes_);
}

SharedMemoryCompositor::SharedMemoryCompositor(MPI_Comm comm, int width, int height)
    : width_(width), height_(height) {
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank_));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size_));

  const std::uint64_t token = segment_token(comm);
  const Layout layout(width, height);
  const auto bytes_of = [&](int rank) { return layout.bytes * (rank == 0 ? 2 : 1); };

  segments_.resize(size_);
  const std::string mine = segment_name(token, rank_);
  bool ok = true;
  std::string error;
  try {
    segments_[rank_] = MappedSegment::create(mine, bytes_of(rank_));
  } catch (const Error& e) {
    ok = false;
    error = e.what();
  }
  try {
    agree(ok, error, "making the shared-memory segments", comm);
  } catch (const Error&) {
    if (ok) shm_unlink(mine.c_str());  // made here, but another rank's failed
    throw;
  }
  try {
    for (int q = 0; q < size_; ++q) {
      if (q != rank_) segments_[q] = MappedSegment::open(segment_name(token, q), bytes_of(q));
    }
  } catch (const Error& e) {
    ok = false;
    error = e.what();
  }
  // Every rank has mapped every segment (or failed to): the names can go, the memory stays
  // while mapped, and a crash leaves nothing behind.
  GRANRAY_MPI_CHECK(MPI_Barrier(comm));
  shm_unlink(mine.c_str());
  agree(ok, error, "mapping the shared-memory segments", comm);
}

void SharedMemoryCompositor::composite(Image& image, const DrawnRegion& drawn,
                                       const BackgroundPixel& background, MPI_Comm comm,
                                       bool keep_hits) {
  const Layout layout(width_, height_);
  const int width = image.width, height = image.height;
  const auto row = [&](int y) { return std::size_t(y) * width; };

  // This rank's drawn spans and their pixels into its segment.
  const Planes mine = planes(segments_[rank_].data(), layout);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < height; ++y) {
    const Rect span = drawn.row(y);
    mine.spans[y] = span;
    if (span.empty()) continue;
    const std::size_t p = row(y) + span.x0, length = span.x1 - span.x0;
    std::memcpy(mine.depth + p, image.depth.data() + p, length * sizeof(float));
    std::memcpy(mine.id + p, image.hit_id.data() + p, length * sizeof(std::uint64_t));
    std::memcpy(mine.rgb + 3 * p, image.rgb.data() + 3 * p, 3 * length);
  }
  synchronise(comm);

  // Band `rank` of the rows, merged from every rank's segment into rank 0's second image.
  std::vector<Planes> in(size_);
  for (int q = 0; q < size_; ++q) in[q] = planes(segments_[q].data(), layout);
  const Planes out = planes(segments_[0].data() + layout.bytes, layout);
  const int lo = static_cast<int>(static_cast<long long>(height) * rank_ / size_);
  const int hi = static_cast<int>(static_cast<long long>(height) * (rank_ + 1) / size_);
#pragma omp parallel
  {
    // Without hits for rank 0, a row's nearest depths and ids stay in this thread's own memory.
    std::vector<float> row_depth(keep_hits ? 0 : width);
    std::vector<std::uint64_t> row_id(keep_hits ? 0 : width);
#pragma omp for schedule(static)
    for (int y = lo; y < hi; ++y) {
      float* depth = keep_hits ? out.depth + row(y) : row_depth.data();
      std::uint64_t* id = keep_hits ? out.id + row(y) : row_id.data();
      std::uint8_t* rgb = out.rgb + 3 * row(y);
      for (int x = 0; x < width; ++x) {
        depth[x] = INFINITY;
        id[x] = ~std::uint64_t{0};
        std::memcpy(rgb + 3 * x, background.rgb, 3);
      }
      for (int q = 0; q < size_; ++q) {
        const Rect r = in[q].spans[y];
        if (r.empty()) continue;
        const float* their_depth = in[q].depth + row(y);
        const std::uint64_t* their_id = in[q].id + row(y);
        const std::uint8_t* their_rgb = in[q].rgb + 3 * row(y);
        for (int x = r.x0; x < r.x1; ++x) {
          if (!nearer(their_depth[x], their_id[x], depth[x], id[x])) continue;
          depth[x] = their_depth[x];
          id[x] = their_id[x];
          std::memcpy(rgb + 3 * x, their_rgb + 3 * x, 3);
        }
      }
    }
  }
  synchronise(comm);
  if (rank_ != 0) return;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < height; ++y) {
    if (keep_hits) {
      std::memcpy(image.depth.data() + row(y), out.depth + row(y), width * sizeof(float));
      std::memcpy(image.hit_id.data() + row(y), out.id + row(y), width * sizeof(std::uint64_t));
    }
    std::memcpy(image.rgb.data() + 3 * row(y), out.rgb + 3 * row(y), 3 * std::size_t(width));
  }
}

}  // namespace granray::mpi::detail
