// The CUDA backend: the shared pipeline compiled by nvcc against Thrust's CUDA system.
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <map>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "cuda_memory.h"
#include "deferred_downloads.h"
#include "drawn_rows.h"
#include "granray/kernels/pixel_kernels.h"
#include "granray/kernels/shading.h"
#include "granray/particles.h"
#include "granray/pixel_rect.h"
#include "granray/renderer.h"
#include "grid_layout.h"

namespace granray::cuda_backend {

using Memory = detail::CudaMemory;

constexpr int kStageMarks = 6;

// Pixel kernels run in blocks of 8 x 16 pixels (warps of 8 x 4 neighbouring rays that walk the
// same cells), at least 10 blocks an SM (48 registers a thread): against no bound, the secondary
// rays' pass ran 19-20 % faster and the path-traced still 20 % (more warps to hide the grid's
// loads behind). The primary rays' kernels (a `trace` member) take blocks of 16 x 16 at 5 an SM
// (the same 48 registers): 5-7 % faster than 8 x 16, where the secondary rays' pass among walls
// was 8 % slower so. Kernels that walk the walls' tree themselves (a `walls` member that is
// present) lost 5 % at 48 registers (their stack spills): they keep blocks of 8 x 16 with no bound
// (docs/benchmarks.md). Their own launch rather than thrust::for_each: its kernel leaves the block
// size open, which caps a thread at 64 registers. The compile definitions GRANRAY_PIXEL_TILE_*,
// GRANRAY_PRIMARY_TILE_* and GRANRAY_WALL_TILE_* (_WIDTH, _HEIGHT, _MIN_BLOCKS) try other shapes
// and budgets (scripts/gpu-tiles.sh times them).
#ifndef GRANRAY_PIXEL_TILE_WIDTH
#define GRANRAY_PIXEL_TILE_WIDTH 8
#endif
#ifndef GRANRAY_PIXEL_TILE_HEIGHT
#define GRANRAY_PIXEL_TILE_HEIGHT 16
#endif
#ifndef GRANRAY_PIXEL_TILE_MIN_BLOCKS
#define GRANRAY_PIXEL_TILE_MIN_BLOCKS 10
#endif
#ifndef GRANRAY_PRIMARY_TILE_WIDTH
#define GRANRAY_PRIMARY_TILE_WIDTH 16
#endif
#ifndef GRANRAY_PRIMARY_TILE_HEIGHT
#define GRANRAY_PRIMARY_TILE_HEIGHT 16
#endif
#ifndef GRANRAY_PRIMARY_TILE_MIN_BLOCKS
#define GRANRAY_PRIMARY_TILE_MIN_BLOCKS 5
#endif
// Primary rays that leap over empty space (LeapingGridTracer) keep the primary rays' blocks with
// a budget of 64 registers: at 48 their walk spilled (ptxas -v).
#ifndef GRANRAY_LEAPING_TILE_MIN_BLOCKS
#define GRANRAY_LEAPING_TILE_MIN_BLOCKS 4
#endif
#ifndef GRANRAY_WALL_TILE_WIDTH
#define GRANRAY_WALL_TILE_WIDTH 8
#endif
#ifndef GRANRAY_WALL_TILE_HEIGHT
#define GRANRAY_WALL_TILE_HEIGHT 16
#endif
#ifndef GRANRAY_WALL_TILE_MIN_BLOCKS
#define GRANRAY_WALL_TILE_MIN_BLOCKS 1
#endif

// A pixel kernel's block: its shape and the least blocks an SM its launch bounds ask for.
template <int Width, int Height, int MinBlocks>
struct PixelTile {
  static constexpr int width = Width;
  static constexpr int height = Height;
  static constexpr int min_blocks = MinBlocks;
};
using PlainTile =
    PixelTile<GRANRAY_PIXEL_TILE_WIDTH, GRANRAY_PIXEL_TILE_HEIGHT, GRANRAY_PIXEL_TILE_MIN_BLOCKS>;
using PrimaryTile = PixelTile<GRANRAY_PRIMARY_TILE_WIDTH, GRANRAY_PRIMARY_TILE_HEIGHT,
                              GRANRAY_PRIMARY_TILE_MIN_BLOCKS>;
using LeapingTile = PixelTile<GRANRAY_PRIMARY_TILE_WIDTH, GRANRAY_PRIMARY_TILE_HEIGHT,
                              GRANRAY_LEAPING_TILE_MIN_BLOCKS>;
using WallTile =
    PixelTile<GRANRAY_WALL_TILE_WIDTH, GRANRAY_WALL_TILE_HEIGHT, GRANRAY_WALL_TILE_MIN_BLOCKS>;

// Whether a pixel kernel's functor walks the walls' tree itself (a `walls` member that is present).
template <class F, class = void>
struct WalksWalls : std::false_type {};
template <class F>
struct WalksWalls<F, std::void_t<decltype(std::declval<const F&>().walls)>>
    : std::bool_constant<std::decay_t<decltype(std::declval<const F&>().walls)>::present> {};

// Whether it casts primary rays (a `trace` member: RenderPixel, FindSurfaces).
template <class F, class = void>
struct CastsPrimaryRays : std::false_type {};
template <class F>
struct CastsPrimaryRays<F, std::void_t<decltype(std::declval<const F&>().trace)>> : std::true_type {
};

// Whether those rays leap over empty space (a `trace` member that is a LeapingGridTracer, or
// walks as one from its near bounds).
template <class F, class = void>
struct CastsLeapingRays : std::false_type {};
template <class F>
struct CastsLeapingRays<F, std::void_t<decltype(std::declval<const F&>().trace)>>
    : std::bool_constant<std::is_same_v<std::decay_t<decltype(std::declval<const F&>().trace)>,
                                        LeapingGridTracer> ||
                         std::is_same_v<std::decay_t<decltype(std::declval<const F&>().trace)>,
                                        NearBoundTracer<GridWalk::leaping>>> {};

template <class F>
using TileOf = std::conditional_t<
    WalksWalls<F>::value, WallTile,
    std::conditional_t<CastsLeapingRays<F>::value, LeapingTile,
                       std::conditional_t<CastsPrimaryRays<F>::value, PrimaryTile, PlainTile>>>;

// The most threads an SM of the architecture being compiled holds (Turing 1024; Ampere's and Ada's
// consumer parts and consumer Blackwell 1536): the launch bounds ask no more blocks than fit, so
// that ptxas does not drop them.
constexpr int most_threads_per_sm() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750 && __CUDA_ARCH__ < 800
  return 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || \
                                 __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
  return 1536;
#else
  return 2048;
#endif
}
template <int Threads, int MinBlocks>
constexpr int fitting_min_blocks = MinBlocks* Threads <= most_threads_per_sm()
                                       ? MinBlocks
                                       : most_threads_per_sm() / Threads;

