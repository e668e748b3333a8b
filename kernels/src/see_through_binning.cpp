#include "see_through_binning.h"

#include <algorithm>
#include <cmath>

namespace granray::detail {
namespace {

struct Point {
  double x, y;
};

// Tile columns [first, last] of one row, or an empty range (first > last).
struct TileSpan {
  int first, last;
};

// Tile t's pixel squares along one axis, widened by pad on each side: a pixel (i, j) has its
// centre at (i, j), so tile t covers [8 t - 0.5, 8 t + 7.5] before the widening.
struct TileExtent {
  double lo, hi;
};
TileExtent tile_extent(int t, double pad) {
  const double lo = t * double(kSeeThroughTileSize) - 0.5 - pad;
  return {lo, lo + kSeeThroughTileSize + 2.0 * pad};
}

// The tiles of each row that a projected triangle, widened by `pad` pixels, meets: in each row's
// band of pixel centres (widened by pad), the x-range of the triangle's part in it, widened by
// pad. The Minkowski sum of the triangle and a square of half-side pad lies inside that.
void spans_of(const Point (&p)[3], double pad, const ScreenTiles& tiles,
              std::vector<TileSpan>& spans) {
  spans.assign(static_cast<std::size_t>(tiles.rows), TileSpan{1, 0});
  double y_lo = p[0].y, y_hi = p[0].y;
  for (const Point& q : p) {
    y_lo = std::min(y_lo, q.y);
    y_hi = std::max(y_hi, q.y);
  }
  const auto tile_of = [](double c) {
    return static_cast<int>(std::floor((c + 0.5) / kSeeThroughTileSize));
  };
  const int row_first = std::max(0, tile_of(y_lo - pad));
  const int row_last = std::min(tiles.rows - 1, tile_of(y_hi + pad));
  for (int row = row_first; row <= row_last; ++row) {
    const auto [band_lo, band_hi] = tile_extent(row, pad);
    double x_lo = INFINITY, x_hi = -INFINITY;
    for (int e = 0; e < 3; ++e) {
      const Point a = p[e], b = p[(e + 1) % 3];
      if (a.y >= band_lo && a.y <= band_hi) {
        x_lo = std::min(x_lo, a.x);
        x_hi = std::max(x_hi, a.x);
      }
      // Where the edge crosses the band's two lines.
      for (const double y : {band_lo, band_hi}) {
        if ((a.y < y && b.y > y) || (a.y > y && b.y < y)) {
          const double x = a.x + (b.x - a.x) * ((y - a.y) / (b.y - a.y));
          x_lo = std::min(x_lo, x);
          x_hi = std::max(x_hi, x);
        }
      }
    }
    if (!(x_lo <= x_hi)) continue;
    const int first = std::max(0, tile_of(x_lo - pad));
    const int last = std::min(tiles.columns - 1, tile_of(x_hi + pad));
    if (first <= last) spans[static_cast<std::size_t>(row)] = {first, last};
  }
}

// Whether tile (column, row)'s pixel squares, widened by pad, lie inside the projected triangle:
// each corner of that rectangle strictly inside all three edges (the triangle is convex).
bool covers_tile(const Point (&p)[3], double pad, int column, int row) {
  const auto [x0, x1] = tile_extent(column, pad);
  const auto [y0, y1] = tile_extent(row, pad);
  const double area = (p[1].x - p[0].x) * (p[2].y - p[0].y) - (p[1].y - p[0].y) * (p[2].x - p[0].x);
  if (!(std::fabs(area) > 0.0)) return false;
  const double side = area > 0.0 ? 1.0 : -1.0;
  for (int e = 0; e < 3; ++e) {
    const Point a = p[e], b = p[(e + 1) % 3];
    for (const Point q : {Point{x0, y0}, Point{x1, y0}, Point{x0, y1}, Point{x1, y1}}) {
      if (!(side * ((b.x - a.x) * (q.y - a.y) - (b.y - a.y) * (q.x - a.x)) > 0.0)) return false;
    }
  }
  return true;
}

// The triangle in the window's pixel-centre coordinates; false when a corner lies at or behind
// the eye's plane (the projection is unbounded) or is not finite. `in_front`: every corner lies
// before the rays' origins by far more than their rounding, so every ray through the
// projection's inside meets the triangle at t > 0 (an orthographic ray starts on the eye's
// plane, and misses a triangle behind it).
bool project(const CameraFrame& cam, const WallTriangle& tri, Point (&p)[3], bool& in_front) {
  const Vec3 corners[3] = {tri.a, tri.b, tri.c};
  const double scale = std::sqrt(double(cam.eye.x) * cam.eye.x + double(cam.eye.y) * cam.eye.y +
                                 double(cam.eye.z) * cam.eye.z) +
                       double(cam.half_height) * (1.0 + cam.aspect);
  in_front = true;
  for (int k = 0; k < 3; ++k) {
    const double dx = double(corners[k].x) - cam.eye.x, dy = double(corners[k].y) - cam.eye.y,
                 dz = double(corners[k].z) - cam.eye.z;
    const CameraPoint c = camera_point(cam, dx, dy, dz);
    const double distance = std::sqrt(dx * dx + dy * dy + dz * dz);
    in_front = in_front && c.z > 1e-4 * (distance + scale);
    double su = c.x, sv = c.y;
    if (!cam.orthographic) {
      if (!(c.z > 1e-6 * distance)) return false;
      su /= c.z;
      sv /= c.z;
    }
    p[k] = {window_column(cam, su), window_row(cam, sv)};
    if (!std::isfinite(p[k].x) || !std::isfinite(p[k].y)) return false;
  }
  return true;
}

// What the nearest-distance bound needs of a triangle's plane, in double: its unit normal, the
// signed distance h = n . (a - eye), and the size of the coordinates (for the rounding margin).
struct Plane {
  double nx, ny, nz, h, scale;
  bool valid;
};

Plane plane_of(const CameraFrame& cam, const WallTriangle& tri) {
  const double ax = tri.a.x, ay = tri.a.y, az = tri.a.z;
  const double e1x = tri.b.x - ax, e1y = tri.b.y - ay, e1z = tri.b.z - az;
  const double e2x = tri.c.x - ax, e2y = tri.c.y - ay, e2z = tri.c.z - az;
  double nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
  const double length = std::sqrt(nx * nx + ny * ny + nz * nz);
  if (!(length > 0.0) || !std::isfinite(length)) return {0, 0, 0, 0, 0, false};
  nx /= length;
  ny /= length;
  nz /= length;
  const double h = nx * (ax - cam.eye.x) + ny * (ay - cam.eye.y) + nz * (az - cam.eye.z);
  const auto norm = [](Vec3 q) {
    return std::sqrt(double(q.x) * q.x + double(q.y) * q.y + double(q.z) * q.z);
  };
  const double scale = norm(cam.eye) + std::max({norm(tri.a), norm(tri.b), norm(tri.c)});
  return {nx, ny, nz, h, scale, std::isfinite(h) && std::isfinite(scale)};
}

// A tile's rays: the image-plane rectangle of centre (su, sv) and half sides (half_u, half_v)
// that its widened pixel squares map to and, for a perspective camera, the unit direction of the
// ray through its centre and the sine and cosine of the tile's angular radius alpha about it
// (sin alpha <= |half sides|, the image plane lying at distance 1).
struct TileRays {
  double su, sv, half_u, half_v;
  double centre[3];
  double sin_alpha, cos_alpha;
};

// A lower bound on the distance t at which any ray through a tile meets the plane, less a margin
// far above the float rounding of the kernels' facet test; 0 where no useful bound holds (a plane
// seen nearly edge-on, through the eye, or behind).
// Perspective: t = |h| / (m . d) for a unit direction d and m the normal turned toward the plane;
// over the tile m . d lies within cos(theta +- alpha), theta the angle between m and the centre's
// direction. Orthographic: t is linear across the tile, least at a corner.
float nearest_bound(const CameraFrame& cam, const Plane& plane, const TileRays& tile) {
  if (!plane.valid) return 0.0f;
  const auto dot_n = [&](Vec3 q) { return plane.nx * q.x + plane.ny * q.y + plane.nz * q.z; };
  double t_min, facing_min;
  if (cam.orthographic) {
    const double facing = -dot_n(cam.w);  // n . dir, dir = -w
    facing_min = std::fabs(facing);
    if (!(facing_min > 0.02)) return 0.0f;
    const double t_centre = (plane.h - tile.su * dot_n(cam.u) - tile.sv * dot_n(cam.v)) / facing;
    t_min =
        t_centre - (std::fabs(dot_n(cam.u)) * tile.half_u + std::fabs(dot_n(cam.v)) * tile.half_v) /
                       facing_min;
  } else {
    if (!(tile.sin_alpha < 0.5)) return 0.0f;
    const double sin_alpha = tile.sin_alpha, cos_alpha = tile.cos_alpha;
    const double toward = plane.h < 0.0 ? -1.0 : 1.0;  // m = toward n
    const double c = toward * (plane.nx * tile.centre[0] + plane.ny * tile.centre[1] +
                               plane.nz * tile.centre[2]);
    const double s = std::sqrt(std::max(0.0, 1.0 - c * c));
    facing_min = c * cos_alpha - s * sin_alpha;  // cos(theta + alpha)
    if (!(facing_min > 0.02)) return 0.0f;
    const double facing_max = c >= cos_alpha ? 1.0 : c * cos_alpha + s * sin_alpha;
    t_min = std::fabs(plane.h) / facing_max;
  }
  const double bound = t_min - 1e-4 * (plane.scale + std::fabs(t_min)) / facing_min;
  if (!(bound > 0.0) || !std::isfinite(bound)) return 0.0f;
  const auto rounded = static_cast<float>(bound);
  return double(rounded) <= bound ? rounded : std::nextafter(rounded, 0.0f);
}

}  // namespace

bool bin_see_through(const CameraFrame& camera, const WallTriangle* triangles, std::uint32_t n,
                     std::uint64_t max_entries, SeeThroughBins& bins) {
  const ScreenTiles tiles = screen_tiles_of(camera, kSeeThroughTileShift);
  const auto tile_total = static_cast<std::size_t>(screen_tile_count(camera, kSeeThroughTileShift));
  // Each triangle's spans per row and projection, kept for the second pass that fills the lists.
  std::vector<std::vector<TileSpan>> spans(n);
  struct Projection {
    Point p[3];
    double pad;  // 0: covers no tile
  };
  std::vector<Projection> projected(n);
  std::vector<std::uint32_t> counts(tile_total, 0);
  std::uint64_t entries = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    Projection& pr = projected[k];
    pr.pad = 0.0;
    bool in_front = false;
    if (project(camera, triangles[k], pr.p, in_front)) {
      // A pixel, and far more than the float rounding of the rays and of the triangle test.
      double magnitude = camera.full_width + camera.full_height;
      for (const Point& q : pr.p) {
        magnitude = std::max({magnitude, std::fabs(q.x), std::fabs(q.y)});
      }
      const double pad = 1.0 + 1e-5 * magnitude;
      spans_of(pr.p, pad, tiles, spans[k]);
      if (in_front) pr.pad = pad;
    } else {
      spans[k].assign(static_cast<std::size_t>(tiles.rows), TileSpan{0, tiles.columns - 1});
    }
    for (int row = 0; row < tiles.rows; ++row) {
      const TileSpan s = spans[k][static_cast<std::size_t>(row)];
      for (int c = s.first; c <= s.last; ++c) {
        ++counts[static_cast<std::size_t>(row) * tiles.columns + c];
      }
      if (s.first <= s.last) entries += static_cast<std::uint64_t>(s.last - s.first + 1);
    }
    if (entries > max_entries) return false;
  }
  bins.offsets.assign(tile_total + 1, 0);
  for (std::size_t t = 0; t < tile_total; ++t) bins.offsets[t + 1] = bins.offsets[t] + counts[t];
  bins.slots.resize(static_cast<std::size_t>(entries));
  bins.nearest.assign(static_cast<std::size_t>(entries), 0.0f);
  std::vector<std::uint32_t> cursor(bins.offsets.begin(), bins.offsets.end() - 1);
  for (std::uint32_t k = 0; k < n; ++k) {
    const Projection& pr = projected[k];
    for (int row = 0; row < tiles.rows; ++row) {
      const TileSpan s = spans[k][static_cast<std::size_t>(row)];
      // The tiles of a row that the triangle covers are a run: the rectangles between two
      // covered ones lie in their convex hull, so inside the triangle. Found from both ends.
      TileSpan covered{s.first, s.first - 1};
      if (pr.pad > 0.0) {
        while (covered.first <= s.last && !covers_tile(pr.p, pr.pad, covered.first, row)) {
          ++covered.first;
        }
        covered.last = s.last;
        while (covered.last >= covered.first && !covers_tile(pr.p, pr.pad, covered.last, row)) {
          --covered.last;
        }
      }
      for (int c = s.first; c <= s.last; ++c) {
        const bool covers = c >= covered.first && c <= covered.last;
        bins.slots[cursor[static_cast<std::size_t>(row) * tiles.columns + c]++] =
            k | (covers ? kCoversTile : 0u);
      }
    }
  }
  return true;
}

