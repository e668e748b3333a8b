#pragma once

#include <cstdint>
#include <cstring>

#include "granray/kernels/camera_frame.h"
#include "granray/kernels/trace.h"

namespace granray {

// The image cut into square tiles, each listing the spheres that can show in it, nearest first
// (the CPU's method; the GPU's is the grid). A sphere's footprint is bounded before any ray is
// cast, and a pixel tests its tile's spheres in order of their least entry distance until its
// best hit lies before the next one: in a bed, after the few spheres of the front layer.
struct ScreenTiles {
  int columns;
  int rows;
};

// Pixels on a side: 8 and 12 cast a little faster than 16 but bin many more entries, 32 casts
// a quarter slower (docs/benchmarks.md). A power of two, so a pixel finds its tile by shifts.
constexpr int kTileShift = 4;
constexpr int kTileSize = 1 << kTileShift;
// An entry's key packs its tile, its bound and its rectangle in the tile into 64 bits.
constexpr std::uint64_t kMaxScreenTiles = std::uint64_t{1} << 24;

// The window's tiles of (1 << shift) pixels on a side: the grains' by default; the see-through
// lists have their own size (kernels/walls.h).
GRANRAY_HD_INLINE ScreenTiles screen_tiles_of(const CameraFrame& cam, int shift = kTileShift) {
  const int size = 1 << shift;
  return {(cam.width + size - 1) / size, (cam.height + size - 1) / size};
}

GRANRAY_HD_INLINE std::uint64_t screen_tile_count(const CameraFrame& cam, int shift = kTileShift) {
  const ScreenTiles t = screen_tiles_of(cam, shift);
  return static_cast<std::uint64_t>(t.columns) * static_cast<std::uint64_t>(t.rows);
}

// A float's bits, and back: for a value >= 0 they order as the value does.
GRANRAY_HD_INLINE std::uint32_t bits_of(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
#endif
}
GRANRAY_HD_INLINE float float_of_bits(std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
#endif
}

// The pixels a sphere may cover (inclusive, inside the image; none when x0 > x1) and a lower
// bound of the entry distance of every primary ray into it.
struct Footprint {
  int x0, y0, x1, y1;
  float near;
};

GRANRAY_HD_INLINE Footprint no_footprint() { return {0, 0, -1, -1, 0.0f}; }

GRANRAY_HD_INLINE std::uint32_t tile_count(const Footprint& f) {
  return f.x0 > f.x1
             ? 0u
             : static_cast<std::uint32_t>((f.x1 >> kTileShift) - (f.x0 >> kTileShift) + 1) *
                   static_cast<std::uint32_t>((f.y1 >> kTileShift) - (f.y0 >> kTileShift) + 1);
}

// Pixel coordinate (column or row) of a screen-plane coordinate, padded by a pixel on each side
// and clamped to [-2, pixels + 1] before the conversion so that nothing overflows an int.
GRANRAY_HD_INLINE int padded_pixel_below(double p, int pixels) {
  const double c = p < -2.0 ? -2.0 : (p > pixels + 1.0 ? pixels + 1.0 : p);
  return static_cast<int>(c + 3.0) - 3 - 1;  // floor, then the pad
}
GRANRAY_HD_INLINE int padded_pixel_above(double p, int pixels) {
  const double c = p < -2.0 ? -2.0 : (p > pixels + 1.0 ? pixels + 1.0 : p);
  return -static_cast<int>(-c + pixels + 3.0) + pixels + 3 + 1;  // ceil, then the pad
}

// Interval [lo, hi] of s = a / z over the sphere's points, seen from the eye at the origin of
// camera space (z = depth, a = the offset along one screen axis), for a sphere wholly in front of
// the eye (z > r): the slopes of the two planes through the eye that touch the sphere. The roots
// of s^2 (z^2 - r^2) - 2 a z s + a^2 - r^2, the small one from the product of the roots.
struct SlopeRange {
  double lo, hi;
};
GRANRAY_HD_INLINE SlopeRange tangent_slopes(double a, double z, double r) {
  const double q = a * z + (a < 0.0 ? -1.0 : 1.0) * r * sqrt(a * a + z * z - r * r);
  const double s1 = q / (z * z - r * r);
  const double s2 = q != 0.0 ? (a * a - r * r) / q : 0.0;
  return s1 < s2 ? SlopeRange{s1, s2} : SlopeRange{s2, s1};
}

// A point's offset (dx, dy, dz) from the eye in camera space, in double: x along u, y along v,
// z its depth in front of the eye (along -w).
struct CameraPoint {
  double x, y, z;
};
GRANRAY_HD_INLINE CameraPoint camera_point(const CameraFrame& cam, double dx, double dy,
                                           double dz) {
  return {dx * cam.u.x + dy * cam.u.y + dz * cam.u.z, dx * cam.v.x + dy * cam.v.y + dz * cam.v.z,
          -(dx * cam.w.x + dy * cam.w.y + dz * cam.w.z)};
}

// Where image-plane coordinates su, sv fall in the window's pixel-centre coordinates (pixel
// (i, j)'s centre at (i, j)), as sample_ray maps the whole image's pixels onto the plane:
// su = (2 (x + 0.5) / W - 1) half_w, sv = (1 - 2 (y + 0.5) / H) half_h, then less the window's
// corner (CameraFrame::x0, y0).
GRANRAY_HD_INLINE double window_column(const CameraFrame& cam, double su) {
  const double half_w = double(cam.aspect) * cam.half_height;
  return (su / half_w + 1.0) * 0.5 * double(cam.full_width) - (cam.x0 + 0.5);
}
GRANRAY_HD_INLINE double window_row(const CameraFrame& cam, double sv) {
  const double half_h = cam.half_height;
  return (1.0 - sv / half_h) * 0.5 * double(cam.full_height) - (cam.y0 + 0.5);
}

// Everything in double: the bounds are computed once per sphere, and a pixel of padding then
// covers the float rounding of the rays themselves.
GRANRAY_HD_INLINE Footprint sphere_footprint(const CameraFrame& cam, Vec4 s) {
  const double dx = double(s.x) - cam.eye.x, dy = double(s.y) - cam.eye.y,
               dz = double(s.z) - cam.eye.z;
  const CameraPoint c = camera_point(cam, dx, dy, dz);
  const double x = c.x, y = c.y, z = c.z;
  const double r = s.w;
  // Every primary ray moves away from the eye's plane, so a sphere behind it shows nowhere.
  if (z + r <= 0.0) return no_footprint();
  // Entry distances are measured along the ray from its origin: the eye, or for an orthographic
  // camera a point of the eye's plane. The margin lies far above the float rounding of an entry
  // distance, which grows with the coordinates' magnitudes as well as with the distance.
  const double distance = sqrt(dx * dx + dy * dy + dz * dz);
  const double magnitudes = sqrt(double(cam.eye.x) * cam.eye.x + double(cam.eye.y) * cam.eye.y +
                                 double(cam.eye.z) * cam.eye.z) +
                            sqrt(double(s.x) * s.x + double(s.y) * s.y + double(s.z) * s.z);
  double near = (cam.orthographic ? z : distance) - r - 1e-5 * (distance + r + magnitudes);
  if (!(near > 0.0)) near = 0.0;

  SlopeRange su, sv;
  if (cam.orthographic) {
    su = {x - r, x + r};
    sv = {y - r, y + r};
  } else if (z > r * (1.0 + 1e-6)) {
    su = tangent_slopes(x, z, r);
    sv = tangent_slopes(y, z, r);
  } else {
    // Around the eye or across its plane: the footprint is unbounded.
    return {0, 0, cam.width - 1, cam.height - 1, static_cast<float>(near)};
  }
  const int i0 = padded_pixel_below(window_column(cam, su.lo), cam.width);
  const int i1 = padded_pixel_above(window_column(cam, su.hi), cam.width);
  const int j0 = padded_pixel_below(window_row(cam, sv.hi), cam.height);
  const int j1 = padded_pixel_above(window_row(cam, sv.lo), cam.height);
  if (i1 < 0 || j1 < 0 || i0 >= cam.width || j0 >= cam.height) return no_footprint();
  return {i0 < 0 ? 0 : i0, j0 < 0 ? 0 : j0, i1 >= cam.width ? cam.width - 1 : i1,
          j1 >= cam.height ? cam.height - 1 : j1, static_cast<float>(near)};
}

// An entry of a tile's list: its key is, from the top, the tile (24 bits), the top 24 bits of its
// sphere's bound (a float >= 0 cut short, so never above the bound, and ordered as it is) and the
// sphere's pixel rectangle in the tile (4 x 4 bits). Sorting the keys lists each tile's spheres
// nearest first, and a pixel outside an entry's rectangle skips it without a ray test.
constexpr int kTileKeyRectangleBits = 16;
constexpr int kTileKeyTileShift = 40;

GRANRAY_HD_INLINE std::uint64_t tile_entry_key(std::uint32_t tile, float near, const Footprint& f,
                                               int tile_x, int tile_y) {
  const int x0 = tile_x << kTileShift, y0 = tile_y << kTileShift;
  const auto lo_x = static_cast<std::uint32_t>(f.x0 > x0 ? f.x0 - x0 : 0);
  const auto lo_y = static_cast<std::uint32_t>(f.y0 > y0 ? f.y0 - y0 : 0);
  const auto hi_x =
      static_cast<std::uint32_t>(f.x1 < x0 + kTileSize - 1 ? f.x1 - x0 : kTileSize - 1);
  const auto hi_y =
      static_cast<std::uint32_t>(f.y1 < y0 + kTileSize - 1 ? f.y1 - y0 : kTileSize - 1);
  return std::uint64_t{tile} << kTileKeyTileShift |
         std::uint64_t{bits_of(near) >> 8} << kTileKeyRectangleBits | lo_x << 12 | hi_x << 8 |
         lo_y << 4 | hi_y;
}

GRANRAY_HD_INLINE float entry_near(std::uint64_t key) {
  return float_of_bits(static_cast<std::uint32_t>(key >> kTileKeyRectangleBits) << 8);
}

GRANRAY_HD_INLINE bool entry_covers(std::uint64_t key, std::uint32_t x, std::uint32_t y) {
  return x - ((key >> 12) & 15u) <= ((key >> 8) & 15u) - ((key >> 12) & 15u) &&
         y - ((key >> 4) & 15u) <= (key & 15u) - ((key >> 4) & 15u);
}

// A tile's spheres after binning, nearest bound first: entries [offsets[t], offsets[t + 1]).
struct TileListsView {
  ScreenTiles tiles;
  const std::uint32_t* offsets;
  const std::uint64_t* keys;   // per entry (tile_entry_key)
  const Vec4* spheres;         // per entry: a copy of the sphere
  const std::uint32_t* index;  // per entry: the particle
};

GRANRAY_HD_INLINE std::uint32_t tile_of_pixel(const ScreenTiles& tiles, int i, int j,
                                              int shift = kTileShift) {
  return static_cast<std::uint32_t>(j >> shift) * static_cast<std::uint32_t>(tiles.columns) +
         static_cast<std::uint32_t>(i >> shift);
}

// Nearest hit among the spheres of pixel (i, j)'s tile. Those after the best hit's distance
// cannot come before it; a sphere at the same distance can still win on its id, so the walk
// stops only when the next bound lies strictly beyond the best hit.
GRANRAY_HD_PIXEL_INLINE Hit trace_tile(const TileListsView& lists, const IdMap& id_of,
                                       const Ray& ray, int i, int j) {
  const std::uint32_t tile = tile_of_pixel(lists.tiles, i, j);
  const auto x = static_cast<std::uint32_t>(i & (kTileSize - 1));
  const auto y = static_cast<std::uint32_t>(j & (kTileSize - 1));
  Hit best = no_hit();
  const std::uint32_t end = lists.offsets[tile + 1];
  for (std::uint32_t k = lists.offsets[tile]; k < end; ++k) {
    const std::uint64_t key = lists.keys[k];
    if (best.t < entry_near(key)) break;
    if (!entry_covers(key, x, y)) continue;
    const float t = sphere_entry_distance(ray, lists.spheres[k]);
    if (t < INFINITY) {
      const std::uint32_t index = lists.index[k];
      const std::uint64_t id = id_of(index);
      if (closer(t, id, best)) best = {t, id, index};
    }
  }
  return best;
}

}  // namespace granray
