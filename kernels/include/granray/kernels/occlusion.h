// Any-hit queries for secondary rays (contract 2a): is anything between a shading point and the
// light, or within ambient-occlusion distance of it? Through the same grid as primary rays, or
// against every sphere (the reference).
#pragma once

#include "granray/kernels/lighting.h"
#include "granray/kernels/nearby_walls.h"
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
    std::uint32_t k = grid.cell_offsets[first_cell];
#if GRANRAY_SPHERE_BATCH
    if (end - k > 1) {
      const SphereBatch batch(ray);
      for (; k < end; k += 4) {
        for (unsigned hits = batch.blockers(grid.ref_spheres + k, end - k, length); hits != 0u;
             hits &= hits - 1u) {
          if (id_of(grid.ref_index[k + __builtin_ctz(hits)]) != skip_id) {
            blocked = true;
            return;
          }
        }
      }
      return;
    }
#endif
    for (; k < end; ++k) {
      if (blocks(ray, grid.ref_spheres[k], length) && id_of(grid.ref_index[k]) != skip_id) {
        blocked = true;
        return;
      }
    }
  }
};

// Ambient-occlusion ray k of a shading point (contract 2a).
GRANRAY_HD_INLINE Ray ambient_ray(const ShadingPoint& p, int i, int j, int sample, int k,
                                  const LightingParams& lighting) {
  return {p.origin, ao_direction(p.normal, i, j, sample, k, lighting.ao_samples)};
}

// The first ambient-occlusion ray k >= from of `n` whose blocked bit (1 + k) is not set; n if
// none.
GRANRAY_HD_INLINE int next_open_ray(const std::uint32_t* words, int from, int n) {
  while (from < n && mask_bit(words, 1 + from)) ++from;
  return from;
}

// Nothing besides the spheres blocks a ray.
struct NothingElse {
  GRANRAY_HD bool operator()(const Ray&, float) const { return false; }
};

// Sets bit 1 + k of `words` for each ambient-occlusion ray k that the occluder or `also` blocks,
// one query per ray.
template <class Occluder, class AlsoBlocks = NothingElse>
GRANRAY_HD_INLINE void find_ambient_blockers_by_ray(const Occluder& occluded, const ShadingPoint& p,
                                                    int i, int j, int sample,
                                                    const LightingParams& lighting,
                                                    std::uint64_t skip_id, std::uint32_t* words,
                                                    const AlsoBlocks& also = {}) {
  for (int k = 0; k < lighting.ao_samples; ++k) {
    const Ray ray = ambient_ray(p, i, j, sample, k, lighting);
    if (occluded(ray, lighting.ao_distance, skip_id) || also(ray, lighting.ao_distance)) {
      set_mask_bit(words, 1 + k);
    }
  }
}

// Every sphere whose intersection lies in (0, length) holds that point inside its listing
// cell's grown box, so the walk over [0, length] meets it.
struct GridOccluder {
  static constexpr bool gathers_nearby = false;  // each ray walks (the GPU's way)
  GridView grid;
  IdMap id_of;
  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    AnyListedBlocker blocker{grid, id_of, ray, length, skip_id, false};
    walk_grown_cells(grid, ray, 0.0f, length, blocker);
    return blocker.blocked;
  }
  // Piece k of `pieces` of the same test over the part `within` of the ray (another rank's
  // answer walks only the ray's part in its own box): that part's span inside the grid cut into
  // equal pieces, each a little wider than its share (a cell walked twice costs time, not bits),
  // so that several threads walk one long ray; the OR over the pieces is the whole part's answer.
  // Every grain listed in a cell walked is tested along the whole ray.
  GRANRAY_HD bool blocks_piece(const Ray& ray, float length, std::uint64_t skip_id, int k,
                               int pieces, Interval within = {0.0f, INFINITY}) const {
    const float from = within.enter, to = fminf(within.exit, length);
    if (!(from <= to)) return false;
    AnyListedBlocker blocker{grid, id_of, ray, length, skip_id, false};
    if (pieces <= 1) {
      walk_grown_cells(grid, ray, from, to, blocker);
      return blocker.blocked;
    }
    const Interval span =
        clip_to_box(ray, grid.geometry.origin, grid_far_corner(grid.geometry), from, to);
    if (!(span.enter <= span.exit)) return false;
    const float share = (span.exit - span.enter) / static_cast<float>(pieces);
    const float overlap = 0.01f * share;
    const float t_min = k == 0 ? from : span.enter + share * static_cast<float>(k) - overlap;
    const float t_max =
        k == pieces - 1 ? to : span.enter + share * static_cast<float>(k + 1) + overlap;
    walk_grown_cells(grid, ray, t_min, t_max, blocker);
    return blocker.blocked;
  }
  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words) const {
    find_ambient_blockers_by_ray(*this, p, i, j, sample, lighting, skip_id, words);
  }
};

