// One source, two backends: kernel code is annotated with GRANRAY_HD, which becomes
// __host__ __device__ only under nvcc, so g++ compiles the very same functions for the CPU.
#pragma once

#if defined(__CUDACC__)
#define GRANRAY_HD __host__ __device__
#else
#define GRANRAY_HD
#endif

#define GRANRAY_HD_INLINE GRANRAY_HD inline

// For the small functions of the per-pixel path that g++ would otherwise call out of line where
// the pixel kernel is large (with walls, see-through walls): the calls cost the CPU a third of
// a see-through frame's casting. nvcc inlines device functions anyway.
#if defined(__CUDA_ARCH__)
#define GRANRAY_HD_PIXEL_INLINE GRANRAY_HD inline
#else
#define GRANRAY_HD_PIXEL_INLINE GRANRAY_HD inline __attribute__((always_inline))
#endif

// Host code that GCC or Clang compiles for x86-64: there a kernel may be compiled a second time
// for AVX2 (GRANRAY_AVX2 on its functions) and picked at run time (avx2_kernel.h, SphereBatch8).
#if !defined(__CUDACC__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GRANRAY_AVX2_CODE 1
#define GRANRAY_AVX2 __attribute__((target("avx2")))
#else
#define GRANRAY_AVX2_CODE 0
#endif

// Asks for a loop of a constant trip count to be unrolled, so that arrays it indexes by its counter
// stay in registers on the GPU (GCC's own spelling on the CPU).
#if defined(__CUDACC__) || defined(__clang__)
#define GRANRAY_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define GRANRAY_UNROLL _Pragma("GCC unroll 8")
#else
#define GRANRAY_UNROLL
#endif

#include <cstdint>

namespace granray {

// Relaxed atomic add and subtract on both backends; they return the old value.
GRANRAY_HD_INLINE std::uint32_t atomic_fetch_add(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

// A relaxed load of a word other threads update atomically, on both backends.
GRANRAY_HD_INLINE std::uint32_t atomic_load_relaxed(const std::uint32_t* p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile std::uint32_t*>(p);
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

// Relaxed atomic minimum on both backends; returns the old value. On the CPU a compare-and-swap
// loop that stops as soon as the stored value is no larger (most calls store nothing).
GRANRAY_HD_INLINE std::uint32_t atomic_fetch_min(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicMin(p, v);
#else
  std::uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < old &&
         !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
#endif
}

// A flag many threads may set at once, each writing the same value: a relaxed store on both
// backends, with no read-modify-write.
GRANRAY_HD_INLINE void set_flag(std::uint8_t* p) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile std::uint8_t*>(p) = 1u;
#else
  __atomic_store_n(p, std::uint8_t{1}, __ATOMIC_RELAXED);
#endif
}

// Unsigned arithmetic wraps: adding 2^32 - v subtracts v.
GRANRAY_HD_INLINE std::uint32_t atomic_fetch_sub(std::uint32_t* p, std::uint32_t v) {
  return atomic_fetch_add(p, 0u - v);
}

// The first of n consecutive slots (n <= 2; for n = 0 none, and the value means nothing) of a
// list filled through `cursor`. On the GPU the lanes of a warp that call it together take theirs
// with one atomic add, in lane order: a warp's items stay side by side in the list and the
// counter sees a thirty-second of the adds. On the CPU a thread adds only what it takes.
GRANRAY_HD_INLINE std::uint32_t append_slots(std::uint32_t* cursor, std::uint32_t n) {
#if defined(__CUDA_ARCH__)
  const unsigned lanes = __activemask();
  unsigned below = 0;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  const unsigned one = __ballot_sync(lanes, n >= 1u), two = __ballot_sync(lanes, n >= 2u);
  const unsigned total = __popc(one) + __popc(two);
  const int leader = __ffs(lanes) - 1;
  std::uint32_t base = 0;
  if ((lanes & below) == 0u && total > 0u) base = atomicAdd(cursor, total);
  base = __shfl_sync(lanes, base, leader);
  return base + static_cast<std::uint32_t>(__popc(one & below) + __popc(two & below));
#else
  return n == 0u ? 0u : __atomic_fetch_add(cursor, n, __ATOMIC_RELAXED);
#endif
}

}  // namespace granray
