// The CPU's way with ambient occlusion: the spheres near a shading point gathered once from the
// grid, then every ray tested against that short list, where a walk per ray spent most of a lit
// frame stepping through cells (docs/benchmarks.md). Same predicate, same spheres: same bits.
// With several samples per pixel the grid's cells near all of them are read once for the pixel
// and each sample keeps its own from that list.
#pragma once

#include <cstdint>
#include <type_traits>

#include "granray/kernels/light_columns.h"
#include "granray/kernels/occlusion.h"

namespace granray {

// Up to kNearbySpheres candidates per shading point; a point with more takes the walks.
constexpr int kNearbySpheres = 96;
constexpr int kAmbientBatch = 32;      // directions worked out at a time
constexpr int kPixelNeighbours = 256;  // references near a pixel's samples, read once

// Calls visit(k) for each reference k listed in a cell of the grid whose box lies within `ball`
// of o (each row along x keeps the cells inside the ball, not the whole box around it), in cell
// order, until visit returns false.
template <class Visit>
GRANRAY_HD_INLINE void for_each_reference_near(const GridView& g, Vec3 p, float ball,
                                               Visit&& visit) {
  const GridGeometry& geo = g.geometry;
  const float o[3] = {p.x, p.y, p.z};
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
        if (!visit(k)) return;
      }
    }
  }
}

// The spheres near every shading point of a block of pixels' samples (FindBlockersInBlocks):
// those whose centre lies within length + r + the points' spread of the first point, with their
// ids; kept apart by coordinate for each sample's cull, which then runs over several at once
// without branches, and whole for the list it copies out. `complete` false: more than fit, or
// the points lie too far apart to share; each sample then reads the grid itself.
struct PixelNeighbours {
  float x[kPixelNeighbours], y[kPixelNeighbours], z[kPixelNeighbours], r[kPixelNeighbours];
  Vec4 sphere[kPixelNeighbours];
  std::uint64_t id[kPixelNeighbours];
  int count;
  bool complete;
};

