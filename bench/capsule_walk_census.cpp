#include "capsule_walk_census.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>

#include "granray/kernels/capsule.h"
#include "granray/kernels/dda.h"
#include "granray/renderer.h"
#include "walk_census.h"

namespace granray::bench {
namespace {

Vec3 min(Vec3 a, Vec3 b) { return {std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)}; }
Vec3 max(Vec3 a, Vec3 b) { return {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)}; }

// A drawn capsule, cut back to what its grains leave showing as a frame that draws every grain
// cuts it, and the index of the grain it starts from.
struct MadeCapsule {
  Capsule capsule;
  std::uint32_t first;
};

std::vector<MadeCapsule> made_capsules(const std::vector<Vec4>& grains, const ContactPairs& pairs,
                                       const ContactSettings& c) {
  float f_max = 0.0f;
  double sum = 0.0;
  for (const float f : pairs.value) {
    f_max = std::max(f_max, f);
    sum += f;
  }
  const double at_least = c.threshold * sum / double(std::max<std::size_t>(pairs.value.size(), 1));
  std::vector<MadeCapsule> made;
  for (std::size_t k = 0; k < pairs.value.size(); ++k) {
    if (!(pairs.value[k] >= at_least)) continue;
    const std::uint32_t first = std::min(pairs.first[k], pairs.second[k]);
    const Vec4 p = grains[first], q = grains[std::max(pairs.first[k], pairs.second[k])];
    const float share = c.scale_by_force && f_max > 0.0f ? std::sqrt(pairs.value[k] / f_max) : 1.0f;
    const Capsule whole{center_of(p), center_of(q), c.width * std::min(p.w, q.w) * share};
    if (!(whole.radius > 0.0f)) continue;
    const Capsule cut = capsule_outside_spheres(whole, p.w, q.w, true, true);
    if (!(cut.radius > 0.0f)) continue;  // hidden whole inside its two grains
    made.push_back({cut, first});
  }
  return made;
}

// A grid of `cell` over [lo, hi] (grown by a margin) whose walk reaches `reach` cells' worth.
GridGeometry geometry_over(Vec3 lo, Vec3 hi, float cell, float reach) {
  GridGeometry g{};
  const Vec3 margin{cell * 0.01f, cell * 0.01f, cell * 0.01f};
  g.origin = lo - margin;
  const Vec3 extent = hi - lo + margin * 2.0f;
  g.cell_size = cell;
  g.inv_cell_size = 1.0f / cell;
  g.dims[0] = std::max(1, static_cast<int>(std::ceil(extent.x / cell)));
  g.dims[1] = std::max(1, static_cast<int>(std::ceil(extent.y / cell)));
  g.dims[2] = std::max(1, static_cast<int>(std::ceil(extent.z / cell)));
  g.centre_radius = reach;
  g.reach = reach + kCellListingPad * cell;
  return g;
}

CellRange cells_of_box(const GridGeometry& g, Vec3 lo, Vec3 hi) {
  const float pad = kCellListingPad * g.cell_size;
  CellRange r{};
  for (int a = 0; a < 3; ++a) {
    const float o = component(g.origin, a);
    r.lo[a] = clamp_cell((component(lo, a) - pad - o) * g.inv_cell_size, g.dims[a]);
    r.hi[a] = clamp_cell((component(hi, a) + pad - o) * g.inv_cell_size, g.dims[a]);
  }
  return r;
}

// A listing's cells: each item's cell range counted into its cells, and the counts scanned into
// each cell's first reference (the walk needs how many a cell lists, not which).
struct Listing {
  GridGeometry geometry;
  std::vector<std::uint32_t> offsets;  // cells + 1
  std::uint64_t references = 0;
};

template <class RangeOf>
Listing list(const GridGeometry& g, std::size_t items, RangeOf range_of) {
  Listing l{g, {}, 0};
  const std::size_t cells = std::size_t(g.dims[0]) * g.dims[1] * g.dims[2];
  l.offsets.assign(cells + 1, 0u);
  for (std::size_t k = 0; k < items; ++k) {
    const CellRange r = range_of(k);
    for (int z = r.lo[2]; z <= r.hi[2]; ++z)
      for (int y = r.lo[1]; y <= r.hi[1]; ++y)
        for (int x = r.lo[0]; x <= r.hi[0]; ++x) ++l.offsets[cell_index(g, x, y, z) + 1];
  }
  for (std::size_t c = 0; c < cells; ++c) l.offsets[c + 1] += l.offsets[c];
  l.references = l.offsets[cells];
  return l;
}

