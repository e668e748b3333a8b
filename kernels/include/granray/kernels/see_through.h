// See-through walls (contract 2d): walls of opacity a < 1 block no ray; each primary sample
// composites the nearest of them in front of what it shows, front to back, over that colour.
#pragma once

#include "granray/kernels/lighting.h"

namespace granray {

constexpr int kMaxSeeThroughLayers = 8;

// The nearest see-through hits along a ray, sorted by (t, triangle index): slots into
// WallView::see_through.
struct SeeThroughLayers {
  int count;
  float t[kMaxSeeThroughLayers];
  std::uint32_t slot[kMaxSeeThroughLayers];
};

// Offers slot k's facet to the ray's layers: kept when the ray meets it at 0 < t < limit, at a
// point no clip plane removes, and among the nearest kMaxSeeThroughLayers by (t, index).
GRANRAY_HD_PIXEL_INLINE void offer_layer(const WallView& w, const Ray& ray, float limit,
                                         std::uint32_t k, SeeThroughLayers& layers,
                                         bool meets_plane_inside = false) {
  const SeeThroughFacet& facet = w.facets[k];
  const float t = facet_distance(facet, ray, limit, meets_plane_inside);
  if (!(t < INFINITY)) return;
  if (w.plane_count > 0 && clipped_by(w.planes, w.plane_count, ray.origin + ray.dir * t)) return;
  int at = layers.count;
  while (at > 0 && (t < layers.t[at - 1] ||
                    (t == layers.t[at - 1] && facet.index < w.facets[layers.slot[at - 1]].index))) {
    --at;
  }
  if (at >= kMaxSeeThroughLayers) return;
  const int last = layers.count < kMaxSeeThroughLayers ? layers.count : kMaxSeeThroughLayers - 1;
  for (int m = last; m > at; --m) {
    layers.t[m] = layers.t[m - 1];
    layers.slot[m] = layers.slot[m - 1];
  }
  layers.t[at] = t;
  layers.slot[at] = k;
  if (layers.count < kMaxSeeThroughLayers) ++layers.count;
}

// The see-through triangles a pixel's rays are offered: entries [first, end) of its screen
// tile's list, which holds every see-through triangle any ray through the pixel can meet; or,
// with `walk` (no lists, or the reference), every triangle through the tree or the loop. Looked
// up once per pixel, for all its samples.
struct SeeThroughCandidates {
  std::uint32_t first, end;
  bool walk;
  // None: the composite would return what it is given, bit for bit, so the pixel skips it (and
  // the ray, where nothing else shows there).
  GRANRAY_HD bool any() const { return walk || first != end; }
};

GRANRAY_HD_INLINE SeeThroughCandidates see_through_candidates(const WallView& w, int i, int j) {
  const SeeThroughTiles& bins = w.see_through_tiles;
  if (bins.offsets != nullptr) {
    const std::uint32_t tile = tile_of_pixel(bins.tiles, i, j, kSeeThroughTileShift);
    return {bins.offsets[tile], bins.offsets[tile + 1], false};
  }
  return {0u, 0u, w.see_through.count > 0};
}

// The see-through triangles the ray meets at 0 < t < limit (the visible opaque surface's
// distance, +inf on a miss), nearest kMaxSeeThroughLayers first. Every path (tile list, tree and
// reference loop) offers a superset of the triangles the ray meets to offer_layer, which keeps
// the same layers in any order of offering.
GRANRAY_HD_PIXEL_INLINE SeeThroughLayers see_through_layers(const WallView& w, const Ray& ray,
                                                            float limit,
                                                            SeeThroughCandidates candidates) {
  SeeThroughLayers layers;
  layers.count = 0;
  if (!candidates.walk) {
    const SeeThroughTiles& bins = w.see_through_tiles;
    for (std::uint32_t e = candidates.first; e < candidates.end; ++e) {
      // Behind what the ray shows (the far side of a box behind the grains): no test.
      if (!(bins.nearest[e] < limit)) continue;
      const std::uint32_t entry = bins.slots[e];
      offer_layer(w, ray, limit, entry & ~kCoversTile, layers, (entry & kCoversTile) != 0u);
    }
    return layers;
  }
  for_each_candidate(
      w.see_through, w.linear, ray,
      [&](std::uint32_t k) {
        offer_layer(w, ray, limit, k, layers);
        return false;
      },
      [&] {
        return layers.count == kMaxSeeThroughLayers ? layers.t[kMaxSeeThroughLayers - 1] : limit;
      });
  return layers;
}

// A layer's colour c_k before the depth cue: lit with S = A = 1, clamped.
GRANRAY_HD_INLINE Vec3 layer_color(Vec3 base, Vec3 normal, Vec3 to_light, const Ray& ray,
                                   const ShadingParams& shading, const LightingParams& lighting) {
  return lit_color(base, normal, to_light, ray, shading, lighting, 1.0f, 1.0f);
}

// The facet's unlit colours, one per side (no highlight: no ray is read), under a parallel
// light (Light::parallel): the same over the whole facet.
GRANRAY_HD_INLINE FacetShade facet_shade(const SeeThroughFacet& facet, Vec3 base, float opacity,
                                         const ShadingParams& shading) {
  const Ray none = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
  const LightingParams unlit{};
  const Vec3 l = shading.light.toward(facet.a);
  return {layer_color(base, facet.normal, l, none, shading, unlit),
          layer_color(base, facet.normal * -1.0f, l, none, shading, unlit), opacity};
}

// Adds a layer of colour c (clamped, depth-cued) and opacity a behind the layers added before:
// sum gains T a c, and the transmitted fraction T becomes T (1 - a).
GRANRAY_HD_PIXEL_INLINE void add_layer(Vec3 c, float a, Vec3& sum, float& transmitted) {
  sum = sum + c * (transmitted * a);
  transmitted *= 1.0f - a;
}

// contract 2d: C = sum_k T_k a_k c_k + T_K behind, T_k the product of (1 - a_j) over the layers in
// front of k; a layer's c_k is lit with S = A = 1, clamped and depth-cued. `behind` is the clamped
// colour of what the sample shows at distance `behind_t` (the background's at +inf).
GRANRAY_HD_PIXEL_INLINE Vec3 composite_see_through(const WallView& w, const Ray& ray,
                                                   SeeThroughCandidates candidates, float behind_t,
                                                   Vec3 behind, const ShadingParams& shading,
                                                   const LightingParams& lighting) {
  const SeeThroughLayers layers = see_through_layers(w, ray, behind_t, candidates);
  Vec3 sum = {0.0f, 0.0f, 0.0f};
  float transmitted = 1.0f;
  // The frame's shades hold every layer colour but one with a highlight: one loop each, so that
  // the lookup's loop does not work out the other's colours as well.
  if (w.shades != nullptr && !(lighting.specular > 0.0f)) {
    for (int k = 0; k < layers.count; ++k) {
      const std::uint32_t slot = layers.slot[k];
      const FacetShade& shade = w.shades[slot];
      const Vec3 lit = meets_back(w.facets[slot].normal, ray.dir) ? shade.back : shade.front;
      add_layer(depth_cued(lit, ray.origin + ray.dir * layers.t[k], shading), shade.opacity, sum,
                transmitted);
    }
  } else {
    for (int k = 0; k < layers.count; ++k) {
      const SeeThroughFacet& facet = w.facets[layers.slot[k]];
      const Vec3 x = ray.origin + ray.dir * layers.t[k];
      const Vec3 lit = layer_color(w.colors[facet.wall], turned_to_face(facet.normal, ray.dir),
                                   shading.light.toward(x), ray, shading, lighting);
      add_layer(depth_cued(lit, x, shading), w.opacity[facet.wall], sum, transmitted);
    }
  }
  return sum + behind * transmitted;
}

}  // namespace granray
