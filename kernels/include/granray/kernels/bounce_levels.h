// The bounce pass level by level (contract 2e): the same tree of rays as bounce_mix (materials.h)
// walks depth first, traced one depth at a time over a packed list of that depth's rays, so that
// every thread of a pass traces a live ray. Depth first, a warp waits for its deepest glass
// sample's up to 2^bounces rays while its matte and metal lanes idle (a tenth of the secondary
// rays' speed per ray; docs/benchmarks.md). The rays of all levels share one list: a surface that
// splits appends its rays there as it is traced (append_slots), so no level needs a scan or a
// pass of its own to emit them. Which slots a surface's rays take varies from run to run; what
// each ray sees does not. The colours are combined afterwards from the deepest level up, each
// surface adding its rays' colours in ray order as bounce_mix does: the same numbers in the same
// order, so the same bits.
#pragma once

#include <cstdint>

#include "granray/kernels/materials.h"

namespace granray {

// The most rays of all levels together per sample that a frame traces level by level (more take
// the depth-first pass): the list of rays stays a bounded multiple of the frame's samples.
constexpr std::size_t kLevelRaysPerSample = 4;

// A metal or glass surface met along a ray of some level: its rays' weights, what it has gathered
// itself (keep x its own light; 0 at level 0, whose own colour the shading pass adds), that share
// `keep`, and the list's slot of its first ray (how many it has is kept beside it).
struct BounceNode {
  Vec3 weight[2];
  Vec3 sum;
  float keep;
  std::uint32_t first;
};

// A ray of one level, the sample it serves and the wall triangle it leaves (kNoHit: none; its
// id less kWallIdBase, so that kWallIdBase + from_wall is what BounceScene::nearest skips), 32
// bytes aligned so that it loads in two.
struct alignas(16) LevelRay {
  Ray ray;
  std::uint32_t sample;
  std::uint32_t from_wall;

  GRANRAY_HD std::uint64_t from() const { return kWallIdBase + from_wall; }
};

static_assert(sizeof(LevelRay) == 32, "a level ray loads in two 16-byte loads");

// The wall triangle of surface id `id` as LevelRay keeps it.
GRANRAY_HD_INLINE std::uint32_t wall_of_id(std::uint64_t id) {
  return id >= kWallIdBase ? static_cast<std::uint32_t>(id - kWallIdBase) : kNoHit;
}

// Where a level's surfaces append their rays: slots from `cursor` on; those at `capacity` or
// past it are only counted (the frame then takes the depth-first pass).
struct RayList {
  LevelRay* rays;
  std::uint32_t* cursor;
  std::uint32_t capacity;

  // Appends `split`'s rays for `sample`, leaving surface `from`, and returns the surface's node.
  // Every thread of a pass calls it, with no rays where its surface does not split, so that a
  // warp appends at once.
  GRANRAY_HD_INLINE BounceNode append(const MaterialSplit& split, Vec3 sum, std::uint32_t sample,
                                      std::uint64_t from) const {
    const auto count = static_cast<std::uint32_t>(split.rays);
    const std::uint32_t first = append_slots(cursor, count);
    for (std::uint32_t r = 0; r < count; ++r) {
      if (first + r < capacity) rays[first + r] = {split.ray[r], sample, wall_of_id(from)};
    }
    return {{split.weight[0], split.weight[1]}, sum, split.keep, first};
  }
};

// Pixel (i, j) and sample s of sample record k (first_sample_of's inverse). 32-bit: a frame
// traced level by level has fewer records (BounceLevels::trace), and a 64-bit division is a long
// sequence on the GPU.
struct SampleOfRecord {
  int i, j, s;
};
GRANRAY_HD_INLINE SampleOfRecord sample_of_record(const CameraFrame& camera, int samples,
                                                  std::uint32_t k) {
  const std::uint32_t pixel = k / static_cast<std::uint32_t>(samples);
  const auto width = static_cast<std::uint32_t>(camera.width);
  return {static_cast<int>(pixel % width), static_cast<int>(pixel / width),
          static_cast<int>(k % static_cast<std::uint32_t>(samples))};
}

// Level 0 visits the samples tile by tile (8 x 4 pixels, as a warp of the pixel kernels), so
// that the rays of each later level, appended warp by warp, lie near each other too.
struct SampleOrder {
  static constexpr int kTileWidth = 8, kTileHeight = 4;
  CameraFrame camera;
  int samples;  // per pixel

