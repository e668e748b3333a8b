// One source, two backends: kernel code is annotated with GRANRAY_HD, which becomes
// __host__ __device__ only under nvcc, so g++ compiles the very same functions for the CPU.
#pragma once

#if defined(__CUDACC__)
#define GRANRAY_HD __host__ __device__
#else
#define GRANRAY_HD
#endif

#define GRANRAY_HD_INLINE GRANRAY_HD inline
