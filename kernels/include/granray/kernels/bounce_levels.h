// The bounce pass level by level (SPEC 2e): the same tree of rays as bounce_mix (materials.h)
// walks depth first, traced one depth at a time over a packed list of that depth's rays, so that
// every thread of a pass traces a live ray. Depth first, a warp waits for its deepest glass
// sample's up to 2^bounces rays while its matte and metal lanes idle (a tenth of the secondary
// rays' speed per ray; docs/benchmarks.md). The colours are combined afterwards from the deepest
// level up, each surface adding its rays' colours in ray order as bounce_mix does: the same
// numbers in the same order, so the same bits.
#pragma once

#include <cstdint>

#include "granray/kernels/materials.h"

namespace granray {

// The most rays of all levels together per sample that a frame traces level by level (more take
// the depth-first pass): the levels' memory stays a bounded multiple of the frame's samples.
constexpr std::size_t kLevelRaysPerSample = 4;

// A surface met along a ray of some level: how it splits (no rays: it ends its path there) and
// what it has gathered, keep x its own light to begin with.
struct BounceNode {
  MaterialSplit split;
  Vec3 sum;
};

// A ray of one level and the sample it serves.
struct LevelRay {
  Ray ray;
  std::uint32_t sample;
};

// Pixel (i, j) and sample s of sample record k (first_sample_of's inverse).
struct SampleOfRecord {
  int i, j, s;
};
GRANRAY_HD_INLINE SampleOfRecord sample_of_record(const CameraFrame& camera, int samples,
                                                  std::size_t k) {
  const std::size_t pixel = k / static_cast<std::size_t>(samples);
  const auto width = static_cast<std::size_t>(camera.width);
  return {static_cast<int>(pixel % width), static_cast<int>(pixel / width),
          static_cast<int>(k % static_cast<std::size_t>(samples))};
}

// Level 0 visits the samples tile by tile (8 x 4 pixels, as a warp of the pixel kernels), so
// that the rays of each later level, emitted in their surfaces' order, lie near each other too.
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

// How many rays surface e of a level splits into, from the scan of their counts.
GRANRAY_HD_INLINE std::uint32_t rays_of(const std::uint32_t* first, std::uint32_t e) {
  return first[e + 1] - first[e];
}

// Level 0: each sample's own surface, at its position in SampleOrder. A metal or glass one
// splits (its rays form level 1): its node, and `rays[p]` how many; only those nodes are written.
struct SplitSampleSurfaces {
  SampleOrder order;
  LightingParams lighting;
  const MaterialParams* params;
  const SurfaceSample* surfaces;
  const std::uint8_t* slots;
  BounceNode* nodes;    // per position
  std::uint32_t* rays;  // per position

  GRANRAY_HD void operator()(std::uint32_t p) const {
    rays[p] = 0u;
    SampleOfRecord at;
    std::uint32_t k = 0;
    if (!order.at(p, at, k)) return;
    const std::uint8_t slot = slots[k];
    if (slot == kMatteSlot || !(surfaces[k].t < INFINITY)) return;
    const MaterialParams& m = params[slot];
    if (m.kind == kMatteMaterial) return;
    const Ray primary = pixel_sample_ray(order.camera, at.i, at.j, at.s, lighting.side);
    BounceNode node;
    node.split = split_at(m, primary, surfaces[k], lighting.wall_offset);
    node.sum = {0.0f, 0.0f, 0.0f};
    nodes[p] = node;
    rays[p] = static_cast<std::uint32_t>(node.split.rays);
  }
};

// The rays of one level's surfaces into the next level, surface e's from first[e] on (an
// exclusive scan of their counts). `level`: each surface's ray, for its sample; at level 0
// (null) surface e is the sample at position e of `order`.
struct EmitLevelRays {
  SampleOrder order;
  const BounceNode* nodes;
  const LevelRay* level;
  const std::uint32_t* first;
  LevelRay* next;

