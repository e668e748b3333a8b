// Shadow rays along columns: every shadow ray of a frame has the light's direction, so the
// grid's spheres are binned once per frame into columns along it (a 2D grid across the light),
// each column's entries sorted by how far along the light their centres lie. A shadow ray reads
// the column its origin lies in, from just behind the origin onward, where a walk per ray stepped
// through the grid's cells to its edge. The column holds every sphere that `blocks` the ray (the
// bins are padded for the rounding of both), and each is tested with `blocks` itself, the
// sphere's id skipped as the walk skips it: the same bit as the walk and the reference.
#pragma once

#include <cstdint>

#include "granray/kernels/grid_view.h"
#include "granray/kernels/occlusion.h"
#include "granray/kernels/trace.h"

namespace granray {

// The columns as the kernels read them (trivially copyable; the buffers belong to LightColumns).
// `entries` null: no columns this frame (no shadows, or too many references), rays walk.
struct LightColumnsView {
  Vec3 dir;       // the direction they serve, bit for bit
  Vec3 across_u;  // two directions across it
  Vec3 across_v;
  float u0, v0;  // the 2D grid's corner
  float inv_cell;
  int columns_u, columns_v;
  float behind;  // how far behind a ray's origin (along dir) a blocker's centre may lie
  float scale;   // an origin with a coordinate beyond it walks (the pad was sized for it)
  const std::uint32_t* offsets;  // column c holds entries [offsets[c], offsets[c + 1])
  const float* depth;            // the entry's centre along dir, ascending within a column
  const std::uint32_t* entries;  // the entry's grid reference
  std::uint32_t entry_count;     // the columns' entries in all (0: none)

  // Where coordinate x falls across the columns, in columns from `corner`: a sphere's square and
  // a ray's column are both found by these operations, which keeps their order (the exactness
  // argument, docs/design.md).
  GRANRAY_HD static float column_coordinate(float x, float corner, float inv_cell) {
    return (x - corner) * inv_cell;
  }
  // The column that coordinate x falls in (a sphere's square's ends).
  GRANRAY_HD static int column_of(float x, float corner, float inv_cell) {
    return static_cast<int>(floorf(column_coordinate(x, corner, inv_cell)));
  }

  GRANRAY_HD bool serves(const Ray& ray) const {
    return entries != nullptr && ray.dir.x == dir.x && ray.dir.y == dir.y && ray.dir.z == dir.z &&
           fabsf(ray.origin.x) <= scale && fabsf(ray.origin.y) <= scale &&
           fabsf(ray.origin.z) <= scale;
  }

  // Whether a sphere of the grid other than `skip_id` blocks the ray within `length` (`serves`
  // the ray).
  GRANRAY_HD bool blocks_ray(const GridView& grid, const IdMap& id_of, const Ray& ray, float length,
                             std::uint64_t skip_id) const {
    const float fu = column_coordinate(dot(ray.origin, across_u), u0, inv_cell);
    const float fv = column_coordinate(dot(ray.origin, across_v), v0, inv_cell);
    // Outside every column (no padded sphere reaches there): nothing blocks.
    if (!(fu >= 0.0f && fu < static_cast<float>(columns_u) && fv >= 0.0f &&
          fv < static_cast<float>(columns_v))) {
      return false;
    }
    const std::uint32_t column =
        static_cast<std::uint32_t>(static_cast<int>(fv)) * static_cast<std::uint32_t>(columns_u) +
        static_cast<std::uint32_t>(static_cast<int>(fu));
    // The first entry not too far behind the origin to block: a blocker's far root is positive.
    const float from = dot(ray.origin, dir) - behind;
    std::uint32_t lo = offsets[column], hi = offsets[column + 1];
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2u;
      if (depth[mid] < from) {
        lo = mid + 1u;
      } else {
        hi = mid;
      }
    }
    const std::uint32_t end = offsets[column + 1];
    for (std::uint32_t k = lo; k < end; ++k) {
      const std::uint32_t ref = entries[k];
      if (blocks(ray, grid.ref_spheres[ref], length) && id_of(grid.ref_index[ref]) != skip_id) {
        return true;
      }
    }
    return false;
  }

  // A shadow ray the columns serve reads them; any other ray asks `walk` (a GridOccluder).
  template <class Walk>
  GRANRAY_HD bool blocks_or_walk(const Walk& walk, const Ray& ray, float length,
                                 std::uint64_t skip_id) const {
    if (serves(ray)) return blocks_ray(walk.grid, walk.id_of, ray, length, skip_id);
    return walk(ray, length, skip_id);
  }
};

// The GPU's occluder for secondary rays: a shadow ray the columns serve reads them, any other ray
// (ambient occlusion, a light that is not parallel, an origin beyond the columns' scale, a frame
// without columns) walks the grid. The CPU's NearbySphereOccluder reads them the same way.
struct ColumnOccluder {
  static constexpr bool gathers_nearby = false;
  GridOccluder walk;
  LightColumnsView columns;  // entries null: every ray walks

  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    return columns.blocks_or_walk(walk, ray, length, skip_id);
  }
  // Another rank's pieces of a ray walk their part of this rank's box.
  GRANRAY_HD bool blocks_piece(const Ray& ray, float length, std::uint64_t skip_id, int k,
                               int pieces, Interval within = {0.0f, INFINITY}) const {
    return walk.blocks_piece(ray, length, skip_id, k, pieces, within);
  }
  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words) const {
    walk.ambient(p, i, j, sample, lighting, skip_id, words);
  }
};

}  // namespace granray
