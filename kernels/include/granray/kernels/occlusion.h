// Any-hit queries for secondary rays (SPEC 2a): is anything between a shading point and the
// light, or within ambient-occlusion distance of it? Through the same grid as primary rays, or
// against every sphere (the reference).
#pragma once

#include "granray/kernels/lighting.h"
#include "granray/kernels/trace.h"
#include "granray/kernels/walls.h"

namespace granray {

// A secondary ray of length `length` is blocked by a sphere with an intersection distance t,
// either root, in (0, length): a ray that starts inside a neighbouring grain (grains in contact
// overlap) is blocked where it leaves it. Secondary rays have unit directions, so the roots are
// -b -+ sqrt(r^2 - |l|^2) with no division (l: the centre's offset from the ray's line).
GRANRAY_HD_INLINE bool blocks(const Ray& ray, Vec4 sphere, float length) {
  const Vec3 oc = ray.origin - center_of(sphere);
  const float b = dot(oc, ray.dir);
  const Vec3 l = oc - ray.dir * b;
  const float disc = sphere.w * sphere.w - dot(l, l);
  if (!(disc > 0.0f)) return false;
  const float root = sqrtf(disc);
  const float t0 = -b - root, t1 = -b + root;
  return (t0 > 0.0f && t0 < length) || (t1 > 0.0f && t1 < length);
}

// Walks the grid's cells along the ray until a listed sphere other than `skip_id` blocks it.
struct AnyListedBlocker {
  const GridView& grid;
  const IdMap& id_of;
  const Ray& ray;
  float length;
  std::uint64_t skip_id;
  bool blocked;

  GRANRAY_HD bool done_before(float) const { return blocked; }

  GRANRAY_HD void visit(std::uint32_t first_cell, std::uint32_t last_cell) {
    if (blocked) return;
    const std::uint32_t end = grid.cell_offsets[last_cell + 1];
    for (std::uint32_t k = grid.cell_offsets[first_cell]; k < end; ++k) {
      if (blocks(ray, grid.ref_spheres[k], length) && id_of(grid.ref_index[k]) != skip_id) {
        blocked = true;
        return;
      }
    }
  }
};

// Ambient-occlusion ray k of a shading point (SPEC 2a).
GRANRAY_HD_INLINE Ray ambient_ray(const ShadingPoint& p, int i, int j, int sample, int k,
                                  const LightingParams& lighting) {
  return {p.origin, ao_direction(p.normal, i, j, sample, k, lighting.ao_samples)};
}

// Sets bit 1 + k of `words` for each blocked ambient-occlusion ray k, one query per ray.
template <class Occluder>
GRANRAY_HD_INLINE void find_ambient_blockers_by_ray(const Occluder& occluded, const ShadingPoint& p,
                                                    int i, int j, int sample,
                                                    const LightingParams& lighting,
                                                    std::uint64_t skip_id, std::uint32_t* words) {
  for (int k = 0; k < lighting.ao_samples; ++k) {
    if (occluded(ambient_ray(p, i, j, sample, k, lighting), lighting.ao_distance, skip_id)) {
      set_mask_bit(words, 1 + k);
    }
  }
}

// Every sphere whose intersection lies in (0, length) holds that point inside its listing
// cell's grown box, so the walk over [0, length] meets it.
struct GridOccluder {
  GridView grid;
  IdMap id_of;
  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    AnyListedBlocker blocker{grid, id_of, ray, length, skip_id, false};
    walk_grown_cells(grid.geometry, ray, 0.0f, length, blocker);
    return blocker.blocked;
  }
  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words) const {
    find_ambient_blockers_by_ray(*this, p, i, j, sample, lighting, skip_id, words);
  }
};

// The CPU's way with ambient occlusion: the spheres near a shading point gathered once from the
// grid, then every ray tested against that short list, where a walk per ray spent most of a lit
// frame stepping through cells (docs/benchmarks.md). Same predicate, same spheres: same bits.
// Up to kNearbySpheres candidates; a point with more takes the walks.
constexpr int kNearbySpheres = 96;
constexpr int kAmbientBatch = 32;  // directions worked out at a time