void bound_see_through(const CameraFrame& camera, const WallTriangle* triangles, std::uint32_t n,
                       SeeThroughBins& bins) {
  const ScreenTiles tiles = screen_tiles_of(camera, kSeeThroughTileShift);
  std::vector<Plane> planes(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    Point p[3];
    bool in_front = false;
    // A triangle reaching to or behind the eye's plane keeps no bound.
    planes[k] = project(camera, triangles[k], p, in_front) && in_front
                    ? plane_of(camera, triangles[k])
                    : Plane{0, 0, 0, 0, 0, false};
  }
  // Tile (column, row)'s pixel squares, widened by 2 pixels, on the image plane: su = (x + x0 +
  // 0.5) step - half_w for the window's pixel-centre coordinate x, likewise sv downward.
  const double half_w = double(camera.aspect) * camera.half_height;
  const double step_u = 2.0 * half_w / camera.full_width;
  const double step_v = 2.0 * double(camera.half_height) / camera.full_height;
  TileRays tile;
  tile.half_u = (0.5 * kSeeThroughTileSize + 2.0) * step_u;
  tile.half_v = (0.5 * kSeeThroughTileSize + 2.0) * step_v;
  tile.sin_alpha = std::sqrt(tile.half_u * tile.half_u + tile.half_v * tile.half_v);
  tile.cos_alpha = std::sqrt(std::max(0.0, 1.0 - tile.sin_alpha * tile.sin_alpha));
  for (int row = 0; row < tiles.rows; ++row) {
    tile.sv = double(camera.half_height) - ((row + 0.5) * kSeeThroughTileSize + camera.y0) * step_v;
    for (int column = 0; column < tiles.columns; ++column) {
      const std::size_t t = static_cast<std::size_t>(row) * tiles.columns + column;
      if (bins.offsets[t] == bins.offsets[t + 1]) continue;
      tile.su = ((column + 0.5) * kSeeThroughTileSize + camera.x0) * step_u - half_w;
      // The centre's direction, once for all the tile's entries.
      const double dx = camera.u.x * tile.su + camera.v.x * tile.sv - camera.w.x,
                   dy = camera.u.y * tile.su + camera.v.y * tile.sv - camera.w.y,
                   dz = camera.u.z * tile.su + camera.v.z * tile.sv - camera.w.z;
      const double length = std::sqrt(dx * dx + dy * dy + dz * dz);
      tile.centre[0] = dx / length;
      tile.centre[1] = dy / length;
      tile.centre[2] = dz / length;
      for (std::uint32_t e = bins.offsets[t]; e < bins.offsets[t + 1]; ++e) {
        bins.nearest[e] = nearest_bound(camera, planes[bins.slots[e] & ~kCoversTile], tile);
      }
    }
  }
}

}  // namespace granray::detail
