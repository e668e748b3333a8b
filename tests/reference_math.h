// Double-precision vectors for the tests' independent references of the image model (contract 2,
// 2a, 2b written out again, apart from the kernels' float code).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "granray/renderer.h"
#include "granray/walls.h"

namespace granray::test {

struct D3 {
  double x, y, z;
};
inline D3 operator+(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline D3 operator-(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline D3 operator*(D3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline D3 cross(D3 a, D3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline D3 unit(D3 a) { return a * (1.0 / std::sqrt(dot(a, a))); }
inline D3 d3(Vec3 v) { return {v.x, v.y, v.z}; }

// The offsets in a pixel of a side x side grid of samples, row after row: ((a + 0.5) / side,
// (b + 0.5) / side).
inline std::vector<std::pair<double, double>> sample_offsets(int side) {
  std::vector<std::pair<double, double>> offsets;
  for (int b = 0; b < side; ++b) {
    for (int a = 0; a < side; ++a) offsets.push_back({(a + 0.5) / side, (b + 0.5) / side});
  }
  return offsets;
}

// Whether each channel of pixel (i, j) lies within `levels` of the reference's colour c (clamped
// to [0, 1]) as contract 2 makes it a byte: floor(255 c + 0.5).
inline ::testing::AssertionResult pixel_within(const Image& image, int i, int j, D3 c,
                                               int levels = 1) {
  const double channels[3] = {c.x, c.y, c.z};
  for (int k = 0; k < 3; ++k) {
    const int expected = int(std::floor(255.0 * std::clamp(channels[k], 0.0, 1.0) + 0.5));
    const int got = image.rgb[3 * (std::size_t(j) * image.width + i) + k];
    if (std::abs(expected - got) > levels) {
      return ::testing::AssertionFailure() << "pixel " << i << "," << j << ", channel " << k
                                           << ": expected " << expected << ", got " << got;
    }
  }
  return ::testing::AssertionSuccess();
}

// The camera a frame resolved, in double.
struct DoubleCamera {
  D3 e, u, v, w;
  double aspect, h;
  bool ortho;
  int width, height;

  DoubleCamera(const ResolvedCamera& cam, const RenderSettings& s)
      : e(d3(cam.eye)), aspect(double(s.width) / s.height), width(s.width), height(s.height) {
    w = unit(e - d3(cam.target));
    u = unit(cross(d3(cam.up), w));
    v = cross(w, u);
    ortho = s.camera.projection == Projection::orthographic;
    h = ortho ? cam.ortho_height / 2.0 : std::tan(cam.fov * M_PI / 360.0);
  }
  // The ray through (x, y) in pixel units from the image's top left corner.
  void ray(double x, double y, D3& o, D3& d) const {
    const double su = (2.0 * x / width - 1.0) * aspect * h;
    const double sv = (1.0 - 2.0 * y / height) * h;
    o = ortho ? e + u * su + v * sv : e;
    d = ortho ? w * -1.0 : unit(u * su + v * sv - w);
  }
};

// Distance to a triangle (t > 0), or inf; ambiguous near an edge. `near`: ambiguous too when the
// plane is crossed within that distance of o, before or after it (where triangles cross, a
// shadow ray starts a hair from the other one).
inline double ref_triangle(const Triangle& tri, D3 o, D3 d, bool& ambiguous, double near = 0.0) {
  const D3 a = d3(tri.a), e1 = d3(tri.b) - a, e2 = d3(tri.c) - a;
  const D3 p = cross(d, e2);
  const double det = dot(e1, p);
  if (std::abs(det) < 1e-12) return INFINITY;
  const D3 s = o - a;
  const double u = dot(s, p) / det;
  const D3 q = cross(s, e1);
  const double v = dot(d, q) / det;
  const double margin = 1e-4;
  if (std::abs(u) < margin || std::abs(v) < margin || std::abs(1 - u - v) < margin) {
    ambiguous = true;
  }
  if (u < 0 || v < 0 || u + v > 1) return INFINITY;
  const double t = dot(e2, q) / det;
  if (std::abs(t) < near) ambiguous = true;
  return t > 0 ? t : INFINITY;
}

}  // namespace granray::test
