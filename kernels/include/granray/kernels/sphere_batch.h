// A cell's spheres tested four at a time on the CPU (SSE2, the x86-64 baseline). Each lane does
// the operations of sphere_entry_distance (intersect.h) or blocks (occlusion.h) in the same order,
// IEEE single precision without contraction, so a lane's answer has the same bits as the scalar
// test's: the grid, the reference and the GPU still agree. The device tests one sphere a thread.
#pragma once

#include <cstdint>

#include "granray/kernels/platform.h"
#include "granray/kernels/ray.h"
#include "granray/kernels/vec.h"

#if defined(__SSE2__) && !defined(__CUDACC__)
#define GRANRAY_SPHERE_BATCH 1
#include <xmmintrin.h>
#else
#define GRANRAY_SPHERE_BATCH 0
#endif

// Eight at a time in AVX2, for the kernels compiled for it (avx2_kernel.h).
#if GRANRAY_SPHERE_BATCH && GRANRAY_AVX2_CODE
#define GRANRAY_WIDE_SPHERE_BATCH 1
#include <immintrin.h>
#else
#define GRANRAY_WIDE_SPHERE_BATCH 0
#endif

namespace granray {

// Spheres a grid keeps after its last reference, so that a batch of eight may start at any of
// them.
constexpr std::uint32_t kSphereBatchPad = 7;

#if GRANRAY_SPHERE_BATCH
class SphereBatch {
 public:
  explicit SphereBatch(const Ray& ray) {
    ox_ = _mm_set1_ps(ray.origin.x);
    oy_ = _mm_set1_ps(ray.origin.y);
    oz_ = _mm_set1_ps(ray.origin.z);
    dx_ = _mm_set1_ps(ray.dir.x);
    dy_ = _mm_set1_ps(ray.dir.y);
    dz_ = _mm_set1_ps(ray.dir.z);
    const float a = dot(ray.dir, ray.dir);
    a_ = _mm_set1_ps(a);
    inv_a_ = _mm_set1_ps(1.0f / a);
  }

  // Of spheres s[0 .. min(n, 4)), a bit per sphere the ray enters at t > 0, t(lane) its entry
  // distance (sphere_entry_distance).
  unsigned entries(const Vec4* s, std::uint32_t n) {
    __m128 x, y, z, r;
    load(s, x, y, z, r);
    const __m128 ocx = _mm_sub_ps(ox_, x), ocy = _mm_sub_ps(oy_, y), ocz = _mm_sub_ps(oz_, z);
    const __m128 b = dot4(ocx, ocy, ocz, dx_, dy_, dz_);
    const __m128 along = _mm_mul_ps(b, inv_a_);
    const __m128 lx = _mm_sub_ps(ocx, _mm_mul_ps(dx_, along));
    const __m128 ly = _mm_sub_ps(ocy, _mm_mul_ps(dy_, along));
    const __m128 lz = _mm_sub_ps(ocz, _mm_mul_ps(dz_, along));
    const __m128 disc = _mm_mul_ps(a_, _mm_sub_ps(_mm_mul_ps(r, r), dot4(lx, ly, lz, lx, ly, lz)));
    const __m128 zero = _mm_setzero_ps();
    const __m128 t0 = _mm_mul_ps(_mm_sub_ps(_mm_sub_ps(zero, b), _mm_sqrt_ps(disc)), inv_a_);
    _mm_store_ps(t_, t0);
    return mask(_mm_and_ps(_mm_cmpgt_ps(disc, zero), _mm_cmpgt_ps(t0, zero)), n);
  }
  float t(int lane) const { return t_[lane]; }

  // Of spheres s[0 .. min(n, 4)), a bit per sphere that blocks the unit ray within `length`
  // (blocks).
  unsigned blockers(const Vec4* s, std::uint32_t n, float length) const {
    __m128 x, y, z, r;
    load(s, x, y, z, r);
    const __m128 ocx = _mm_sub_ps(ox_, x), ocy = _mm_sub_ps(oy_, y), ocz = _mm_sub_ps(oz_, z);
    const __m128 b = dot4(ocx, ocy, ocz, dx_, dy_, dz_);
    const __m128 lx = _mm_sub_ps(ocx, _mm_mul_ps(dx_, b));
    const __m128 ly = _mm_sub_ps(ocy, _mm_mul_ps(dy_, b));
    const __m128 lz = _mm_sub_ps(ocz, _mm_mul_ps(dz_, b));
    const __m128 disc = _mm_sub_ps(_mm_mul_ps(r, r), dot4(lx, ly, lz, lx, ly, lz));
    const __m128 zero = _mm_setzero_ps();
    const __m128 root = _mm_sqrt_ps(disc);
    const __m128 neg_b = _mm_sub_ps(zero, b);
    const __m128 t0 = _mm_sub_ps(neg_b, root), t1 = _mm_add_ps(neg_b, root);
    const __m128 len = _mm_set1_ps(length);
    const __m128 within = _mm_or_ps(_mm_and_ps(_mm_cmpgt_ps(t0, zero), _mm_cmplt_ps(t0, len)),
                                    _mm_and_ps(_mm_cmpgt_ps(t1, zero), _mm_cmplt_ps(t1, len)));
    return mask(_mm_and_ps(_mm_cmpgt_ps(disc, zero), within), n);
  }

