// Double-precision vectors for the tests' independent references of the image model (SPEC 2,
// 2a, 2b written out again, apart from the kernels' float code).
#pragma once

#include <cmath>

#include "granray/kernels/vec.h"

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

}  // namespace granray::test