  GRANRAY_HD int tiles_across() const { return (camera.width + kTileWidth - 1) / kTileWidth; }
  // Positions in all, the tiles' padding past the frame's edges included.
  GRANRAY_HD std::size_t positions() const {
    const int down = (camera.height + kTileHeight - 1) / kTileHeight;
    return static_cast<std::size_t>(tiles_across()) * static_cast<std::size_t>(down) *
           static_cast<std::size_t>(kTileWidth * kTileHeight * samples);
  }
  // The sample at position p; false for padding.
  GRANRAY_HD bool at(std::uint32_t p, SampleOfRecord& out, std::uint32_t& record) const {
    const std::uint32_t per_tile = static_cast<std::uint32_t>(kTileWidth * kTileHeight * samples);
    const std::uint32_t tile = p / per_tile, q = p % per_tile;
    const std::uint32_t pixel = q / static_cast<std::uint32_t>(samples);
    const auto across = static_cast<std::uint32_t>(tiles_across());
    out.i = static_cast<int>((tile % across) * kTileWidth + pixel % kTileWidth);
    out.j = static_cast<int>((tile / across) * kTileHeight + pixel / kTileWidth);
    out.s = static_cast<int>(q % static_cast<std::uint32_t>(samples));
    if (out.i >= camera.width || out.j >= camera.height) return false;
    record = static_cast<std::uint32_t>(first_sample_of(camera, out.i, out.j, samples)) +
             static_cast<std::uint32_t>(out.s);
    return true;
  }
};

// Level 0: each sample's own surface, at its position in SampleOrder. A metal or glass one
// splits: its rays go to the list (level 1), its node to `nodes[p]` and how many to `splits[p]`.
struct SplitSampleSurfaces {
  SampleOrder order;
  LightingParams lighting;
  const MaterialParams* params;
  const SurfaceSample* surfaces;
  const std::uint8_t* slots;
  RayList list;
  BounceNode* nodes;     // per position
  std::uint8_t* splits;  // per position

  GRANRAY_HD void operator()(std::uint32_t p) const {
    MaterialSplit split{};
    SampleOfRecord at;
    std::uint32_t k = 0;
    if (order.at(p, at, k)) {
      const std::uint8_t slot = slots[k];
      if (slot != kMatteSlot && surfaces[k].t < INFINITY &&
          params[slot].kind != MaterialType::matte) {
        const Ray primary = pixel_sample_ray(order.camera, at.i, at.j, at.s, lighting.side);
        split = split_at(params[slot], primary, surfaces[k], lighting.wall_offset);
      }
    }
    splits[p] = static_cast<std::uint8_t>(split.rays);
    const BounceNode node = list.append(split, Vec3{0.0f, 0.0f, 0.0f}, k, surfaces[k].id);
    if (split.rays > 0) nodes[p] = node;
  }
};

// A level ray's nearest grain as the tracing pass leaves it for the shading pass: the distance and
// the grain's index (kNoHit: none); its id is the tracer's id_of(index).
struct LevelHit {
  float t;
  std::uint32_t index;
};

// One level's rays through the grains alone (the walls wait for TraceLevel): a kernel of the walk
// and nothing else holds fewer registers than one that also lights and splits, so more warps hide
// the walk's loads, and none of its state spills to local memory.
template <class Scene>
struct FindLevelHits {
  Scene scene;
  const LevelRay* level;
  LevelHit* hits;

  GRANRAY_HD void operator()(std::uint32_t e) const {
    const Hit hit = scene.trace(level[e].ray, 0, 0);
    hits[e] = {hit.t, hit.index};
  }
};

// One level's rays (`depth` 1..bounces): each one's nearest surface lit by the 2a model (its
// shadow and occlusion rays traced here) as bounce_mix lights it; a metal or glass surface with
// bounces left splits again, its rays appended to the list. `values[e]`: the colour ray e sees
// unless its surface splits.
template <class Scene, class Occluder>
struct TraceLevel {
  Scene scene;
  Occluder occluded;
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const LevelRay* level;  // this level's rays, and per ray of them:
  BounceNode* nodes;
  Vec3* values;
  std::uint8_t* splits;  // how many rays its surface splits into
  int depth;
  RayList list;
  std::uint32_t* ray_counts;  // per pixel, when counted: its rays and their secondary rays
  const LevelHit* found;      // per ray, its nearest grain (FindLevelHits); null: traced here

