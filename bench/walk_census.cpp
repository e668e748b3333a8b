#include "walk_census.h"

#include <algorithm>
#include <cstdio>

#include "granray/camera.h"
#include "granray/kernels/trace.h"

namespace granray::bench {
namespace {

// The nearest hit, counting what the walk hands it.
struct CountingNearest {
  const GridView& grid;
  const Ray& ray;
  float best = INFINITY;
  long slabs = 0, tests = 0;
  bool done_before(float t) {
    ++slabs;
    return best < t;
  }
  bool take(std::uint32_t k) {
    ++tests;
    best = std::min(best, sphere_entry_distance(ray, grid.ref_spheres[k]));
    return false;
  }
};

void count_walks(const GridView& grid, const CameraFrame& camera, bool leap, WalkCount& count) {
  const int w = camera.width, h = camera.height;
  std::vector<long> turns(std::size_t(w) * h, 0);
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i) {
      const Ray ray = primary_ray(camera, i, j);
      CountingNearest nearest{grid, ray};
      GrownCellWalk probe;
      CellSlab slab;
      if (!probe.start(grid.geometry, ray, 0.0f, INFINITY, slab)) continue;
      nearest.slabs = 1;  // the first slab
      if (leap) {
        walk_listed_spheres_leaping(grid, ray, 0.0f, INFINITY, nearest);
      } else {
        walk_listed_spheres_between(grid, ray, 0.0f, INFINITY, nearest);
      }
      count.rays += 1;
      count.hits += nearest.best < INFINITY;
      count.slabs += nearest.slabs;
      count.tests += nearest.tests;
      turns[std::size_t(j) * w + i] = nearest.slabs + nearest.tests;
    }
  }
  for (int j = 0; j < h; j += 2) {
    for (int i = 0; i < w; i += 16) {
      long most = 0;
      for (int y = j; y < std::min(h, j + 2); ++y)
        for (int x = i; x < std::min(w, i + 16); ++x)
          most = std::max(most, turns[std::size_t(y) * w + x]);
      count.longest_lanes += most;
    }
  }
}

}  // namespace

WalkCensus walk_census(const HostGrid& grid, const ParticleView& view, const RenderSettings& s) {
  Renderer renderer(BackendKind::cpu);
  const CameraFrame camera = resolve_camera(s, renderer.measure(view).bounds).frame;
  WalkCensus census;
  census.width = camera.width;
  census.height = camera.height;
  count_walks(grid.view(false), camera, false, census.every_cell);
  const GridView leaping = grid.view(true);
  count_walks(leaping, camera, leaping.clearance != nullptr, census.leaping);
  return census;
}

std::string describe(const WalkCensus& census) {
  const auto line = [&](const char* name, const WalkCount& c) {
    const double rays = std::max(c.rays, 1.0);
    char text[200];
    std::snprintf(text, sizeof text,
                  "%s: %.0f rays in the grid, %.0f %% hit; a ray %.1f slabs and leaps, %.1f "
                  "grains tested; warps' longest lanes %.0f turns",
                  name, c.rays, 100.0 * c.hits / rays, c.slabs / rays, c.tests / rays,
                  c.longest_lanes);
    return std::string(text);
  };
  return line("every cell", census.every_cell) + "\n" + line("leaping", census.leaping);
}

}  // namespace granray::bench