template <class Tile, class F>
__global__ void __launch_bounds__(Tile::width* Tile::height,
                                  fitting_min_blocks<Tile::width * Tile::height, Tile::min_blocks>)
    for_each_pixel_kernel(int width, int height, F f) {
  const int i = static_cast<int>(blockIdx.x) * Tile::width + static_cast<int>(threadIdx.x);
  const int j = static_cast<int>(blockIdx.y) * Tile::height + static_cast<int>(threadIdx.y);
  if (i < width && j < height) f(i, j);
}

// A list of work items (bounce rays of a level), one a thread, in blocks of 128 whatever the
// pixel kernels' block. At least 8 blocks an SM (64 registers a thread): the bounce levels'
// trace ran 12-18 % faster so than with no bound (105 registers, a fifth of the SM's warps;
// docs/benchmarks.md). GRANRAY_INDEX_MIN_BLOCKS (a compile definition) tries other budgets.
#ifndef GRANRAY_INDEX_MIN_BLOCKS
#define GRANRAY_INDEX_MIN_BLOCKS 8
#endif
constexpr unsigned kIndexBlock = 128;
template <class F>
__global__ void __launch_bounds__(kIndexBlock,
                                  fitting_min_blocks<kIndexBlock, GRANRAY_INDEX_MIN_BLOCKS>)
    for_each_index_kernel(std::uint32_t count, F f) {
  const std::uint32_t k = blockIdx.x * kIndexBlock + threadIdx.x;
  if (k < count) f(k);
}

