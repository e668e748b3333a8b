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
  // A pixel (i, j) has its centre at (i, j); tile t covers centres [16 t - 0.5, 16 t + 15.5].
  const auto tile_of = [](double c) { return static_cast<int>(std::floor((c + 0.5) / kTileSize)); };
  const int row_first = std::max(0, tile_of(y_lo - pad));
  const int row_last = std::min(tiles.rows - 1, tile_of(y_hi + pad));
  for (int row = row_first; row <= row_last; ++row) {
    const double band_lo = row * double(kTileSize) - 0.5 - pad;
    const double band_hi = band_lo + kTileSize + 2.0 * pad;
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

// The triangle in the window's pixel-centre coordinates; false when a corner lies at or behind
// the eye's plane (the projection is unbounded) or is not finite.
bool project(const CameraFrame& cam, const WallTriangle& tri, Point (&p)[3]) {
  const Vec3 corners[3] = {tri.a, tri.b, tri.c};
  for (int k = 0; k < 3; ++k) {
    const double dx = double(corners[k].x) - cam.eye.x, dy = double(corners[k].y) - cam.eye.y,
                 dz = double(corners[k].z) - cam.eye.z;
    const CameraPoint c = camera_point(cam, dx, dy, dz);
    double su = c.x, sv = c.y;
    if (!cam.orthographic) {
      if (!(c.z > 1e-6 * std::sqrt(dx * dx + dy * dy + dz * dz))) return false;
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
  const ScreenTiles tiles = screen_tiles_of(camera);
  const auto tile_total = static_cast<std::size_t>(screen_tile_count(camera));
  // Each triangle's spans per row, kept for the second pass that fills the lists.
  std::vector<std::vector<TileSpan>> spans(n);
  std::vector<std::uint32_t> counts(tile_total, 0);
  std::uint64_t entries = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    Point p[3];
    if (project(camera, triangles[k], p)) {
      // A pixel, and far more than the float rounding of the rays and of the triangle test.
      double magnitude = camera.full_width + camera.full_height;
      for (const Point& q : p) magnitude = std::max({magnitude, std::fabs(q.x), std::fabs(q.y)});
      spans_of(p, 1.0 + 1e-5 * magnitude, tiles, spans[k]);
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
    for (int row = 0; row < tiles.rows; ++row) {
      const TileSpan s = spans[k][static_cast<std::size_t>(row)];
      for (int c = s.first; c <= s.last; ++c) {
        bins.slots[cursor[static_cast<std::size_t>(row) * tiles.columns + c]++] = k;
      }
    }
  }
  return true;
}

}  // namespace granray::detail
