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

}  // namespace

bool bin_see_through(const CameraFrame& camera, const WallTriangle* triangles, std::uint32_t n,
                     std::uint64_t max_entries, SeeThroughBins& bins) {
  const ScreenTiles tiles = see_through_tiles_of(camera);
  const auto tile_total = static_cast<std::size_t>(see_through_tile_count(camera));
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

}  // namespace granray::detail