// The walk over a listing's grown cells along a ray, to a length, every cell entered.
struct CountingVisitor {
  const std::uint32_t* offsets;
  double runs = 0, tests = 0;
  bool done_before(float) const { return false; }
  void visit(std::uint32_t first, std::uint32_t last) {
    runs += 1;
    tests += offsets[last + 1] - offsets[first];
  }
};

// The walk over the grains' own grid (the renderer's), each visited grain bringing the capsules
// that start there: all of them, or, `behind_spheres`, one test of a sphere about the grain's
// centre that holds them all and its capsules only where the ray meets that sphere.
struct ThroughGrainsVisitor {
  const GridView& grid;
  const std::vector<Vec4>& bounds;             // per grain: its capsules' sphere (w: 0, none)
  const std::vector<std::uint32_t>& starting;  // per grain: how many capsules start there
  bool behind_spheres;
  Ray ray{};
  float length = 0.0f;
  double runs = 0, tests = 0;
  bool done_before(float) const { return false; }
  void visit(std::uint32_t first, std::uint32_t last) {
    runs += 1;
    for (std::uint32_t r = grid.cell_offsets[first]; r < grid.cell_offsets[last + 1]; ++r) {
      const std::uint32_t g = grid.ref_index[r];
      if (!behind_spheres) {
        tests += starting[g];
        continue;
      }
      const Vec4 b = bounds[g];
      tests += 1;
      const Vec3 to = center_of(b) - ray.origin;
      const float along = std::clamp(dot(to, ray.dir), 0.0f, length);
      const Vec3 off = to - ray.dir * along;
      if (dot(off, off) <= b.w * b.w) tests += starting[g];
    }
  }
};

template <class Visitor>
CapsuleListingCount count_walks(const char* name, const GridGeometry& g, std::uint64_t references,
                                const std::vector<Ray>& rays, float length, Visitor v) {
  for (const Ray& ray : rays) {
    if constexpr (std::is_same_v<Visitor, ThroughGrainsVisitor>) {
      v.ray = ray;
      v.length = length;
    }
    walk_grown_cells(g, ray, 0.0f, length, v);
  }
  const double along = static_cast<double>(rays.size()) * length;
  return {name,           {g.dims[0], g.dims[1], g.dims[2]}, g.cell_size,
          references,     g.reach * g.inv_cell_size,         v.runs / along,
          v.tests / along};
}

}  // namespace

