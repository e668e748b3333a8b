#include "wall_scenes.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace granray::test {

SceneBounds box_of(const std::vector<Vec4>& spheres) {
  SceneBounds b{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0, 0.0, 0.0f};
  for (const Vec4& s : spheres) {
    b.lo = {std::min(b.lo.x, s.x - s.w), std::min(b.lo.y, s.y - s.w), std::min(b.lo.z, s.z - s.w)};
    b.hi = {std::max(b.hi.x, s.x + s.w), std::max(b.hi.y, s.y + s.w), std::max(b.hi.z, s.z + s.w)};
  }
  return b;
}

Vec3 random_point(Rng& rng, const SceneBounds& b, float grow) {
  const auto coord = [&](float lo, float hi) {
    const float pad = grow * (hi - lo);
    return uniform(rng, lo - pad, hi + pad);
  };
  return {coord(b.lo.x, b.hi.x), coord(b.lo.y, b.hi.y), coord(b.lo.z, b.hi.z)};
}

// Triangles of every size and slant through and around the grains.
std::vector<Triangle> triangle_soup(Rng& rng, const SceneBounds& b, std::size_t n) {
  std::vector<Triangle> out;
  const float size = b.hi.x - b.lo.x;
  for (std::size_t k = 0; k < n; ++k) {
    const Vec3 a = random_point(rng, b, 0.1f);
    const float reach = size * uniform(rng, 0.02f, 0.4f);
    const auto near = [&] {
      return a + Vec3{uniform(rng, -reach, reach), uniform(rng, -reach, reach),
                      uniform(rng, -reach, reach)};
    };
    out.push_back({a, near(), near()});
  }
  return out;
}

// A scene's walls: a soup of up to `most_soup` triangles, a container box (back faces) around
// the grains, a cylinder.
std::shared_ptr<WallList> random_walls(Rng& rng, const SceneBounds& b, int most_soup,
                                       double see_through) {
  auto walls = std::make_shared<WallList>();
  const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
  if (kind == 0 || kind == 3) {
    Wall soup;
    soup.triangles = triangle_soup(rng, b, std::uniform_int_distribution<int>(1, most_soup)(rng));
    soup.color = {uniform(rng, 0.1f, 1.0f), uniform(rng, 0.1f, 1.0f), uniform(rng, 0.1f, 1.0f)};
    walls->push_back(std::move(soup));
  }
  if (kind == 1 || kind == 3) {
    Wall box;
    const Vec3 pad = (b.hi - b.lo) * uniform(rng, 0.0f, 0.2f);
    box.triangles = box_triangles(b.lo - pad, b.hi + pad);
    box.faces = WallFaces::back;
    walls->push_back(std::move(box));
  }
  if (kind == 2 || kind == 3) {
    Wall drum;
    const Vec3 c = (b.lo + b.hi) * 0.5f;
    const Vec3 axis = normalize({uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)});
    const float r = 0.5f * (b.hi.x - b.lo.x) * uniform(rng, 0.5f, 1.2f);
    drum.triangles = cylinder_triangles(c - axis * r, axis, r, 2.0f * r,
                                        std::uniform_int_distribution<int>(3, 200)(rng));
    drum.faces = std::uniform_int_distribution<int>(0, 1)(rng) ? WallFaces::back : WallFaces::all;
    walls->push_back(std::move(drum));
  }
  if (see_through > 0.0) {
    for (Wall& w : *walls) {
      if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) < see_through) {
        w.opacity = uniform(rng, 0.1f, 0.9f);
      }
    }
  }
  return walls;
}

std::vector<ClipPlane> random_clip(Rng& rng, const SceneBounds& b) {
  std::vector<ClipPlane> planes;
  const int n = std::uniform_int_distribution<int>(0, 2)(rng);
  for (int k = 0; k < n; ++k) {
    planes.push_back({random_point(rng, b, -0.2f),
                      normalize({uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)})});
  }
  return planes;
}

}  // namespace granray::test