// Device memory for Thrust's and CUB's temporaries, kept across frames: after the first frame
// no call allocates. Blocks are reused best-fit; everything is freed with the backend.
class CachingAllocator {
 public:
  using value_type = char;
  CachingAllocator() = default;
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;
  ~CachingAllocator() {
    for (auto& [size, p] : free_) Memory::release(p);
    for (auto& [p, size] : used_) Memory::release(p);
  }
  char* allocate(std::ptrdiff_t bytes) {
    const auto size = static_cast<std::size_t>(bytes > 0 ? bytes : 1);
    auto it = free_.lower_bound(size);
    char* p = nullptr;
    std::size_t block = size;
    if (it != free_.end() && it->first <= 2 * size) {
      block = it->first;
      p = it->second;
      free_.erase(it);
    } else {
      p = static_cast<char*>(Memory::allocate(size));
    }
    used_[p] = block;
    return p;
  }
  void deallocate(char* p, std::size_t) {
    const auto it = used_.find(p);
    if (it == used_.end()) return;
    free_.emplace(it->second, p);
    used_.erase(it);
  }

 private:
  std::multimap<std::size_t, char*> free_;
  std::map<char*, std::size_t> used_;
};

// Two page-locked host buffers through which large downloads go chunk by chunk: the DMA engine
// fills one while the host threads copy the other out to the caller's (pageable) memory. A
// pageable cudaMemcpy goes through the driver's own staging, one chunk at a time, single-threaded.
class PinnedStaging {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t{8} << 20;
  PinnedStaging() = default;
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;
  ~PinnedStaging() {
    for (int b = 0; b < 2; ++b) {
      if (buffers_[b] != nullptr) cudaFreeHost(buffers_[b]);
      if (filled_[b] != nullptr) cudaEventDestroy(filled_[b]);
    }
  }

  // False when no page-locked memory could be had (a limit on locked memory): the caller then
  // copies directly. Tried once.
  bool available() {
    if (!tried_) {
      tried_ = true;
      for (int b = 0; b < 2; ++b) {
        if (cudaMallocHost(&buffers_[b], kChunkBytes) != cudaSuccess) buffers_[b] = nullptr;
      }
      if (buffers_[0] == nullptr || buffers_[1] == nullptr) return false;
      for (int b = 0; b < 2; ++b) {
        GRANRAY_CUDA_CHECK(cudaEventCreateWithFlags(&filled_[b], cudaEventDisableTiming));
      }
    }
    return filled_[1] != nullptr;
  }

  void download(const void* src, void* dst, std::size_t bytes, cudaStream_t stream) {
    auto* to = static_cast<char*>(dst);
    download(src, bytes, kChunkBytes, stream,
             [&](const char* chunk, std::size_t offset, std::size_t length) {
               detail::copy_in_threads(chunk, to + offset, length);
             });
  }

  // `bytes` from the device in chunks of `chunk_bytes` (at most kChunkBytes), each handed to
  // take(chunk, offset, length) while the next one is in flight on the DMA engine.
  template <class Take>
  void download(const void* src, std::size_t bytes, std::size_t chunk_bytes, cudaStream_t stream,
                Take take) {
    const auto* from = static_cast<const char*>(src);
    const std::size_t chunks = (bytes + chunk_bytes - 1) / chunk_bytes;
    const auto length = [&](std::size_t c) {
      return std::min(chunk_bytes, bytes - c * chunk_bytes);
    };
    const auto start = [&](std::size_t c) {
      GRANRAY_CUDA_CHECK(cudaMemcpyAsync(buffers_[c % 2], from + c * chunk_bytes, length(c),
                                         cudaMemcpyDeviceToHost, stream));
      GRANRAY_CUDA_CHECK(cudaEventRecord(filled_[c % 2], stream));
    };
    if (chunks > 0) start(0);
    for (std::size_t c = 0; c < chunks; ++c) {
      if (c + 1 < chunks) start(c + 1);  // its buffer was emptied in the previous round
      GRANRAY_CUDA_CHECK(cudaEventSynchronize(filled_[c % 2]));
      take(buffers_[c % 2], c * chunk_bytes, length(c));
    }
  }

 private:
  bool tried_ = false;
  char* buffers_[2] = {nullptr, nullptr};
  cudaEvent_t filled_[2] = {nullptr, nullptr};
};