struct NearbySphereOccluder {
  static constexpr bool gathers_nearby = true;  // the walls' leaves too (WithWalls)
  GridOccluder walk;
  LightColumnsView columns;  // for the shadow rays, when built (light_columns.h)

  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    return columns.blocks_or_walk(walk, ray, length, skip_id);
  }

  // The margin of the tests below: the rounding of the directions and of the tests themselves.
  GRANRAY_HD float pad() const { return 1e-3f * walk.grid.geometry.cell_size; }

  // Cells whose box lies within length + reach of o: a blocker listed once has its centre in
  // such a cell, a larger one is listed in the cell of a point it holds within length of o.
  GRANRAY_HD float ball(float length) const { return length + walk.grid.geometry.reach + pad(); }

  // The references near all of `points` (a pixel's samples' shading points) for rays of length
  // `length`: every reference a sample's own gather keeps (the per-sample tests, applied to this
  // list, keep the same spheres, and an "or" over them does not care for their order).
  GRANRAY_HD void gather_pixel(const Vec3* points, int n, float length,
                               PixelNeighbours& out) const {
    out.count = 0;
    out.complete = false;
    if (n == 0) return;
    const Vec3 c = points[0];
    float spread2 = 0.0f;
    for (int s = 1; s < n; ++s) {
      const Vec3 d = points[s] - c;
      const float d2 = dot(d, d);
      spread2 = spread2 > d2 ? spread2 : d2;
    }
    const float spread = sqrtf(spread2) * 1.001f + pad();
    if (!(spread <= ball(length))) return;  // a silhouette: points too far apart to share
    const GridView& g = walk.grid;
    const float pad_here = pad();
    // The references first, each written to the next slot and counted only when kept (a test
    // that passes or fails at random costs a branch mispredicted every other time); then the
    // kept ones' spheres and ids.
    std::uint32_t ref[kPixelNeighbours + 1];  // the last one a scratch slot
    int count = 0;
    for_each_reference_near(g, c, ball(length) + spread, [&](std::uint32_t k) {
      const Vec4 s = g.ref_spheres[k];
      const Vec3 to_centre = center_of(s) - c;
      const float reach = length + s.w + pad_here + spread;
      ref[count < kPixelNeighbours ? count : kPixelNeighbours] = k;
      count += static_cast<int>(!(dot(to_centre, to_centre) >= reach * reach));
      return true;
    });
    if (count > kPixelNeighbours) return;
    for (int n = 0; n < count; ++n) {
      const Vec4 s = g.ref_spheres[ref[n]];
      out.x[n] = s.x;
      out.y[n] = s.y;
      out.z[n] = s.z;
      out.r[n] = s.w;
      out.sphere[n] = s;
      out.id[n] = walk.id_of(g.ref_index[ref[n]]);
    }
    out.count = count;
    out.complete = true;
  }

  // ambient() reading the references near the pixel's samples (gather_pixel) when `pixel` holds
  // them all, the grid otherwise.
  GRANRAY_HD void ambient_near(const ShadingPoint& p, int i, int j, int sample,
                               const LightingParams& lighting, std::uint64_t skip_id,
                               std::uint32_t* words, const PixelNeighbours* pixel) const {
    ambient(p, i, j, sample, lighting, skip_id, words, NothingElse{}, pixel);
  }

  // Sets the blocked bits of the point's occlusion rays. `also` blocks what else may: it is
  // asked about the rays the spheres leave open, each direction worked out once for both.
  // `pixel`: the references near the pixel's samples (gather_pixel), read instead of the grid.
  template <class AlsoBlocks = NothingElse>
  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words, const AlsoBlocks& also = {},
                          const PixelNeighbours* pixel = nullptr) const {
    const GridView& g = walk.grid;
    const float length = lighting.ao_distance;
    // A blocker holds a point o + t d with 0 < t < length, so its centre lies within length + r
    // of o, and (d . n >= 0) on the normal's side of the plane r below o.
    const float pad_here = pad();
    // Each candidate is written to the next slot and counted only when its tests pass: they pass
    // or fail at random, and a branch on them is mispredicted every other time.
    Vec4 nearby[kNearbySpheres + 1];  // the last one a scratch slot
    int count = 0;
    if (pixel != nullptr && pixel->complete) {
      // The geometric tests over the coordinates alone first, so that the compiler tests
      // several spheres at once; then the list, in the pixel list's order.
      const Vec3 o = p.origin, n = p.normal;
      int near[kPixelNeighbours];
      for (int k = 0; k < pixel->count; ++k) {
        const Vec3 to_centre{pixel->x[k] - o.x, pixel->y[k] - o.y, pixel->z[k] - o.z};
        const float reach = length + pixel->r[k] + pad_here;
        near[k] = static_cast<int>(!(dot(to_centre, to_centre) >= reach * reach)) &
                  static_cast<int>(!(dot(to_centre, n) <= -(pixel->r[k] + pad_here)));
      }
      for (int k = 0; k < pixel->count; ++k) {
        nearby[count < kNearbySpheres ? count : kNearbySpheres] = pixel->sphere[k];
        count += near[k] & static_cast<int>(pixel->id[k] != skip_id);
      }
    } else {
      for_each_reference_near(g, p.origin, ball(length), [&](std::uint32_t k) {
        const Vec4 s = g.ref_spheres[k];
        const Vec3 to_centre = center_of(s) - p.origin;
        const float reach = length + s.w + pad_here;
        nearby[count < kNearbySpheres ? count : kNearbySpheres] = s;
        count += static_cast<int>(!(dot(to_centre, to_centre) >= reach * reach)) &
                 static_cast<int>(!(dot(to_centre, p.normal) <= -(s.w + pad_here))) &
                 static_cast<int>(walk.id_of(g.ref_index[k]) != skip_id);
        return true;
      });
    }
    const bool overflow = count > kNearbySpheres;
    if (overflow) {
      find_ambient_blockers_by_ray(walk, p, i, j, sample, lighting, skip_id, words, also);
      return;
    }
    if constexpr (std::is_same_v<AlsoBlocks, NothingElse>) {
      if (count == 0) return;
    }
    // Every ray of a batch against one sphere at a time, written as `blocks` is (the same
    // operations in the same order, so the same bits) but without branches, so that the compiler
    // tests several rays at once; a sphere a ray misses gives a NaN root that no test passes.
    const std::uint32_t seed = ao_seed(i, j, sample, lighting.ao_samples);  // as ambient_ray's
    float dx[kAmbientBatch], dy[kAmbientBatch], dz[kAmbientBatch];
    int hit[kAmbientBatch];
    for (int first = 0; first < lighting.ao_samples; first += kAmbientBatch) {
      const int rays =
          lighting.ao_samples - first < kAmbientBatch ? lighting.ao_samples - first : kAmbientBatch;
      for (int k = 0; k < rays; ++k) {
        const Vec3 d = ao_direction_of_seed(p.normal, seed, first + k, lighting.ao_samples);
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
        if (hit[k] != 0 || also(Ray{p.origin, {dx[k], dy[k], dz[k]}}, length)) {
          set_mask_bit(words, 1 + first + k);
        }
      }
    }
  }
};

}  // namespace granray
