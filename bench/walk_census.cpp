#include "walk_census.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "granray/camera.h"
#include "granray/kernels/path_trace.h"
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

// Ray's walk added to `count`: its turns (slabs and leaps, grains tested), or 0 where it misses
// the grid.
long count_walk(const GridView& grid, const Ray& ray, bool leap, WalkCount& count) {
  CountingNearest nearest{grid, ray};
  GrownCellWalk probe;
  CellSlab slab;
  if (!probe.start(grid.geometry, ray, 0.0f, INFINITY, slab)) return 0;
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
  return nearest.slabs + nearest.tests;
}

void count_walks(const GridView& grid, const CameraFrame& camera, bool leap, WalkCount& count) {
  const int w = camera.width, h = camera.height;
  std::vector<long> turns(std::size_t(w) * h, 0);
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i) {
      turns[std::size_t(j) * w + i] = count_walk(grid, primary_ray(camera, i, j), leap, count);
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

// Rays that leave the grains as a path's first bounce does (ray_leaving_grain), from every
// `step`-th grain.
void count_bounce_walks(const GridView& grid, const ParticleView& view, bool leap,
                        WalkCount& count) {
  const std::size_t step = std::max<std::size_t>(1, view.count / 500000);
  std::mt19937 random(12345);
  long lane = 0, most = 0;
  for (std::size_t k = 0; k < view.count; k += step) {
    most = std::max(most, count_walk(grid, ray_leaving_grain(view.xyzr[k], random), leap, count));
    if (++lane == 32) {
      count.longest_lanes += most;
      lane = most = 0;
    }
  }
}

}  // namespace

Ray ray_leaving_grain(Vec4 g, std::mt19937& random) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float z = 2.0f * unit(random) - 1.0f, phi = 6.2831853f * unit(random);
  const float s = std::sqrt(std::max(0.0f, 1.0f - z * z));
  const Vec3 n{s * std::cos(phi), s * std::sin(phi), z};
  const float u1 = unit(random), u2 = unit(random);
  return {Vec3{g.x, g.y, g.z} + n * (g.w * 1.001f), cosine_direction(n, u1, u2)};
}

WalkCensus walk_census(const HostGrid& grid, const ParticleView& view, const RenderSettings& s) {
  Renderer renderer(BackendKind::cpu);
  const CameraFrame camera = resolve_camera(s, renderer.measure(view).bounds).frame;
  WalkCensus census;
  census.width = camera.width;
  census.height = camera.height;
  count_walks(grid.view(false), camera, false, census.every_cell);
  const GridView leaping = grid.view(true);
  count_walks(leaping, camera, leaping.clearance != nullptr, census.leaping);
  count_bounce_walks(grid.view(false), view, false, census.bounce_every_cell);
  count_bounce_walks(leaping, view, leaping.clearance != nullptr, census.bounce_leaping);
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
  return line("every cell", census.every_cell) + "\n" + line("leaping", census.leaping) + "\n" +
         line("bounces, every cell", census.bounce_every_cell) + "\n" +
         line("bounces, leaping", census.bounce_leaping);
}

}  // namespace granray::bench