// What the backend keeps between frames for its executor.
struct Scratch {
  CachingAllocator temporaries;
  PinnedStaging staging;
  std::shared_ptr<DeferredDownloads> deferred = std::make_shared<DeferredDownloads>();
  cudaEvent_t marks[kStageMarks] = {};
  Scratch() {
    for (auto& e : marks) GRANRAY_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~Scratch() {
    for (auto& e : marks) cudaEventDestroy(e);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

// Device memory of another process on this host, mapped by its CUDA IPC handle for as long as
// this object lives (backend/shared_planes.inl). Another GPU's memory is reached over its peer
// link; cudaIpcOpenMemHandle refuses where there is none.
class PeerMemory {
 public:
  static std::vector<unsigned char> handle_of(void* base) {
    cudaIpcMemHandle_t handle;
    GRANRAY_CUDA_CHECK(cudaIpcGetMemHandle(&handle, base));
    const auto* bytes = reinterpret_cast<const unsigned char*>(&handle);
    return std::vector<unsigned char>(bytes, bytes + sizeof handle);
  }

  explicit PeerMemory(const std::vector<unsigned char>& handle) {
    cudaIpcMemHandle_t h;
    if (handle.size() != sizeof h) throw Error("granray: a CUDA IPC handle of the wrong size");
    std::memcpy(&h, handle.data(), sizeof h);
    const cudaError_t status = cudaIpcOpenMemHandle(&data_, h, cudaIpcMemLazyEnablePeerAccess);
    if (status != cudaSuccess) {
      cudaGetLastError();  // not sticky: the process goes on compositing on the host
      data_ = nullptr;
      GRANRAY_CUDA_CHECK(status);
    }
  }
  PeerMemory(PeerMemory&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  PeerMemory& operator=(PeerMemory&&) = delete;
  PeerMemory(const PeerMemory&) = delete;
  PeerMemory& operator=(const PeerMemory&) = delete;
  ~PeerMemory() {
    if (data_ != nullptr) cudaIpcCloseMemHandle(data_);
  }

  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

// cudaMalloc refuses what the device cannot hold by itself; no extra cap by default.
inline std::size_t default_memory_limit() { return ~std::size_t{0}; }

// What the device could still give this process now.
inline std::size_t system_free_memory() {
  std::size_t free = 0, total = 0;
  GRANRAY_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

class Executor {
 public:
  static constexpr MemorySpace native_space = MemorySpace::device;
  static constexpr const char* name = "cuda";
  // How the grid's cells and the screen tiles get their lists (backend/particle_grid.inl,
  // backend/screen_tile_lists.inl).
  static constexpr bool lists_by_sorting = true;
  // The primary rays (unlit, and lit frames' surfaces) of a grid with clearance leap over empty
  // space by LeapingGridTracer, a kernel of its own, so that the dense box's keep the plain
  // loop's registers; the device's other walks leap where GRANRAY_DEVICE_WALKS_LEAP says
  // (kernels/dda.h).
  static constexpr bool casts_by_leaping_tracer = true;
  // Primary rays through a grid with clearance start at their pixels' near bounds only where the
  // grains occupy at most this share of their box: the bounds' pass costs 60-80 us at 1 M grains
  // on an H200 (each grain's footprint in double), which the pour (share under 1/8) wins back four
  // times over and the hopper (0.19) and the heap (0.35) do not (docs/benchmarks-log.md, "Primary
  // rays from their near bounds").
  static constexpr double most_share_with_near_bounds = 0.15;
  // The path still's camera rays walk the grid from the eye, never from their near bounds: a
  // still kernel with a camera tracer of its own took 1.3-1.5x as long on the pour, the hopper and
  // the heap (1 M grains, 1080p, 64 paths; docs/benchmarks-log.md, "The path still's camera rays
  // from their near bounds").
  static constexpr std::optional<double> most_share_with_path_near_bounds = std::nullopt;
  // The grids of bounce rays and of the path still: sized by the occupied volume, as the frames'.
  // Once walks leapt over empty space, the finer cells made the pour's path still 1.73x and the
  // hopper's 1.23x faster than the box's on an H200 (docs/benchmarks-log.md, "Rays that bounce, in
  // cells by the occupied volume"); finer still, or coarser, were slower ("Finer cells for rays
  // that bounce, measured and not taken").
  static constexpr detail::CellSizing bounce_cell_sizing = detail::CellSizing::by_occupied_volume;
  // 1 M dense grains at 1080p: grid 0.25 ms, tiles 0.46 ms with their binning (docs/benchmarks.md,
  // "Screen tiles").
  // Ambient occlusion: a walk per occlusion ray: a gathered list would live in local memory.
  static constexpr bool gathers_nearby_spheres = false;
  // A point light's shadow rays read columns along it (backend/light_column_lists.inl) when the
  // frame casts at least this many per grid reference: fewer do not repay the build's sorts.
  static constexpr std::uint64_t least_shadow_rays_per_column_reference = 32;
  // Metal and glass two or more bounces deep: level by level, so that no lane of a warp idles
  // while another walks its glass grain's tree of rays (docs/benchmarks.md).
  static constexpr bool traces_bounces_by_level = true;
  // The path still level by level (kernels/path_levels.h): in one pass a warp's lanes wait on
  // each other at every branch of every surface (6 of 32 active on the pour's still); level by
  // level the pour's still took 1.35x less time on an H200 (docs/benchmarks-log.md).
  static constexpr bool traces_paths_by_level = true;
  // The path-traced still walks the frames' grid: a thread tests one grain at a time.
  static constexpr GridCells path_grid_cells = GridCells::centres;
  // Another rank's queries: every ray in a thread of its own, the shadow ray in 32 pieces
  // (lit_exchange.h), not one thread per query while the rest of the GPU idles.
  static constexpr bool answers_rays_apart = true;
  static constexpr int shadow_ray_pieces = 32;
  // A frame's drawn span in each row: a reduction by row over every pixel (coalesced), not a
  // thread per row.
  static constexpr bool spans_rows_in_turn = false;
  // The clearance field's passes along y and z: a thread a block (backend/grid_clearance.inl);
  // in runs of 32 blocks they left most of the GPU idle.
  static constexpr bool sweeps_clearance_in_runs = false;
  static constexpr RenderMethod fastest_method = RenderMethod::grid;

  Executor(void* cuda_stream, Scratch& scratch)
      : stream_(static_cast<cudaStream_t>(cuda_stream)), scratch_(&scratch) {}
  // No synchronisation after each algorithm: the frame synchronises once, where it needs a
  // result, and the host would otherwise leave the GPU idle between the grid build's kernels.
  auto policy() const { return thrust::cuda::par_nosync(scratch_->temporaries).on(stream_); }
  void synchronize() const { GRANRAY_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  // Stage times from CUDA events on the stream; elapsed_ms needs the stream synchronized.
  void mark(int i) const { GRANRAY_CUDA_CHECK(cudaEventRecord(scratch_->marks[i], stream_)); }
  double elapsed_ms(int from, int to) const {
    float ms = 0.0f;
    GRANRAY_CUDA_CHECK(cudaEventElapsedTime(&ms, scratch_->marks[from], scratch_->marks[to]));
    return ms;
  }

  // CUB's radix sort over only the key bits [begin_bit, end_bit) that carry an order (cell
  // indices; a tile entry's tile and bound), temporaries cached. Returns whichever pair of arrays,
  // in or out, holds the sorted result.
  template <class Key>
  std::pair<Key*, std::uint32_t*> sort_pairs(Key* keys_in, std::uint32_t* values_in, Key* keys_out,
                                             std::uint32_t* values_out, std::size_t count,
                                             int end_bit, int begin_bit = 0) const {
    if (count > static_cast<std::size_t>(INT_MAX)) {
      thrust::sort_by_key(policy(), keys_in, keys_in + count, values_in);
      return {keys_in, values_in};
    }
    const int n = static_cast<int>(count);
    std::size_t bytes = 0;
    GRANRAY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in,
                                                       values_out, n, begin_bit, end_bit, stream_));
    char* temp = scratch_->temporaries.allocate(static_cast<std::ptrdiff_t>(bytes));
    const cudaError_t status = cub::DeviceRadixSort::SortPairs(
        temp, bytes, keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit, stream_);
    scratch_->temporaries.deallocate(temp, bytes);
    GRANRAY_CUDA_CHECK(status);
    return {keys_out, values_out};
  }

  template <class F>
  void for_each_pixel(int width, int height, const F& f) const {
    if (width <= 0 || height <= 0) return;
    using Tile = TileOf<F>;
    const dim3 block(Tile::width, Tile::height);
    const dim3 tiles((static_cast<unsigned>(width) + Tile::width - 1) / Tile::width,
                     (static_cast<unsigned>(height) + Tile::height - 1) / Tile::height);
    for_each_pixel_kernel<Tile><<<tiles, block, 0, stream_>>>(width, height, f);
    GRANRAY_CUDA_CHECK(cudaGetLastError());
  }

  template <class F>
  void for_each_index(std::uint32_t count, const F& f) const {
    if (count == 0) return;
    for_each_index_kernel<<<(count + kIndexBlock - 1) / kIndexBlock, kIndexBlock, 0, stream_>>>(
        count, f);
    GRANRAY_CUDA_CHECK(cudaGetLastError());
  }

  template <class Array, class T>
  void upload(Array& dst, const T* src, std::size_t count) const {
    dst.resize(count);
    GRANRAY_CUDA_CHECK(
        cudaMemcpyAsync(dst.data(), src, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  // Large downloads (images) go through pinned staging, small ones (counts) directly.
  template <class T>
  void download(const T* src, T* dst, std::size_t count) const {
    const std::size_t bytes = count * sizeof(T);
    if (bytes >= PinnedStaging::kChunkBytes / 4 && scratch_->staging.available()) {
      scratch_->staging.download(src, dst, bytes, stream_);
      return;
    }
    GRANRAY_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
    synchronize();
  }
  // The image's pixels copied on the side while the simulation goes on (RenderOptions::
  // defer_pixels); null when they must be copied at once.
  std::shared_ptr<PendingPixels> download_later(const Rgb8* src, std::size_t count) const {
    return scratch_->deferred->start(src, count * sizeof(Rgb8), stream_);
  }
  // The frame's stream waits until the last deferred copy from `pixels` has read them.
  void wait_for_deferred_reads(const void* pixels) const {
    scratch_->deferred->fence(stream_, pixels);
  }

  // A packed plane of `count` drawn pixels into their places in a host image (drawn_rows.h).
  // Always through the pinned chunks when there are any: the runs land apart from each other, so
  // even a small plane would otherwise need a host buffer of its own every frame.
  template <class T>
  void download_drawn(const T* packed, std::size_t count, T* image, std::size_t width,
                      const DrawnRegion& drawn, const std::vector<std::uint32_t>& offsets) const {
    const std::size_t bytes = count * sizeof(T);
    if (scratch_->staging.available()) {
      const std::size_t chunk_bytes = PinnedStaging::kChunkBytes / sizeof(T) * sizeof(T);
      scratch_->staging.download(packed, bytes, chunk_bytes, stream_,
                                 [&](const char* chunk, std::size_t offset, std::size_t length) {
                                   detail::unpack_rows(reinterpret_cast<const T*>(chunk),
                                                       offset / sizeof(T), length / sizeof(T),
                                                       image, width, drawn, offsets);
                                 });
      return;
    }
    std::vector<T> host(count);
    GRANRAY_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), packed, bytes, cudaMemcpyDeviceToHost, stream_));
    synchronize();
    detail::unpack_rows(host.data(), 0, count, image, width, drawn, offsets);
  }

 private:
  cudaStream_t stream_;
  Scratch* scratch_;
};

}  // namespace granray::cuda_backend

#define GRANRAY_BACKEND_NAMESPACE cuda_backend
#include "backend/thrust_backend.inl"
#undef GRANRAY_BACKEND_NAMESPACE

namespace granray::detail {

std::unique_ptr<Backend> make_cuda_backend() {
  int device = 0;
  GRANRAY_CUDA_CHECK(cudaGetDevice(&device));
  return std::make_unique<cuda_backend::ThrustBackend>();
}

int cuda_runtime_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

bool cuda_runtime_has_device() { return cuda_runtime_device_count() > 0; }

void cuda_runtime_use_device(int index) {
  const cudaError_t status = cudaSetDevice(index);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError("granray: cudaSetDevice(" + std::to_string(index) +
                      ") failed: " + cudaGetErrorString(status));
  }
}

}  // namespace granray::detail
