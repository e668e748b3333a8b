// The CPU's path-traced still compiled a second time for AVX2, picked at run time: the library is
// built for the x86-64 baseline (SSE2) so that it runs on any x86-64 CPU, and a kernel wrapped in
// Avx2Kernel has every call below it inlined (`flatten`) and compiled with AVX2 encodings. AVX2
// without FMA, and no contraction: every operation rounds as in the baseline build, so both give
// the same bits (PathTraceTest.Avx2KernelGivesTheBaselineImage). GRANRAY_CPU_AVX2=0 turns it off.
#pragma once

#include "granray/kernels/platform.h"

#if GRANRAY_AVX2_CODE
#include <cstdlib>
#include <cstring>
#endif

namespace granray {

#if GRANRAY_AVX2_CODE
template <class Kernel>
struct Avx2Kernel {
  Kernel kernel;
  GRANRAY_AVX2 __attribute__((flatten)) void operator()(int i, int j) const { kernel(i, j); }
};

// Whether this CPU runs AVX2 and GRANRAY_CPU_AVX2 is not "0".
inline bool avx2_kernels_on() {
  static const bool supported = __builtin_cpu_supports("avx2");
  const char* choice = std::getenv("GRANRAY_CPU_AVX2");
  return supported && !(choice != nullptr && std::strcmp(choice, "0") == 0);
}
#endif

}  // namespace granray