struct NearbySphereOccluder {
  GridOccluder walk;

  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    return walk(ray, length, skip_id);
  }

  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words) const {
    const GridView& g = walk.grid;
    const float length = lighting.ao_distance;
    // A blocker holds a point o + t d with 0 < t < length, so its centre lies within length + r
    // of o, and (d . n >= 0) on the normal's side of the plane r below o. The margins cover the
    // rounding of the directions and of these tests.
    const float pad = 1e-3f * g.geometry.cell_size;
    Vec4 nearby[kNearbySpheres];
    int count = 0;
    // Cells whose box lies within length + reach of o: a blocker listed once has its centre in
    // such a cell, a larger one is listed in the cell of a point it holds within length of o.
    // Each row along x keeps the cells inside that ball, not the whole box around it.
    const GridGeometry& geo = g.geometry;
    const float ball = length + geo.reach + pad;
    const float o[3] = {p.origin.x, p.origin.y, p.origin.z};
    const float origin[3] = {geo.origin.x, geo.origin.y, geo.origin.z};
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = clamp_cell((o[a] - ball - origin[a]) * geo.inv_cell_size, geo.dims[a]);
      hi[a] = clamp_cell((o[a] + ball - origin[a]) * geo.inv_cell_size, geo.dims[a]);
    }
    // Distance along one axis from o to a cell's slab (0 inside it).
    const auto slab_gap = [&geo](float coordinate, float grid_origin, int cell) {
      const float low = grid_origin + static_cast<float>(cell) * geo.cell_size;
      const float high = low + geo.cell_size;
      return coordinate < low ? low - coordinate : (coordinate > high ? coordinate - high : 0.0f);
    };
    for (int z = lo[2]; z <= hi[2]; ++z) {
      const float gz = slab_gap(o[2], origin[2], z);
      for (int y = lo[1]; y <= hi[1]; ++y) {
        const float gy = slab_gap(o[1], origin[1], y);
        const float left = ball * ball - gy * gy - gz * gz;
        if (!(left >= 0.0f)) continue;
        const float half = sqrtf(left);
        const int x0 = clamp_cell((o[0] - half - origin[0]) * geo.inv_cell_size, geo.dims[0]);
        const int x1 = clamp_cell((o[0] + half - origin[0]) * geo.inv_cell_size, geo.dims[0]);
        const std::uint32_t end = g.cell_offsets[cell_index(geo, x1, y, z) + 1];
        for (std::uint32_t k = g.cell_offsets[cell_index(geo, x0, y, z)]; k < end; ++k) {
          const Vec4 s = g.ref_spheres[k];
          const Vec3 to_centre = center_of(s) - p.origin;
          const float reach = length + s.w + pad;
          if (dot(to_centre, to_centre) >= reach * reach) continue;
          if (dot(to_centre, p.normal) <= -(s.w + pad)) continue;
          if (walk.id_of(g.ref_index[k]) == skip_id) continue;
          if (count == kNearbySpheres) {
            find_ambient_blockers_by_ray(walk, p, i, j, sample, lighting, skip_id, words);
            return;
          }
          nearby[count++] = s;
        }
      }
    }
    if (count == 0) return;
    // Every ray of a batch against one sphere at a time, written as `blocks` is (the same
    // operations in the same order, so the same bits) but without branches, so that the compiler
    // tests several rays at once; a sphere a ray misses gives a NaN root that no test passes.
    float dx[kAmbientBatch], dy[kAmbientBatch], dz[kAmbientBatch];
    int hit[kAmbientBatch];
    for (int first = 0; first < lighting.ao_samples; first += kAmbientBatch) {
      const int rays =
          lighting.ao_samples - first < kAmbientBatch ? lighting.ao_samples - first : kAmbientBatch;
      for (int k = 0; k < rays; ++k) {
        const Vec3 d = ambient_ray(p, i, j, sample, first + k, lighting).dir;
        dx[k] = d.x;
        dy[k] = d.y;
        dz[k] = d.z;
        hit[k] = 0;
      }
      for (int c = 0; c < count; ++c) {
        const Vec3 oc = p.origin - center_of(nearby[c]);
        const float r2 = nearby[c].w * nearby[c].w;
        for (int k = 0; k < rays; ++k) {
          const float b = oc.x * dx[k] + oc.y * dy[k] + oc.z * dz[k];
          const float lx = oc.x - dx[k] * b, ly = oc.y - dy[k] * b, lz = oc.z - dz[k] * b;
          const float disc = r2 - (lx * lx + ly * ly + lz * lz);
          const float root = sqrtf(disc);
          const float t0 = -b - root, t1 = -b + root;
          hit[k] |= static_cast<int>(disc > 0.0f) &
                    ((static_cast<int>(t0 > 0.0f) & static_cast<int>(t0 < length)) |
                     (static_cast<int>(t1 > 0.0f) & static_cast<int>(t1 < length)));
        }
      }
      for (int k = 0; k < rays; ++k) {
        if (hit[k] != 0) set_mask_bit(words, 1 + first + k);
      }
    }
  }
};

// The walls block secondary rays too (SPEC 2b): a ray the spheres leave free is tested against
// the walls' tree (or, for the reference, every triangle).
template <class Occluder>
struct WithWalls {
  Occluder spheres;
  WallView walls;

  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    return spheres(ray, length, skip_id) || wall_blocks(walls, ray, length);
  }
  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words) const {
    spheres.ambient(p, i, j, sample, lighting, skip_id, words);
    for (int k = 0; k < lighting.ao_samples; ++k) {
      if (!mask_bit(words, 1 + k) &&
          wall_blocks(walls, ambient_ray(p, i, j, sample, k, lighting), lighting.ao_distance)) {
        set_mask_bit(words, 1 + k);
      }
    }
  }
};

// The reference: every renderable sphere.
struct BruteForceOccluder {
  const Vec4* spheres;
  std::uint32_t count;
  IdMap id_of;
  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    for (std::uint32_t index = 0; index < count; ++index) {
      const Vec4 s = spheres[index];
      if (is_renderable(s) && blocks(ray, s, length) && id_of(index) != skip_id) return true;
    }
    return false;
  }
  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words) const {
    find_ambient_blockers_by_ray(*this, p, i, j, sample, lighting, skip_id, words);
  }
};

}  // namespace granray
