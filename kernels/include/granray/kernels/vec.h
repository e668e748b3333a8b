// Minimal float vector math shared by both backends (no CUDA headers needed on the CPU).
#pragma once

#include <cfloat>
#include <cmath>

#include "granray/kernels/platform.h"

namespace granray {

struct Vec3 {
  float x, y, z;
};

// Layout-compatible with CUDA's float4 (x, y, z, radius), so a simulation's buffer is used as is.
struct alignas(16) Vec4 {
  float x, y, z, w;
};

GRANRAY_HD_INLINE Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
GRANRAY_HD_INLINE Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
GRANRAY_HD_INLINE Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
GRANRAY_HD_INLINE Vec3 operator*(float s, Vec3 a) { return a * s; }
GRANRAY_HD_INLINE float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
GRANRAY_HD_INLINE Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
GRANRAY_HD_INLINE Vec3 normalize(Vec3 a) { return a * (1.0f / sqrtf(dot(a, a))); }
// Component by component 1 / a (inf where a component is 0): the slab tests' reciprocal
// direction, one division per axis.
GRANRAY_HD_INLINE Vec3 reciprocal(Vec3 a) { return {1.0f / a.x, 1.0f / a.y, 1.0f / a.z}; }
GRANRAY_HD_INLINE Vec3 center_of(Vec4 s) { return {s.x, s.y, s.z}; }

GRANRAY_HD_INLINE float component(Vec3 a, int axis) {
  return axis == 0 ? a.x : (axis == 1 ? a.y : a.z);
}

// contract 1: a particle is drawn only with finite coordinates and a finite radius > 0.
// (|x| <= FLT_MAX is false for NaN and infinities and means the same on host and device.)
GRANRAY_HD_INLINE bool is_finite(float x) { return fabsf(x) <= FLT_MAX; }

// fminf and fmaxf, which ignore a NaN operand. g++ calls libm for them (9 % of the CPU backend's
// ray casting went to those calls); these compare inline on the host and give the same results,
// NaN included. The device has them as instructions.
GRANRAY_HD_INLINE float nan_ignoring_min(float a, float b) {
#if defined(__CUDA_ARCH__)
  return fminf(a, b);
#else
  return (a < b || b != b) ? a : b;
#endif
}
GRANRAY_HD_INLINE float nan_ignoring_max(float a, float b) {
#if defined(__CUDA_ARCH__)
  return fmaxf(a, b);
#else
  return (a > b || b != b) ? a : b;
#endif
}

GRANRAY_HD_INLINE bool is_renderable(Vec4 s) {
  return is_finite(s.x) && is_finite(s.y) && is_finite(s.z) && is_finite(s.w) && s.w > 0.0f;
}

}  // namespace granray
