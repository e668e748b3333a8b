#include "granray/walls.h"

#include <cmath>

#include "granray/errors.h"

namespace granray {
namespace {

constexpr double kPi = 3.14159265358979323846;

template <class Move>
std::vector<Triangle> moved(const std::vector<Triangle>& triangles, Move move) {
  std::vector<Triangle> out;
  out.reserve(triangles.size());
  for (const Triangle& t : triangles) out.push_back({move(t.a), move(t.b), move(t.c)});
  return out;
}

}  // namespace

Vec3 RigidTransform::apply(Vec3 p) const {
  const float in[3] = {p.x, p.y, p.z};
  float out[3];
  for (int r = 0; r < 3; ++r) {
    out[r] = rotation[r][0] * in[0] + rotation[r][1] * in[1] + rotation[r][2] * in[2];
  }
  return {out[0] + translation.x, out[1] + translation.y, out[2] + translation.z};
}

RigidTransform RigidTransform::rotation_about(Vec3 point, Vec3 axis, double degrees) {
  const double len =
      std::sqrt(double(axis.x) * axis.x + double(axis.y) * axis.y + double(axis.z) * axis.z);
  if (!(len > 0.0) || !std::isfinite(len)) {
    throw ConfigError("granray: a rotation's axis must be finite and not zero");
  }
  const double x = axis.x / len, y = axis.y / len, z = axis.z / len;
  const double a = degrees * kPi / 180.0, c = std::cos(a), s = std::sin(a), k = 1.0 - c;
  // Rodrigues' formula.
  const double m[3][3] = {{c + x * x * k, x * y * k - z * s, x * z * k + y * s},
                          {y * x * k + z * s, c + y * y * k, y * z * k - x * s},
                          {z * x * k - y * s, z * y * k + x * s, c + z * z * k}};
  RigidTransform t;
  const double p[3] = {point.x, point.y, point.z};
  double shift[3];
  for (int r = 0; r < 3; ++r) {
    for (int col = 0; col < 3; ++col) t.rotation[r][col] = static_cast<float>(m[r][col]);
    // The axis' point stays where it is: t = p - M p.
    shift[r] = p[r] - (m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2]);
  }
  t.translation = {static_cast<float>(shift[0]), static_cast<float>(shift[1]),
                   static_cast<float>(shift[2])};
  return t;
}

RigidTransform RigidTransform::translation_by(Vec3 offset) {
  RigidTransform t;
  t.translation = offset;
  return t;
}

std::vector<Triangle> transformed(const std::vector<Triangle>& triangles, const RigidTransform& m) {
  return moved(triangles, [&](Vec3 p) { return m.apply(p); });
}

std::vector<Triangle> scaled_and_translated(const std::vector<Triangle>& triangles, float scale,
                                            Vec3 offset) {
  return moved(triangles, [&](Vec3 p) { return p * scale + offset; });
}

std::vector<Triangle> box_triangles(Vec3 lo, Vec3 hi) {
  // Corner k has x from bit 0, y from bit 1, z from bit 2.
  const auto corner = [&](int k) {
    return Vec3{(k & 1) ? hi.x : lo.x, (k & 2) ? hi.y : lo.y, (k & 4) ? hi.z : lo.z};
  };
  // Each face's corners counter-clockwise seen from outside.
  const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5},   // -x, +x
                           {0, 1, 5, 4}, {2, 6, 7, 3},   // -y, +y
                           {0, 2, 3, 1}, {4, 5, 7, 6}};  // -z, +z
  std::vector<Triangle> out;
  for (const auto& f : faces) {
    out.push_back({corner(f[0]), corner(f[1]), corner(f[2])});
    out.push_back({corner(f[0]), corner(f[2]), corner(f[3])});
  }
  return out;
}

std::vector<Triangle> cylinder_triangles(Vec3 base, Vec3 axis, float radius, float height,
                                         int segments) {
  const float len = std::sqrt(dot(axis, axis));
  if (!(len > 0.0f) || !std::isfinite(len)) {
    throw ConfigError("granray: a cylinder's axis must be finite and not zero");
  }
  const Vec3 w = axis * (1.0f / len);
  // Any unit vector across the axis, then the third by the right-hand rule.
  const Vec3 helper = std::fabs(w.x) < 0.9f ? Vec3{1.0f, 0.0f, 0.0f} : Vec3{0.0f, 1.0f, 0.0f};
  const Vec3 u = normalize(cross(helper, w));
  const Vec3 v = cross(w, u);
  const Vec3 top = base + w * height;
  std::vector<Triangle> out;
  out.reserve(4 * static_cast<std::size_t>(segments));
  const auto rim = [&](Vec3 centre, int k) {
    const double a = 2.0 * kPi * (k % segments) / segments;
    return centre + u * static_cast<float>(radius * std::cos(a)) +
           v * static_cast<float>(radius * std::sin(a));
  };
  for (int k = 0; k < segments; ++k) {
    const Vec3 b0 = rim(base, k), b1 = rim(base, k + 1), t0 = rim(top, k), t1 = rim(top, k + 1);
    out.push_back({b0, b1, t1});  // the side, facing out
    out.push_back({b0, t1, t0});
  }
  // Each cap zig-zags across the rim polygon between vertices k and segments - 1 - k: parallel
  // chords, so every triangle is a thin band whose box holds little else. A fan from the centre
  // has the same count but boxes from the centre to the rim that overlap by thousands, and every
  // ray that reaches the cap tested them (docs/benchmarks.md).
  const auto cap = [&](Vec3 centre, Vec3 outward) {
    const auto facing = [&](Vec3 p, Vec3 q, Vec3 r) {
      return dot(cross(q - p, r - p), outward) > 0.0f ? Triangle{p, q, r} : Triangle{p, r, q};
    };
    int lo = 0, hi = segments - 1;
    while (hi - lo >= 2) {
      out.push_back(facing(rim(centre, lo), rim(centre, lo + 1), rim(centre, hi)));
      ++lo;
      if (hi - lo < 2) break;
      out.push_back(facing(rim(centre, lo), rim(centre, hi - 1), rim(centre, hi)));
      --hi;
    }
  };
  cap(base, w * -1.0f);
  cap(top, w);
  return out;
}

}  // namespace granray