CapsuleWalkCensus capsule_walk_census(const std::vector<Vec4>& grains, const ContactPairs& pairs,
                                      const ContactSettings& settings) {
  const std::vector<MadeCapsule> made = made_capsules(grains, pairs, settings);
  if (made.empty() || grains.empty()) return {};
  // The capsules' box and widest bounding sphere; each grain's capsules, how many start there and
  // one sphere about its centre that holds them.
  Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  float widest = 0.0f, farthest = 0.0f;
  std::vector<Vec4> bounds(grains.size());
  std::vector<std::uint32_t> starting(grains.size(), 0u);
  for (std::size_t g = 0; g < grains.size(); ++g) {
    bounds[g] = {grains[g].x, grains[g].y, grains[g].z, 0.0f};
  }
  for (const MadeCapsule& m : made) {
    const Capsule& c = m.capsule;
    const Vec3 r{c.radius, c.radius, c.radius};
    lo = min(lo, min(c.a, c.b) - r);
    hi = max(hi, max(c.a, c.b) + r);
    const Vec3 half = (c.b - c.a) * 0.5f;
    widest = std::max(widest, std::sqrt(dot(half, half)) + c.radius);
    Vec4& around = bounds[m.first];
    const Vec3 to_a = c.a - center_of(around), to_b = c.b - center_of(around);
    around.w = std::max(around.w, std::sqrt(std::max(dot(to_a, to_a), dot(to_b, to_b))) + c.radius);
    farthest = std::max(farthest, around.w);
    ++starting[m.first];
  }
  // The renderer's capsules' grid: two cells a drawn capsule over their box.
  const Vec3 span = hi - lo;
  const float cell = std::cbrt(span.x * span.y * span.z / (2.0f * float(made.size())));
  const GridGeometry boxes = geometry_over(lo, hi, cell, 0.0f);
  const Listing by_boxes = list(boxes, made.size(), [&](std::size_t k) {
    const Capsule& c = made[k].capsule;
    const Vec3 r{c.radius, c.radius, c.radius};
    return cells_of_box(boxes, min(c.a, c.b) - r, max(c.a, c.b) + r);
  });
  const GridGeometry midpoints = geometry_over(lo, hi, cell, widest);
  const Listing by_midpoints = list(midpoints, made.size(), [&](std::size_t k) {
    const Vec3 mid = (made[k].capsule.a + made[k].capsule.b) * 0.5f;
    return centre_cells(midpoints, Vec4{mid.x, mid.y, mid.z, 0.0f});
  });
  // The grains' own grid, as the renderer lays it out for a frame, its walk grown to reach the
  // farthest capsule point from the centre of the grain it starts from.
  ParticleView view;
  view.xyzr = grains.data();
  view.count = grains.size();
  const HostGrid grain_grid = Renderer(BackendKind::cpu).build_grid(view);
  GridView through = grain_grid.view(false);
  through.geometry.reach = farthest + kCellListingPad * through.geometry.cell_size;
  // Rays leaving the grains' surfaces (ray_leaving_grain), each walked four mean diameters (an
  // occlusion ray's reach).
  float mean_radius = 0.0f;
  for (const Vec4& g : grains) mean_radius += g.w;
  mean_radius /= float(grains.size());
  const float length = 8.0f * mean_radius;
  std::mt19937 random(12345);
  std::vector<Ray> rays;
  const std::size_t step = std::max<std::size_t>(1, grains.size() / 200000);
  for (std::size_t k = 0; k < grains.size(); k += step) {
    rays.push_back(ray_leaving_grain(grains[k], random));
  }
  std::uint64_t through_references = 0;  // capsules listed through their grains' references
  for (std::size_t r = 0; r < grain_grid.ref_index.size(); ++r) {
    through_references += starting[grain_grid.ref_index[r]];
  }
  const auto counting = [](const Listing& l) { return CountingVisitor{l.offsets.data()}; };
  CapsuleWalkCensus census;
  census.capsules = made.size();
  census.rays = rays.size();
  census.length = length;
  census.by_boxes = count_walks("by boxes", by_boxes.geometry, by_boxes.references, rays, length,
                                counting(by_boxes));
  census.by_midpoints = count_walks("by midpoints", by_midpoints.geometry, by_midpoints.references,
                                    rays, length, counting(by_midpoints));
  census.through_grains =
      count_walks("through the grains' cells", through.geometry, through_references, rays, length,
                  ThroughGrainsVisitor{through, bounds, starting, false});
  census.behind_spheres = count_walks(
      "through the grains' cells, each grain's capsules behind one sphere (tests: those spheres "
      "and the capsules behind the ones met)",
      through.geometry, grain_grid.ref_index.size(), rays, length,
      ThroughGrainsVisitor{through, bounds, starting, true});
  return census;
}

std::string describe(const CapsuleWalkCensus& census) {
  if (census.capsules == 0) return "no capsule drawn";
  char head[200];
  std::snprintf(head, sizeof head,
                "%zu capsules drawn, %zu rays from the grains walked %.2f each; listing:",
                census.capsules, census.rays, census.length);
  std::string text = head;
  for (const CapsuleListingCount* c :
       {&census.by_boxes, &census.by_midpoints, &census.through_grains, &census.behind_spheres}) {
    char line[400];
    std::snprintf(line, sizeof line,
                  "\n%s: %d x %d x %d cells of %.3f, %.2f references a cell, reach %.2f cells; a "
                  "unit of ray enters %.2f runs of cells and tests %.2f",
                  c->name.c_str(), c->dims[0], c->dims[1], c->dims[2], c->cell,
                  double(c->references) / (double(c->dims[0]) * c->dims[1] * c->dims[2]),
                  c->reach_cells, c->runs, c->tests);
    text += line;
  }
  return text;
}

}  // namespace granray::bench
