// The clearance field's passes along y and z (GridView::clearance; the pass along x reads the
// grid's cell offsets, backend/grid_clearance.inl): out(b) = min over the blocks q of b's line of
// max(|b - q|, in(q)), capped at kMostClearance. Two ways to the same field, written once for
// both backends: the CPU sweeps runs of blocks, the GPU takes a thread a block (the backend's
// Executor::sweeps_clearance_in_runs).
#pragma once

#include <cstdint>

#include "granray/kernels/grid_view.h"
#include "granray/kernels/platform.h"

namespace granray {

// The next pass of the Chebyshev distance over the blocks, along y or z: out(c) = min over the
// blocks q of c's line of max(|c - q|, in(q)), capped at kMostClearance, for a run of
// kClearanceRun blocks of one line per call. A block farther than kMostClearance - 1 cannot lower
// a capped distance, so a run sweeps its line forward from that far before it, then backward from
// that far after it, keeping for each value u the nearest block seen whose in(q) is at most u: a
// load or two a block, where a search of each one's neighbourhood loads 2 kMostClearance - 1 (the
// CPU's choice: each thread has many blocks to do).
constexpr int kClearanceRun = 32;
struct ClearanceAlongAxis {
  const std::uint8_t* in;
  std::uint8_t* out;
  std::uint32_t lines;   // lines of blocks along the axis
  std::uint32_t inner;   // lines whose first blocks are consecutive (the x of a y line, ...)
  std::uint32_t skip;    // blocks between the first blocks of lines `inner` apart
  std::uint32_t stride;  // blocks between a line's blocks
  int dim;               // blocks a line
  // Task t: run t / lines of line t % lines, so that neighbouring tasks read neighbouring blocks.
  GRANRAY_HD void operator()(std::uint32_t task) const {
    constexpr int values = kMostClearance;  // u = 0 .. kMostClearance - 1
    const std::uint32_t line = task % lines;
    const int first = static_cast<int>(task / lines) * kClearanceRun;
    const int last = (first + kClearanceRun < dim ? first + kClearanceRun : dim) - 1;
    const std::uint32_t base = line / inner * skip + line % inner;
    int nearest[values];
    for (int u = 0; u < values; ++u) nearest[u] = -4 * values;
    for (int p = first - (values - 1) > 0 ? first - (values - 1) : 0; p <= last; ++p) {
      const std::uint32_t c = base + static_cast<std::uint32_t>(p) * stride;
      const int v = in[c];
      int best = kMostClearance;
      for (int u = 0; u < values; ++u) {
        if (v <= u) nearest[u] = p;
        const int d = p - nearest[u] > u ? p - nearest[u] : u;
        best = d < best ? d : best;
      }
      if (p >= first) out[c] = static_cast<std::uint8_t>(best);
    }
    for (int u = 0; u < values; ++u) nearest[u] = dim + 4 * values;
    for (int p = last + (values - 1) < dim - 1 ? last + (values - 1) : dim - 1; p >= first; --p) {
      const std::uint32_t c = base + static_cast<std::uint32_t>(p) * stride;
      const int v = in[c];
      int best = kMostClearance;
      for (int u = 0; u < values; ++u) {
        if (v <= u) nearest[u] = p;
        const int d = nearest[u] - p > u ? nearest[u] - p : u;
        best = d < best ? d : best;
      }
      if (p <= last && best < out[c]) out[c] = static_cast<std::uint8_t>(best);
    }
  }
};

// The same pass, one block per call: out(c) from the blocks within kMostClearance - 1 of it, a
// load each. For the GPU, where runs of kClearanceRun blocks left all but a few thousand threads
// idle (the y and z passes 56 and 31 us of the 1 M-grain heap's grid on an H200).
struct ClearanceOfBlockAlongAxis {
  const std::uint8_t* in;
  std::uint8_t* out;
  std::uint32_t lines, inner, skip, stride;  // as ClearanceAlongAxis's
  int dim;
  // Task t: block t / lines of line t % lines, so that neighbouring tasks read neighbouring blocks.
  GRANRAY_HD void operator()(std::uint32_t task) const {
    const std::uint32_t line = task % lines;
    const int p = static_cast<int>(task / lines);
    const std::uint32_t base = line / inner * skip + line % inner;
    const int from = p - (kMostClearance - 1) > 0 ? p - (kMostClearance - 1) : 0;
    const int to = p + (kMostClearance - 1) < dim - 1 ? p + (kMostClearance - 1) : dim - 1;
    int best = kMostClearance;
    for (int q = from; q <= to; ++q) {
      const int v = in[base + static_cast<std::uint32_t>(q) * stride];
      const int apart = q > p ? q - p : p - q;
      const int d = apart > v ? apart : v;
      best = d < best ? d : best;
    }
    out[base + static_cast<std::uint32_t>(p) * stride] = static_cast<std::uint8_t>(best);
  }
};

}  // namespace granray