  GRANRAY_HD void operator()(std::uint32_t e) const {
    const Ray ray = level[e].ray;
    const SampleOfRecord at =
        sample_of_record(camera, lighting.side * lighting.side, level[e].sample);
    const std::uint64_t from = level[e].from();
    const BounceHit hit = found != nullptr
                              ? scene.nearest_from(grain_hit(found[e]), ray, false, from)
                              : scene.nearest(ray, false, from);
    std::uint32_t traced = 1;
    Vec3 value = shading.background;
    MaterialSplit split{};
    Vec3 kept{0.0f, 0.0f, 0.0f};
    if (hit.surface.t < INFINITY) {
      traced += static_cast<std::uint32_t>((lighting.shadows ? 1 : 0) + lighting.ao_samples);
      const Vec3 light = bounce_light(occluded, camera, shading, lighting, at.i, at.j, at.s, depth,
                                      ray, hit.surface);
      value = light;
      if (hit.slot != kMatteSlot && depth < scene.table.bounces) {
        const MaterialParams& hm = scene.table.params[hit.slot];
        if (hm.kind != MaterialType::matte) {
          split = split_at(hm, ray, hit.surface, lighting.wall_offset);
          kept = light * split.keep;
        }
      }
    }
    values[e] = value;
    splits[e] = static_cast<std::uint8_t>(split.rays);
    const BounceNode node = list.append(split, kept, level[e].sample, hit.surface.id);
    if (split.rays > 0) nodes[e] = node;
    if (ray_counts != nullptr) {
      atomic_fetch_add(ray_counts +
                           static_cast<std::size_t>(at.j) * static_cast<std::size_t>(camera.width) +
                           static_cast<std::size_t>(at.i),
                       traced);
    }
  }

  // The Hit that the tracer returned, from what FindLevelHits kept of it.
  GRANRAY_HD Hit grain_hit(const LevelHit& h) const {
    return h.index == kNoHit ? no_hit() : Hit{h.t, scene.trace.id_of(h.index), h.index};
  }
};

// A surface's sum of its own kept light and the colours of its `rays` rays (in the list's
// `values`), in ray order.
GRANRAY_HD_INLINE Vec3 gathered(const BounceNode& node, int rays, const Vec3* values) {
  Vec3 sum = node.sum;
  for (int r = 0; r < rays; ++r) {
    sum = sum + node.weight[r] * values[node.first + static_cast<std::uint32_t>(r)];
  }
  return sum;
}

// From the deepest level up: a ray of one level whose surface split sees its surface's gathered
// colour, clamped as bounce_mix hands it up.
struct GatherLevel {
  const BounceNode* nodes;     // per ray of the level
  const std::uint8_t* splits;  // per ray of the level
  const Vec3* list_values;     // per ray of the list
  Vec3* values;                // per ray of the level

  GRANRAY_HD void operator()(std::uint32_t e) const {
    if (splits[e] > 0) values[e] = clamp01(gathered(nodes[e], splits[e], list_values));
  }
};

// Level 0 last: each sample's mix {add, keep} as bounce_mix returns it ({0, 0, 0, 1} for a
// sample that does not split).
struct FinishMixes {
  SampleOrder order;
  const BounceNode* nodes;     // per position
  const std::uint8_t* splits;  // per position
  const Vec3* list_values;
  Vec4* mixes;

  GRANRAY_HD void operator()(std::uint32_t p) const {
    SampleOfRecord at;
    std::uint32_t k = 0;
    if (!order.at(p, at, k)) return;
    if (splits[p] == 0) {
      mixes[k] = {0.0f, 0.0f, 0.0f, 1.0f};
      return;
    }
    const Vec3 sum = gathered(nodes[p], splits[p], list_values);
    mixes[k] = {sum.x, sum.y, sum.z, nodes[p].keep};
  }
};

}  // namespace granray
