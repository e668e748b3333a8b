// The CPU backend's memory and executor (backend/thrust_backend.inl's contract): host memory,
// Thrust's OpenMP system, and the host's free memory. cpu_backend.cpp builds the pipeline on them.
#pragma once
#include <thrust/sort.h>
#include <thrust/system/omp/execution_policy.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "drawn_rows.h"
#include "granray/errors.h"
#include "granray/image.h"
#include "granray/kernels/shading.h"
#include "granray/particles.h"
#include "granray/pixel_rect.h"
#include "granray/renderer.h"
#include "granray/tiled_render.h"
#include "grid_layout.h"

namespace granray::cpu_backend {

constexpr int kStageMarks = 6;

struct Memory {
  static void* allocate(std::size_t bytes) {
    constexpr std::size_t kAlign = 64;
    void* p = std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void release(void* p) { std::free(p); }
};

// Host memory needs no mapping between processes here: compositing across ranks of the CPU
// backend goes through mpi::Compositor's shared-memory segments instead.
class PeerMemory {
 public:
  [[noreturn]] static std::vector<unsigned char> handle_of(void*) { refuse(); }
  explicit PeerMemory(const std::vector<unsigned char>&) { refuse(); }
  void* data() const { return nullptr; }

 private:
  [[noreturn]] static void refuse() {
    throw Error("granray: frame planes are shared between processes on the cuda backend only");
  }
};

// Physical memory: Linux overcommits, so a larger request would be killed later, not refused.
inline std::size_t default_memory_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return ~std::size_t{0};
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
}

// Pages the kernel has free now (page cache aside: a conservative figure).
inline std::size_t system_free_memory() { return host_memory_available(); }

// What a backend keeps between frames for its executor: here the stage time marks.
struct Scratch {
  std::chrono::steady_clock::time_point marks[kStageMarks];
};

class Executor {
 public:
  static constexpr MemorySpace native_space = MemorySpace::host;
  static constexpr const char* name = "cpu";
  // How the grid's cells and the screen tiles get their lists (backend/particle_grid.inl,
  // backend/screen_tile_lists.inl).
  static constexpr bool lists_by_sorting = false;
  // Every walk over the grid leaps over empty space by itself (walk_grown_cells and
  // walk_listed_spheres over a grid with clearance), runs whole for the batches. No tracer of its
  // own.
  static constexpr bool casts_by_leaping_tracer = false;
  // Primary rays through a grid with clearance start at their pixels' near bounds (NearBoundTracer)
  // wherever the grains occupy at most this share of their box: every such grid. On 2 cores,
  // 100,000 grains at 960 x 540, the heap's grid cast 1.9x, the pour's 2.4x, the hopper's 1.2x
  // faster (docs/benchmarks-log.md, "Primary rays from their near bounds").
  static constexpr double most_share_with_near_bounds = 1.0;
  // The path still's camera rays start at their near bounds (else they take the screen tiles)
  // where the grains occupy at most this share of their box: on 2 cores (20,000-100,000 grains,
  // 480 x 270, 16 paths) the pour's still 1.1-1.8x faster so, the heap's (share 0.35) 1.1x slower
  // (docs/benchmarks-log.md, "The path still's camera rays from their near bounds").
  static constexpr std::optional<double> most_share_with_path_near_bounds = 0.15;
  // The grids of bounce rays and of the path still: sized by the grains' box here. The occupied
  // volume's (the GPU's) did not win beyond the spread on 2 cores (docs/benchmarks-log.md, "Rays
  // that bounce, in cells by the occupied volume"); GRANRAY_BOUNCE_CELLS picks another.
  static constexpr detail::CellSizing bounce_cell_sizing = detail::CellSizing::by_box;
  // Ambient occlusion: a gather of the spheres near a shading point, then a short loop per
  // occlusion ray, casts ambient occlusion faster here than a walk per ray (docs/benchmarks.md).
  static constexpr bool gathers_nearby_spheres = true;
  // Metal and glass: depth first per pixel; level by level was slower here (a thread runs its
  // pixel's rays in turn anyway, and the lists cost passes; docs/benchmarks.md).
  static constexpr bool traces_bounces_by_level = false;
  // The path still in one pass, each pixel's paths one after another: a core runs one path at a
  // time, and the levels' lists would cost memory traffic for no lanes to fill.
  static constexpr bool traces_paths_by_level = false;
  // The path-traced still: coarse cells listing every grain they overlap, whose grains the walk
  // tests four at a time (kernels/sphere_batch.h); 16 % faster than the frames' grid here
  // (docs/benchmarks.md).
  static constexpr GridCells path_grid_cells = GridCells::overlaps;
  // Another rank's queries: one thread each, its rays in turn (apart, a blocked shadow ray's later
  // pieces would walk on where one thread stops at the first grain); no pieces.
  static constexpr bool answers_rays_apart = false;
  static constexpr int shadow_ray_pieces = 1;
  // A frame's drawn span in each row: a thread reads a row from both ends; a reduction by row
  // over every pixel took 70 ms of a 1080p frame here (docs/benchmarks.md).
  static constexpr bool spans_rows_in_turn = true;
  // The clearance field's passes along y and z: each thread sweeps runs of 32 blocks, a load or
  // two a block (backend/grid_clearance.inl).
  static constexpr bool sweeps_clearance_in_runs = true;
  static constexpr RenderMethod fastest_method = RenderMethod::tiles;

  Executor(void* /*cuda_stream*/, Scratch& scratch) : scratch_(&scratch) {}
  auto policy() const { return thrust::omp::par; }
  void synchronize() const {}

  void mark(int i) const { scratch_->marks[i] = std::chrono::steady_clock::now(); }
  double elapsed_ms(int from, int to) const {
    return std::chrono::duration<double, std::milli>(scratch_->marks[to] - scratch_->marks[from])
        .count();
  }

  // Rows handed out one at a time: a row of sky costs far less than a row of grains.
  template <class F>
  void for_each_pixel(int width, int height, const F& f) const {
#pragma omp parallel for schedule(dynamic, 1)
    for (int j = 0; j < height; ++j)
      for (int i = 0; i < width; ++i) f(i, j);
  }

  template <class F>
  void for_each_index(std::uint32_t count, const F& f) const {
    const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(dynamic, 64)
    for (std::int64_t k = 0; k < n; ++k) f(static_cast<std::uint32_t>(k));
  }

  template <class Array, class T>
  void upload(Array& dst, const T* src, std::size_t count) const {
    dst.resize(count);
    std::copy_n(src, count, dst.data());
  }
  template <class T>
  void download(const T* src, T* dst, std::size_t count) const {
    std::copy_n(src, count, dst);
  }
  // The pixels are in host memory already: nothing to copy on the side.
  std::shared_ptr<PendingPixels> download_later(const Rgb8*, std::size_t) const { return nullptr; }
  void wait_for_deferred_reads(const void*) const {}

  // A packed plane of `count` drawn pixels into their places in an image (drawn_rows.h).
  template <class T>
  void download_drawn(const T* packed, std::size_t count, T* image, std::size_t width,
                      const DrawnRegion& drawn, const std::vector<std::uint32_t>& offsets) const {
    detail::unpack_rows(packed, 0, count, image, width, drawn, offsets);
  }

 private:
  Scratch* scratch_;
};

}  // namespace granray::cpu_backend