  GRANRAY_HD void operator()(std::uint32_t e) const {
    const std::uint32_t count = rays_of(first, e);
    if (count == 0) return;
    std::uint32_t sample = 0;
    if (level != nullptr) {
      sample = level[e].sample;
    } else {
      SampleOfRecord at;
      order.at(e, at, sample);
    }
    const BounceNode& node = nodes[e];
    for (std::uint32_t r = 0; r < count; ++r) next[first[e] + r] = {node.split.ray[r], sample};
  }
};

// One level's rays (`depth` 1..bounces): each one's nearest surface lit by the 2a model (its
// shadow and occlusion rays traced here) as bounce_mix lights it; a metal or glass surface with
// bounces left splits again. `values[e]`: the colour ray e sees unless its surface splits.
template <class Scene, class Occluder>
struct TraceLevel {
  Scene scene;
  Occluder occluded;
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const LevelRay* level;
  int depth;
  BounceNode* nodes;
  Vec3* values;
  std::uint32_t* rays;        // per ray: how many its surface splits into
  std::uint32_t* ray_counts;  // per pixel, when counted: its rays and their secondary rays

  GRANRAY_HD void operator()(std::uint32_t e) const {
    const Ray ray = level[e].ray;
    const SampleOfRecord at =
        sample_of_record(camera, lighting.side * lighting.side, level[e].sample);
    const BounceHit hit = scene.nearest(ray);
    std::uint32_t traced = 1;
    Vec3 value = shading.background;
    BounceNode node{};
    node.split.rays = 0;
    node.sum = {0.0f, 0.0f, 0.0f};
    if (hit.surface.t < INFINITY) {
      traced += static_cast<std::uint32_t>((lighting.shadows ? 1 : 0) + lighting.ao_samples);
      const Vec3 light = bounce_light(occluded, camera, shading, lighting, at.i, at.j, at.s, depth,
                                      ray, hit.surface);
      value = light;
      if (hit.slot != kMatteSlot && depth < scene.table.bounces) {
        const MaterialParams& hm = scene.table.params[hit.slot];
        if (hm.kind != kMatteMaterial) {
          node.split = split_at(hm, ray, hit.surface, lighting.wall_offset);
          node.sum = light * node.split.keep;
        }
      }
    }
    if (node.split.rays > 0) nodes[e] = node;
    values[e] = value;
    rays[e] = static_cast<std::uint32_t>(node.split.rays);
    if (ray_counts != nullptr) {
      atomic_fetch_add(ray_counts +
                           static_cast<std::size_t>(at.j) * static_cast<std::size_t>(camera.width) +
                           static_cast<std::size_t>(at.i),
                       traced);
    }
  }
};

// A surface's sum of its own kept light and its rays' colours (the next level's values from
// first on), in ray order.
GRANRAY_HD_INLINE Vec3 gathered(const BounceNode& node, const Vec3* next_values,
                                std::uint32_t first) {
  Vec3 sum = node.sum;
  for (int r = 0; r < node.split.rays; ++r) {
    sum = sum + node.split.weight[r] * next_values[first + r];
  }
  return sum;
}

// From the deepest level up: a ray whose surface split sees its surface's gathered colour,
// clamped as bounce_mix hands it up.
struct GatherLevel {
  const BounceNode* nodes;
  const std::uint32_t* first;
  const Vec3* next_values;
  Vec3* values;

  GRANRAY_HD void operator()(std::uint32_t e) const {
    if (rays_of(first, e) > 0) values[e] = clamp01(gathered(nodes[e], next_values, first[e]));
  }
};

// Level 0 last: each sample's mix {add, keep} as bounce_mix returns it ({0, 0, 0, 1} for a
// sample that does not split).
struct FinishMixes {
  SampleOrder order;
  const BounceNode* nodes;
  const std::uint32_t* first;
  const Vec3* next_values;
  Vec4* mixes;

  GRANRAY_HD void operator()(std::uint32_t p) const {
    SampleOfRecord at;
    std::uint32_t k = 0;
    if (!order.at(p, at, k)) return;
    if (rays_of(first, p) == 0) {
      mixes[k] = {0.0f, 0.0f, 0.0f, 1.0f};
      return;
    }
    const Vec3 sum = gathered(nodes[p], next_values, first[p]);
    mixes[k] = {sum.x, sum.y, sum.z, nodes[p].split.keep};
  }
};

}  // namespace granray