 private:
  static void load(const Vec4* s, __m128& x, __m128& y, __m128& z, __m128& r) {
    x = _mm_loadu_ps(&s[0].x);
    y = _mm_loadu_ps(&s[1].x);
    z = _mm_loadu_ps(&s[2].x);
    r = _mm_loadu_ps(&s[3].x);
    _MM_TRANSPOSE4_PS(x, y, z, r);
  }
  // dot(a, b) as vec.h sums it: (x + y) + z.
  static __m128 dot4(__m128 ax, __m128 ay, __m128 az, __m128 bx, __m128 by, __m128 bz) {
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)), _mm_mul_ps(az, bz));
  }
  static unsigned mask(__m128 lanes, std::uint32_t n) {
    const unsigned live = n >= 4u ? 0xfu : (1u << n) - 1u;
    return static_cast<unsigned>(_mm_movemask_ps(lanes)) & live;
  }

  __m128 ox_, oy_, oz_, dx_, dy_, dz_, a_, inv_a_;
  alignas(16) float t_[4];
};
#endif

#if GRANRAY_WIDE_SPHERE_BATCH
// SphereBatch's entries() eight lanes wide, each lane the same operations in the same order.
// Every member is compiled for AVX2: call it only where the CPU has it.
class SphereBatch8 {
 public:
  GRANRAY_AVX2 explicit SphereBatch8(const Ray& ray) {
    ox_ = _mm256_set1_ps(ray.origin.x);
    oy_ = _mm256_set1_ps(ray.origin.y);
    oz_ = _mm256_set1_ps(ray.origin.z);
    dx_ = _mm256_set1_ps(ray.dir.x);
    dy_ = _mm256_set1_ps(ray.dir.y);
    dz_ = _mm256_set1_ps(ray.dir.z);
    const float a = dot(ray.dir, ray.dir);
    a_ = _mm256_set1_ps(a);
    inv_a_ = _mm256_set1_ps(1.0f / a);
  }

  // Of spheres s[0 .. min(n, 8)), a bit per sphere the ray enters at t > 0, t(lane) its entry
  // distance (sphere_entry_distance).
  GRANRAY_AVX2 unsigned entries(const Vec4* s, std::uint32_t n) {
    __m256 x, y, z, r;
    load(s, x, y, z, r);
    const __m256 ocx = _mm256_sub_ps(ox_, x), ocy = _mm256_sub_ps(oy_, y),
                 ocz = _mm256_sub_ps(oz_, z);
    const __m256 b = dot8(ocx, ocy, ocz, dx_, dy_, dz_);
    const __m256 along = _mm256_mul_ps(b, inv_a_);
    const __m256 lx = _mm256_sub_ps(ocx, _mm256_mul_ps(dx_, along));
    const __m256 ly = _mm256_sub_ps(ocy, _mm256_mul_ps(dy_, along));
    const __m256 lz = _mm256_sub_ps(ocz, _mm256_mul_ps(dz_, along));
    const __m256 disc =
        _mm256_mul_ps(a_, _mm256_sub_ps(_mm256_mul_ps(r, r), dot8(lx, ly, lz, lx, ly, lz)));
    const __m256 zero = _mm256_setzero_ps();
    const __m256 t0 =
        _mm256_mul_ps(_mm256_sub_ps(_mm256_sub_ps(zero, b), _mm256_sqrt_ps(disc)), inv_a_);
    _mm256_store_ps(t_, t0);
    const __m256 entered =
        _mm256_and_ps(_mm256_cmp_ps(disc, zero, _CMP_GT_OQ), _mm256_cmp_ps(t0, zero, _CMP_GT_OQ));
    const unsigned live = n >= 8u ? 0xffu : (1u << n) - 1u;
    return static_cast<unsigned>(_mm256_movemask_ps(entered)) & live;
  }
  float t(int lane) const { return t_[lane]; }

 private:
  // Spheres 0-3 in the low halves, 4-7 in the high ones, each half transposed as SphereBatch's.
  GRANRAY_AVX2 static void load(const Vec4* s, __m256& x, __m256& y, __m256& z, __m256& r) {
    const __m256 s04 = pair(s, 0), s15 = pair(s, 1), s26 = pair(s, 2), s37 = pair(s, 3);
    const __m256 xy01 = _mm256_unpacklo_ps(s04, s15), xy23 = _mm256_unpacklo_ps(s26, s37);
    const __m256 zr01 = _mm256_unpackhi_ps(s04, s15), zr23 = _mm256_unpackhi_ps(s26, s37);
    x = _mm256_shuffle_ps(xy01, xy23, _MM_SHUFFLE(1, 0, 1, 0));
    y = _mm256_shuffle_ps(xy01, xy23, _MM_SHUFFLE(3, 2, 3, 2));
    z = _mm256_shuffle_ps(zr01, zr23, _MM_SHUFFLE(1, 0, 1, 0));
    r = _mm256_shuffle_ps(zr01, zr23, _MM_SHUFFLE(3, 2, 3, 2));
  }
  GRANRAY_AVX2 static __m256 pair(const Vec4* s, int k) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(&s[k].x)),
                                _mm_loadu_ps(&s[k + 4].x), 1);
  }
  // dot(a, b) as vec.h sums it: (x + y) + z.
  GRANRAY_AVX2 static __m256 dot8(__m256 ax, __m256 ay, __m256 az, __m256 bx, __m256 by,
                                  __m256 bz) {
    return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ax, bx), _mm256_mul_ps(ay, by)),
                         _mm256_mul_ps(az, bz));
  }

  __m256 ox_, oy_, oz_, dx_, dy_, dz_, a_, inv_a_;
  alignas(32) float t_[8];
};
#endif

}  // namespace granray
