#include "scene_suite.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "granray/errors.h"

namespace granray::bench {
namespace {

constexpr float kPi = 3.14159265f;
// Lattice points one spacing apart hold grains of these radii: touching, not overlapping much,
// as in a settled polydisperse bed (jittered by up to a tenth of the spacing).
constexpr float kRadiusLo = 0.38f, kRadiusHi = 0.5f, kSpacing = 1.0f;

struct Maker {
  std::mt19937_64 rng;
  std::uniform_real_distribution<float> unit{0.0f, 1.0f};

  float radius() { return kRadiusLo + (kRadiusHi - kRadiusLo) * unit(rng); }
  float jitter() { return 0.1f * kSpacing * (unit(rng) - 0.5f); }
  Vec4 grain_at(float x, float y, float z) {
    return {x + jitter(), y + jitter(), z + jitter(), radius()};
  }
};

// Lattice points (spacing 1) inside `inside(x, y, z)` over the box [lo, hi], lowest first.
template <class Inside>
std::vector<Vec4> fill(Maker& m, Vec3 lo, Vec3 hi, Inside inside) {
  std::vector<Vec4> grains;
  for (float z = lo.z; z <= hi.z; z += kSpacing) {
    for (float y = lo.y; y <= hi.y; y += kSpacing) {
      for (float x = lo.x; x <= hi.x; x += kSpacing) {
        if (inside(x, y, z)) grains.push_back(m.grain_at(x, y, z));
      }
    }
  }
  return grains;
}

// Grows `scale` until the shape holds at least `count` lattice points, then keeps the lowest
// `count` (a bed settles from the bottom).
template <class Shape>
std::vector<Vec4> settled(Maker& m, std::size_t count, float scale, Shape shape) {
  std::vector<Vec4> grains;
  for (;;) {
    grains = shape(m, scale);
    if (grains.size() >= count) break;
    scale *= std::cbrt(1.01f * float(count) / float(std::max<std::size_t>(grains.size(), 1)));
  }
  grains.resize(count);
  return grains;
}

std::vector<Vec4> dense_bed(std::size_t n, float poly, std::uint64_t seed) {
  // Grains on a jittered lattice spacing 1.9 r_max, radii uniform in [1 - poly, 1], flat 2:2:1/2.
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.1f, 0.1f), radius(1.0f - poly, 1.0f);
  const auto side = static_cast<std::size_t>(std::ceil(std::cbrt(2.0 * n)));
  std::vector<Vec4> grains(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t x = k % side, y = (k / side) % side, z = k / (side * side);
    grains[k] = {1.9f * x + jitter(rng), 1.9f * y + jitter(rng), 1.9f * z + jitter(rng),
                 radius(rng)};
  }
  return grains;
}

std::vector<Vec4> dilute_gas(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const float box = 8.0f * std::cbrt(static_cast<float>(n));  // ~1 % solid fraction
  std::uniform_real_distribution<float> pos(0.0f, box);
  std::vector<Vec4> grains(n);
  for (auto& g : grains) g = {pos(rng), pos(rng), pos(rng), 1.0f};
  return grains;
}

// A cone at the angle of repose (30 degrees) on the floor z = 0: its box is three-quarters air.
std::vector<Vec4> heap(Maker& m, std::size_t n) {
  const float slope = std::tan(30.0f * kPi / 180.0f);
  const float r0 = std::cbrt(3.0f * float(n) / (kPi * slope));
  return settled(m, n, r0, [&](Maker& mk, float r) {
    const float h = r * slope;
    return fill(mk, {-r, -r, 0.5f}, {r, r, h}, [&](float x, float y, float z) {
      return std::sqrt(x * x + y * y) <= r * (1.0f - z / h);
    });
  });
}

// A drum of radius R along y, length R, filled to its axis with the free surface tilted 30
// degrees by the rotation, inside its cylinder (back faces: the near side hides nothing).
SuiteScene drum(Maker& m, std::size_t n) {
  const float tilt = std::tan(30.0f * kPi / 180.0f);
  const float r0 = std::cbrt(2.0f * float(n) / kPi);
  SuiteScene s;
  float radius = r0;
  s.grains = settled(m, n, r0, [&](Maker& mk, float r) {
    radius = r;
    const float inner = r - kRadiusHi;
    return fill(mk, {-r, 0.0f, -r}, {r, r, r}, [&](float x, float, float z) {
      return x * x + z * z <= inner * inner && z <= tilt * x;
    });
  });
  Wall wall;
  wall.name = "drum";
  wall.triangles = cylinder_triangles({0.0f, -0.5f, 0.0f}, {0.0f, 1.0f, 0.0f}, radius + 0.05f,
                                      radius + 1.0f, 256);
  wall.faces = WallFaces::back;
  s.walls.push_back(std::move(wall));
  return s;
}

// A settled layer (70 % of the grains, five grains deep) on a wide floor, and a narrow column of
// falling grains above its centre (30 %, spaced apart, up to twice the layer's width).
std::vector<Vec4> pour(Maker& m, std::size_t n) {
  const std::size_t layer_count = n * 7 / 10, column_count = n - layer_count;
  const float depth = 5.0f;
  const float half = 0.5f * std::sqrt(float(layer_count) / depth);
  std::vector<Vec4> grains = settled(m, layer_count, half, [&](Maker& mk, float h) {
    return fill(mk, {-h, -h, 0.5f}, {h, h, depth}, [](float, float, float) { return true; });
  });
  const float column = std::max(2.0f, half / 10.0f), top = depth + 4.0f * half;
  std::uniform_real_distribution<float> angle(0.0f, 2.0f * kPi), height(depth + 2.0f, top);
  for (std::size_t k = 0; k < column_count; ++k) {
    const float a = angle(m.rng), r = column * std::sqrt(m.unit(m.rng));
    grains.push_back({r * std::cos(a), r * std::sin(a), height(m.rng), m.radius()});
  }
  return grains;
}

// A hopper: a cone of half-angle 30 degrees, apex down, full of grains (90 %) above its outlet,
// and the stream below the outlet (10 %), inside the cone's wall.
SuiteScene hopper(Maker& m, std::size_t n) {
  const std::size_t cone_count = n * 9 / 10, stream_count = n - cone_count;
  const float slope = std::tan(30.0f * kPi / 180.0f);  // radius grows by slope per unit height
  const float h0 = std::cbrt(3.0f * float(cone_count) / (kPi * slope * slope));
  SuiteScene s;
  float height = h0, outlet = 2.0f;
  s.grains = settled(m, cone_count, h0, [&](Maker& mk, float h) {
    height = h;
    outlet = std::max(2.0f, 0.06f * h * slope);
    const float top = h * slope + outlet;
    return fill(mk, {-top, -top, 0.5f}, {top, top, h}, [&](float x, float y, float z) {
      return std::sqrt(x * x + y * y) <= outlet + z * slope - kRadiusHi;
    });
  });
  std::uniform_real_distribution<float> angle(0.0f, 2.0f * kPi), drop(-0.6f * height, 0.0f);
  for (std::size_t k = 0; k < stream_count; ++k) {
    const float a = angle(m.rng), r = (outlet - kRadiusHi) * std::sqrt(m.unit(m.rng));
    s.grains.push_back({r * std::cos(a), r * std::sin(a), drop(m.rng), m.radius()});
  }
  // The cone's wall as a triangle mesh (as an STL file would give it), outlet to rim.
  Wall wall;
  wall.name = "hopper";
  const int segments = 256;
  const float rim = outlet + height * slope;
  for (int k = 0; k < segments; ++k) {
    const float a0 = 2.0f * kPi * float(k) / segments, a1 = 2.0f * kPi * float(k + 1) / segments;
    const Vec3 b0{outlet * std::cos(a0), outlet * std::sin(a0), 0.0f};
    const Vec3 b1{outlet * std::cos(a1), outlet * std::sin(a1), 0.0f};
    const Vec3 t0{rim * std::cos(a0), rim * std::sin(a0), height};
    const Vec3 t1{rim * std::cos(a1), rim * std::sin(a1), height};
    wall.triangles.push_back({b0, b1, t1});
    wall.triangles.push_back({b0, t1, t0});
  }
  wall.faces = WallFaces::all;
  s.walls.push_back(std::move(wall));
  return s;
}

// A clustered gas: dense balls of grains (80 %, a few hundred grains each) and a thin gas between
// them (20 %), in a box of about 2 % solids overall.
std::vector<Vec4> clusters(Maker& m, std::size_t n) {
  const std::size_t in_clusters = n * 8 / 10;
  const std::size_t per_cluster = 400, count = std::max<std::size_t>(1, in_clusters / per_cluster);
  const float ball = std::cbrt(3.0f * float(per_cluster) / (4.0f * kPi));  // lattice spacing 1
  const float box = std::max(2.6f * std::cbrt(float(n)), 2.0f * ball + 1.0f);
  std::uniform_real_distribution<float> pos(ball, box - ball);
  std::vector<Vec4> grains;
  grains.reserve(n);
  for (std::size_t c = 0; c < count && grains.size() < in_clusters; ++c) {
    const Vec3 centre{pos(m.rng), pos(m.rng), pos(m.rng)};
    for (const Vec4& g : fill(m, centre - Vec3{ball, ball, ball}, centre + Vec3{ball, ball, ball},
                              [&](float x, float y, float z) {
                                const Vec3 d = Vec3{x, y, z} - centre;
                                return dot(d, d) <= ball * ball;
                              })) {
      if (grains.size() < in_clusters) grains.push_back(g);
    }
  }
  std::uniform_real_distribution<float> anywhere(0.0f, box);
  while (grains.size() < n)
    grains.push_back(m.grain_at(anywhere(m.rng), anywhere(m.rng), anywhere(m.rng)));
  return grains;
}

}  // namespace

const std::vector<std::string>& suite_scene_names() {
  static const std::vector<std::string> names = {"dense", "dilute", "heap",    "drum",
                                                 "pour",  "hopper", "clusters"};
  return names;
}

SuiteScene make_suite_scene(const std::string& name, std::size_t count, std::uint64_t seed,
                            float polydispersity) {
  Maker m{std::mt19937_64(seed)};
  SuiteScene s;
  if (name == "dense") {
    s.grains = dense_bed(count, polydispersity, seed);
  } else if (name == "dilute") {
    s.grains = dilute_gas(count, seed);
  } else if (name == "heap") {
    s.grains = heap(m, count);
  } else if (name == "drum") {
    s = drum(m, count);
  } else if (name == "pour") {
    s.grains = pour(m, count);
  } else if (name == "hopper") {
    s = hopper(m, count);
  } else if (name == "clusters") {
    s.grains = clusters(m, count);
  } else {
    std::string known;
    for (const std::string& n : suite_scene_names()) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("scene \"" + name + "\": not one of " + known);
  }
  return s;
}

}  // namespace granray::bench
