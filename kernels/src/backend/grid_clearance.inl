// The clearance of a grid's blocks of cells (grid_view.h, GridView::clearance): the field the
// walks leap over empty space by, measured from the built cell offsets, and the arrays that hold
// it. Part of the backend (thrust_backend.inl); ParticleGrid owns one.
#pragma once

#include <vector>

#include "backend_prelude.inl"
#include "granray/kernels/clearance_passes.h"
#include "granray/kernels/grid_view.h"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The largest occupied share (the estimate's) of the grains' box for which a grid measures its
// clearance: the heap (0.35), the hopper (0.19) and the pour (under 1/8) leap; the drum
// (0.64) and the gases (about 1), whose walks leapt little and, in the first leaping kernel, cast
// 5-28 % slower on an H200, walk every cell (docs/benchmarks-log.md).
constexpr double kMostShareWithClearance = 0.5;

// Each block's clearance along x (GridView::clearance): how many blocks, at most
// kMostClearance, lie between it and the nearest block of its row of blocks with a listing cell.
// The first of the three passes of the Chebyshev distance, read from the built cell offsets:
// along a row of cells they never decrease, so cells [a, b] of a row list nothing exactly when
// offsets[a] == offsets[b + 1], and the distance is found by halving.
struct ClearanceAlongRows {
  GridGeometry geometry;
  const std::uint32_t* offsets;
  std::uint8_t* clearance;
  int blocks_x, blocks_y;
  GRANRAY_HD void operator()(std::uint32_t b) const {
    const int bx = static_cast<int>(b % static_cast<std::uint32_t>(blocks_x));
    const int by = static_cast<int>(b / static_cast<std::uint32_t>(blocks_x) %
                                    static_cast<std::uint32_t>(blocks_y));
    const int bz = static_cast<int>(b / static_cast<std::uint32_t>(blocks_x * blocks_y));
    const int last_x = geometry.dims[0] - 1;
    const int y_end = min_int((by + 1) * kClearanceBlock, geometry.dims[1]);
    const int z_end = min_int((bz + 1) * kClearanceBlock, geometry.dims[2]);
    // Whether a cell of the block's rows within r blocks of it along x lists a sphere.
    const auto listed_within = [&](int r) {
      const int from = max_int((bx - r) * kClearanceBlock, 0);
      const int to = min_int((bx + r + 1) * kClearanceBlock - 1, last_x);
      for (int z = bz * kClearanceBlock; z < z_end; ++z) {
        for (int y = by * kClearanceBlock; y < y_end; ++y) {
          if (offsets[cell_index(geometry, from, y, z)] !=
              offsets[cell_index(geometry, to, y, z) + 1]) {
            return true;
          }
        }
      }
      return false;
    };
    // The smallest r with a listing cell within r blocks (listed_within grows with r).
    int lo = 0, hi = kMostClearance - 1;
    if (!listed_within(hi)) {
      lo = kMostClearance;
    } else {
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (listed_within(mid)) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
    }
    clearance[b] = static_cast<std::uint8_t>(lo);
  }
  GRANRAY_HD static int min_int(int a, int b) { return a < b ? a : b; }
  GRANRAY_HD static int max_int(int a, int b) { return a > b ? a : b; }
};

class GridClearance {
 public:
  explicit GridClearance(detail::MemoryAccount& account)
      : field_(account, "grid blocks' clearance"),
        pass_(account, "grid blocks' clearance, a pass") {}

  // The field of the grid `g` whose cell offsets are `offsets`, for grains that occupy the share
  // `occupied` of their box (none above kMostShareWithClearance): the Chebyshev distance to the
  // nearest block with a listing cell, one axis at a time (x, then y, then z).
  template <class E>
  void measure(const E& exec, const GridGeometry& g, const std::uint32_t* offsets,
               double occupied) {
    measured_ = occupied <= kMostShareWithClearance;
    if (!measured_) {
      field_.resize(0);
      pass_.resize(0);
      return;
    }
    const int blocks[3] = {clearance_blocks(g.dims[0]), clearance_blocks(g.dims[1]),
                           clearance_blocks(g.dims[2])};
    const std::uint32_t row = static_cast<std::uint32_t>(blocks[0]);
    const std::uint32_t layer = row * static_cast<std::uint32_t>(blocks[1]);
    const std::uint32_t count = layer * static_cast<std::uint32_t>(blocks[2]);
    field_.resize(count);
    pass_.resize(count);
    auto policy = exec.policy();
    thrust::for_each_n(policy, Index(0), count,
                       ClearanceAlongRows{g, offsets, field_.data(), blocks[0], blocks[1]});
    const std::uint32_t y_lines = row * static_cast<std::uint32_t>(blocks[2]);
    along_axis(exec, field_.data(), pass_.data(), y_lines, row, layer, row, blocks[1]);
    along_axis(exec, pass_.data(), field_.data(), layer, layer, 0, layer, blocks[2]);
  }

  // The field in `view`, when the last grid measured one.
  void show_in(GridView& view) const {
    if (measured_) set_clearance(view, field_.data());
  }

  // The field in host memory (empty when none was measured).
  template <class E>
  void download(const E& exec, std::vector<std::uint8_t>& to) const {
    to.clear();
    if (!measured_) return;
    to.resize(field_.size());
    exec.download(field_.data(), to.data(), field_.size());
  }

  // `bytes` of scratch before the grid is built (the occupancy estimate's flags), which the next
  // measure() overwrites.
  std::uint8_t* scratch(std::size_t bytes) {
    field_.resize(bytes);
    return field_.data();
  }

 private:
  // A pass along y or z (ClearanceAlongAxis's arguments), in runs or a block at a time, as the
  // backend says.
  template <class E>
  static void along_axis(const E& exec, const std::uint8_t* in, std::uint8_t* out,
                         std::uint32_t lines, std::uint32_t inner, std::uint32_t skip,
                         std::uint32_t stride, int dim) {
    if constexpr (E::sweeps_clearance_in_runs) {
      const auto runs = static_cast<std::uint32_t>((dim + kClearanceRun - 1) / kClearanceRun);
      thrust::for_each_n(exec.policy(), Index(0), lines * runs,
                         ClearanceAlongAxis{in, out, lines, inner, skip, stride, dim});
    } else {
      thrust::for_each_n(exec.policy(), Index(0), lines * static_cast<std::uint32_t>(dim),
                         ClearanceOfBlockAlongAxis{in, out, lines, inner, skip, stride, dim});
    }
  }

  Array<std::uint8_t> field_;
  Array<std::uint8_t> pass_;  // the y pass's output, the z pass's input
  bool measured_ = false;     // the frames' walks leap by field_
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
