// The lighting model of contract 2a: shadows, ambient occlusion, a Blinn-Phong highlight and
// antialiasing. A lit frame runs in three passes over the primary samples (lit_passes.h): find
// each sample's visible surface, find which of its secondary rays are blocked (occlusion.h),
// then shade. Between the passes a sample is a SurfaceSample and a row of blocked bits: small,
// self-contained records that ranks can composite and combine (insitu/mpi/src/mpi_lit_frame.cpp).
#pragma once

#include <cstdint>

#include "granray/kernels/camera_frame.h"
#include "granray/kernels/shading.h"
#include "granray/kernels/walls.h"

namespace granray {

// One primary sample's visible surface: what shading needs, with no reference into a rank's own
// particle arrays.
struct SurfaceSample {
  Vec4 sphere;       // the visible sphere (x, y, z, radius), or a wall's (normal, 0)
  Vec3 base;         // its base colour
  float t;           // entry distance along the sample's ray; +inf: the background
  std::uint64_t id;  // the sphere's global id, kWallIdBase + a wall's triangle; ~0: background
};

// A wall's surface: its unit normal, turned toward the ray, where a sphere has its centre, and a
// radius of 0 that no renderable sphere has.
GRANRAY_HD_INLINE SurfaceSample wall_sample(Vec3 normal, Vec3 base, float t, std::uint64_t id) {
  return {{normal.x, normal.y, normal.z, 0.0f}, base, t, id};
}

GRANRAY_HD_INLINE bool shows_wall(Vec4 surface) { return surface.w == 0.0f; }

// The surface a wall hit shows: its triangle, or its contact capsule as the capsule's hit sphere
// (contract 2g shades a capsule, and starts its secondary rays, as that sphere; its id makes them
// skip the capsule).
GRANRAY_HD_INLINE SurfaceSample wall_hit_sample(const WallView& w, const WallHit& hit,
                                                const Ray& ray) {
  if (hit.capsule != kNoHit) {
    return {capsule_hit_sphere(w.capsules.capsules[hit.capsule], ray, hit.t),
            w.capsules.colors[hit.capsule], hit.t, capsule_id(w.capsules, hit.capsule)};
  }
  const WallTriangle& tri = w.opaque.triangles[hit.slot];
  return wall_sample(facing_normal(tri, ray.dir), wall_color(w, tri), hit.t,
                     kWallIdBase + tri.index);
}

GRANRAY_HD_INLINE SurfaceSample background_sample() {
  return {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, INFINITY, ~std::uint64_t{0}};
}

// Nearer surface first; equal distances go to the smaller id (contract 2), as for primary hits.
GRANRAY_HD_INLINE bool nearer_surface(const SurfaceSample& a, const SurfaceSample& b) {
  return a.t < b.t || (a.t == b.t && a.id < b.id);
}

// The lighting of one frame as the kernels see it (contract 2a, resolved by make_lighting_params).
struct LightingParams {
  int side;  // samples per pixel along each axis: samples = side^2
  bool shadows;
  int ao_samples;     // ambient-occlusion rays per sample (0 = off)
  float ao_distance;  // their length, world units
  float specular;
  float shininess;
  int mask_words;     // 32-bit words of blocked bits per sample (blocked_mask_words)
  float wall_offset;  // how far a wall's secondary rays start off it: 1e-6 R (contract 2b)
};

// Whether a frame casts shadow or occlusion rays (the blocked-bits pass runs only then).
GRANRAY_HD_INLINE bool has_secondary_rays(const LightingParams& l) {
  return l.shadows || l.ao_samples > 0;
}

// Blocked bits per sample: bit 0 the shadow ray, bit 1 + k ambient-occlusion ray k.
GRANRAY_HD_INLINE int blocked_mask_words(int ao_samples) { return (1 + ao_samples + 31) / 32; }

GRANRAY_HD_INLINE bool mask_bit(const std::uint32_t* words, int bit) {
  return ((words[bit >> 5] >> (bit & 31)) & 1u) != 0;
}
GRANRAY_HD_INLINE void set_mask_bit(std::uint32_t* words, int bit) {
  words[bit >> 5] |= 1u << (bit & 31);
}

// Where sample s of a pixel sits in its square: columns a = s mod side, rows b = s / side, at
// ((a + 0.5) / side, (b + 0.5) / side); one sample is the pixel's centre.
GRANRAY_HD_INLINE float sample_offset(int a, int side) {
  return (static_cast<float>(a) + 0.5f) / static_cast<float>(side);
}

GRANRAY_HD_INLINE Ray pixel_sample_ray(const CameraFrame& cam, int i, int j, int s, int side) {
  return sample_ray(cam, i, j, sample_offset(s % side, side), sample_offset(s / side, side));
}

// The normal at a visible hit and the origin of its secondary rays, a hair outside the sphere
// or `wall_offset` off a wall along its normal.
struct ShadingPoint {
  Vec3 normal;
  Vec3 origin;
};

GRANRAY_HD_INLINE ShadingPoint shading_point(const Ray& ray, float t, Vec4 sphere,
                                             float wall_offset) {
  const Vec3 hit = ray.origin + ray.dir * t;
  if (shows_wall(sphere)) {
    const Vec3 normal = center_of(sphere);
    return {normal, hit + normal * wall_offset};
  }
  const Vec3 normal = (hit - center_of(sphere)) * (1.0f / sphere.w);
  return {normal, center_of(sphere) + normal * (sphere.w * (1.0f + 1e-4f))};
}

// What a secondary ray from the shading point along `dir` skips: the visible sphere always (it
// casts nothing on itself, contract 2a); a wall's triangle when the ray leaves the side the point
// sits on. That triangle's plane lies then only 1e-6 R behind the origin, closer than the rounding
// of a hit point far from the coordinate origin, and could otherwise shadow its own pixels. A ray
// into the wall still meets it, as the model says.
GRANRAY_HD_INLINE std::uint64_t skipped_id(std::uint64_t id, Vec3 normal, Vec3 dir) {
  return id < kWallIdBase || dot(normal, dir) > 0.0f ? id : kSkipNothing;
}

// The highlight's half vector h = normalize(l - d0) and max(0, n . h)^shininess.
GRANRAY_HD_INLINE float highlight(Vec3 normal, const Ray& primary, Vec3 light, float shininess) {
  const Vec3 h = normalize(light - primary.dir);
  return powf(nan_ignoring_max(0.0f, dot(normal, h)), shininess);
}

// The shadow ray from p toward the frame's light (it goes Light::reach far).
GRANRAY_HD_INLINE Ray shadow_ray(const ShadingPoint& p, const ShadingParams& shading) {
  return {p.origin, shading.light.toward(p.origin)};
}

// The shadow ray matters only where S multiplies something: a lit side or a highlight.
GRANRAY_HD_INLINE bool shadow_matters(const ShadingPoint& p, const Ray& primary,
                                      const ShadingParams& shading,
                                      const LightingParams& lighting) {
  if (!lighting.shadows) return false;
  const Vec3 l = shading.light.toward(p.origin);
  if (shading.diffuse > 0.0f && dot(p.normal, l) > 0.0f) return true;
  return lighting.specular > 0.0f && highlight(p.normal, primary, l, lighting.shininess) > 0.0f;
}

// A 32-bit integer hash (Wellons' lowbias32): the ambient-occlusion directions are a pure
// function of the pixel, the sample and the ray, so every backend and rank count casts the same.
GRANRAY_HD_INLINE std::uint32_t mix_bits(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// [0, 1) from the top 24 bits.
GRANRAY_HD_INLINE float unit_interval(std::uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

// The cosine and sine of 2 pi u for u in [0, 1]. On the CPU: the nearest quarter turn, then
// polynomials on the eighth of a turn either side of it (Taylor to degrees 7 and 8: within 3e-7),
// the quarter turns by selects (u is random: a branch on it mispredicts), in place of libm's
// sincosf calls, which took 7 % of a lit frame and kept the occlusion rays' loop scalar (the
// README demo's lit frame 17 % faster). The GPU keeps its sincosf: the polynomial made its
// secondary rays 5 % slower (docs/benchmarks.md). The two differ in their last bits, as the two
// libraries did.
GRANRAY_HD_INLINE void turn_cos_sin(float u, float& c, float& s) {
#if defined(__CUDA_ARCH__)
  const float phi = 6.28318530718f * u;
  c = cosf(phi);
  s = sinf(phi);
#else
  const float quarters = u * 4.0f;
  const int q = static_cast<int>(quarters + 0.5f);
  const float a = (quarters - static_cast<float>(q)) * 1.57079632679f;  // [-pi/4, pi/4]
  const float a2 = a * a;
  const float sin_a =
      a * (1.0f + a2 * (-1.0f / 6.0f + a2 * (1.0f / 120.0f + a2 * (-1.0f / 5040.0f))));
  const float cos_a =
      1.0f + a2 * (-0.5f + a2 * (1.0f / 24.0f + a2 * (-1.0f / 720.0f + a2 * (1.0f / 40320.0f))));
  const bool swap = (q & 1) != 0;
  const float c0 = swap ? sin_a : cos_a, s0 = swap ? cos_a : sin_a;
  c = ((q + 1) & 2) != 0 ? -c0 : c0;
  s = (q & 2) != 0 ? -s0 : s0;
#endif
}

// The seed of a sample's ambient-occlusion rays: a pure function of the pixel and the sample,
// worked out once for all of its rays.
GRANRAY_HD_INLINE std::uint32_t ao_seed(int i, int j, int sample, int count) {
  return mix_bits(static_cast<std::uint32_t>(i) ^
                  mix_bits(static_cast<std::uint32_t>(j) ^
                           mix_bits(static_cast<std::uint32_t>(sample) ^
                                    mix_bits(static_cast<std::uint32_t>(count) + 0x9e3779b9u))));
}

// An orthonormal basis about unit n without branches on its direction (Duff et al. 2017).
GRANRAY_HD_INLINE void basis_about(Vec3 n, Vec3& t1, Vec3& t2) {
  const float sign = n.z >= 0.0f ? 1.0f : -1.0f;
  const float a = -1.0f / (sign + n.z);
  const float b = n.x * n.y * a;
  t1 = {1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x};
  t2 = {b, sign + n.y * n.y * a, -n.y};
}

// Ray k of `count` of the sample whose seed is `seed` (ao_seed).
GRANRAY_HD_INLINE Vec3 ao_direction_of_seed(Vec3 n, std::uint32_t seed, int k, int count) {
  const float jitter =
      unit_interval(mix_bits(seed ^ (static_cast<std::uint32_t>(k) * 0x85ebca6bu)));
  const float u1 = (static_cast<float>(k) + jitter) / static_cast<float>(count);
  const float golden = unit_interval(seed) + static_cast<float>(k) * 0.61803398875f;
  const float u2 = golden - static_cast<float>(static_cast<int>(golden));
  const float radius = sqrtf(u1);
  float c, s;
  turn_cos_sin(u2, c, s);
  const float x = radius * c, y = radius * s;
  const float z = sqrtf(nan_ignoring_max(0.0f, 1.0f - u1));
  Vec3 t1, t2;
  basis_about(n, t1, t2);
  return t1 * x + t2 * y + n * z;
}

// Ambient-occlusion ray k of `count` about the unit normal n, cosine-distributed over the
// hemisphere. Stratified: ray k takes its own slice [k, k + 1) / count of cos^2 of the polar
// angle, jittered within it, and its azimuth from the golden-ratio sequence rotated per sample,
// so the rays of one sample cover the hemisphere evenly and neighbouring pixels decorrelate.
GRANRAY_HD_INLINE Vec3 ao_direction(Vec3 n, int i, int j, int sample, int k, int count) {
  return ao_direction_of_seed(n, ao_seed(i, j, sample, count), k, count);
}

// contract 2a: base (ambient A + diffuse max(0, n . l) S) + specular S max(0, n . h)^shininess,
// clamped to [0, 1].
GRANRAY_HD_INLINE Vec3 lit_color(Vec3 base, Vec3 normal, Vec3 to_light, const Ray& primary,
                                 const ShadingParams& shading, const LightingParams& lighting,
                                 float shadow, float ambient_visible) {
  const float lambert = nan_ignoring_max(0.0f, dot(normal, to_light));
  Vec3 c = base * (shading.ambient * ambient_visible + shading.diffuse * lambert * shadow);
  if (lighting.specular > 0.0f) {
    const float s =
        lighting.specular * shadow * highlight(normal, primary, to_light, lighting.shininess);
    c = c + Vec3{s, s, s};
  }
  return clamp01(c);
}

GRANRAY_HD_INLINE int count_bits(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

// The ambient-occlusion rays of one shading point at most (kMaxAoSamples), and their blocked
// words with the shadow's bit.
constexpr int kMostAoRays = 256;
constexpr int kMostMaskWords = (1 + kMostAoRays + 31) / 32;

// The clamped 2a colour of a surface seen along `ray`, from its blocked bits (null: none).
GRANRAY_HD_INLINE Vec3 surface_light(const SurfaceSample& surface, const std::uint32_t* blocked,
                                     const Ray& ray, const ShadingParams& shading,
                                     const LightingParams& lighting) {
  const ShadingPoint p = shading_point(ray, surface.t, surface.sphere, lighting.wall_offset);
  const bool shadowed = blocked != nullptr && mask_bit(blocked, 0);
  float ambient_visible = 1.0f;
  if (lighting.ao_samples > 0 && blocked != nullptr) {
    // Bit 0 is the shadow's: count the AO bits word by word, then take it back out.
    int hidden = 0;
    for (int w = 0; w < lighting.mask_words; ++w) hidden += count_bits(blocked[w]);
    hidden -= shadowed ? 1 : 0;
    ambient_visible =
        static_cast<float>(lighting.ao_samples - hidden) / static_cast<float>(lighting.ao_samples);
  }
  return lit_color(surface.base, p.normal, shading.light.toward(p.origin), ray, shading, lighting,
                   shadowed ? 0.0f : 1.0f, ambient_visible);
}

// The clamped colour of a sample that shows a surface, from its blocked bits (null: none); an
// outline (contract 2d) is unlit, and either is depth-cued. `mix` (contract 2e; null: none) is what
// a metal or glass surface's bounce rays made of it: clamp(mix.w L + mix.xyz).
GRANRAY_HD_INLINE Vec3 sample_color(const SurfaceSample& surface, const std::uint32_t* blocked,
                                    const Ray& primary, const ShadingParams& shading,
                                    const LightingParams& lighting, const Vec4* mix = nullptr) {
  const Vec3 point = primary.origin + primary.dir * surface.t;
  if (!shows_wall(surface.sphere) && on_outline(primary, surface.sphere, shading)) {
    return depth_cued(shading.outline_color, point, shading);
  }
  Vec3 color = surface_light(surface, blocked, primary, shading, lighting);
  if (mix != nullptr) color = clamp01(color * mix->w + Vec3{mix->x, mix->y, mix->z});
  return depth_cued(color, point, shading);
}

}  // namespace granray
