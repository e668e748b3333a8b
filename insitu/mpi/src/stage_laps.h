// Per-rank stage times of a frame across ranks, printed when asked (GRANRAY_STAGE_TIMES).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace granray::mpi::detail {

// With GRANRAY_STAGE_TIMES set, each rank prints how long each stage of its lit frame took
// (host time from the end of the stage before, waits on the GPU and the other ranks included):
// the breakdown behind docs/benchmarks.md's lit frames across ranks (by halo, gathered in bands).
class StageLaps {
 public:
  StageLaps() : on_(std::getenv("GRANRAY_STAGE_TIMES") != nullptr) {}
  void lap(const char* stage) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    line_ += std::string(line_.empty() ? "" : ", ") + stage + " " +
             std::to_string(std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }
  // A part of the last stage the renderer timed itself.
  void part(const char* name, double ms) {
    if (on_) line_ += std::string(" [") + name + " " + std::to_string(ms) + "]";
  }
  void print(int rank) const {
    if (on_) std::fprintf(stderr, "granray: lit stages, rank %d (ms): %s\n", rank, line_.c_str());
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::string line_;
};

}  // namespace granray::mpi::detail