struct PixelNeighbours;  // nearby_spheres.h

// The walls block secondary rays too (contract 2b): a ray the spheres leave free is tested against
// the walls' tree (or, for the reference, every triangle).
template <class Occluder>
struct WithWalls {
  static constexpr bool gathers_nearby = Occluder::gathers_nearby;
  Occluder spheres;
  WallView walls;

  GRANRAY_HD bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    return spheres(ray, length, skip_id) || wall_blocks(walls, ray, length, skip_id);
  }
  // The walls once, in the first piece.
  GRANRAY_HD bool blocks_piece(const Ray& ray, float length, std::uint64_t skip_id, int k,
                               int pieces, Interval within = {0.0f, INFINITY}) const {
    return spheres.blocks_piece(ray, length, skip_id, k, pieces, within) ||
           (k == 0 && wall_blocks(walls, ray, length, skip_id));
  }
  GRANRAY_HD void gather_pixel(const Vec3* points, int n, float length,
                               PixelNeighbours& out) const {
    spheres.gather_pixel(points, n, length, out);
  }
  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words) const {
    ambient_near(p, i, j, sample, lighting, skip_id, words, nullptr);
  }
  // `pixel`: the spheres near the pixel's samples, for an occluder that gathers them.
  GRANRAY_HD void ambient_near(const ShadingPoint& p, int i, int j, int sample,
                               const LightingParams& lighting, std::uint64_t skip_id,
                               std::uint32_t* words, const PixelNeighbours* pixel) const {
    const float length = lighting.ao_distance;
    if constexpr (Occluder::gathers_nearby) {
      if (!walls.linear) {  // the reference loops over every triangle for every ray
        // The walls' leaves near the point found once, for all its rays (nearby_walls.h).
        const NearbyWallLeaves near = nearby_wall_leaves(
            walls.opaque, p.origin, nearby_wall_reach(walls.opaque, p.origin, length));
        const WallView& w = walls;
        const auto wall_blocked = [&w, &near, skip_id](const Ray& ray, float l) {
          return nearby_wall_blocks(w, near, ray, l, skip_id);
        };
        spheres.ambient(p, i, j, sample, lighting, skip_id, words, wall_blocked, pixel);
        return;
      }
      spheres.ambient_near(p, i, j, sample, lighting, skip_id, words, pixel);
    } else {
      spheres.ambient(p, i, j, sample, lighting, skip_id, words);
    }
    // The rays the spheres leave open, each lane taking its own in turn: a warp then asks the
    // walls and capsules as many times as its lane with the most open rays needs, not once for
    // every ray that any of its lanes left open.
    const int n = lighting.ao_samples;
    for (int k = next_open_ray(words, 0, n); k < n; k = next_open_ray(words, k + 1, n)) {
      if (wall_blocks(walls, ambient_ray(p, i, j, sample, k, lighting), length, skip_id)) {
        set_mask_bit(words, 1 + k);
      }
    }
  }
};

// The reference: every renderable sphere.
struct BruteForceOccluder {
  static constexpr bool gathers_nearby = false;
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
  // The reference does not cut its rays: the first piece is the whole test, along the whole ray.
  GRANRAY_HD bool blocks_piece(const Ray& ray, float length, std::uint64_t skip_id, int k, int,
                               Interval = {0.0f, INFINITY}) const {
    return k == 0 && (*this)(ray, length, skip_id);
  }
  GRANRAY_HD void ambient(const ShadingPoint& p, int i, int j, int sample,
                          const LightingParams& lighting, std::uint64_t skip_id,
                          std::uint32_t* words) const {
    find_ambient_blockers_by_ray(*this, p, i, j, sample, lighting, skip_id, words);
  }
};

}  // namespace granray
