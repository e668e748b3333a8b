// Lit frames across ranks by halo (contract 2a; docs/design.md, "Lit frames across ranks"): the
// kernels that pick a rank's halo for the others, find which of its samples' secondary rays
// must be asked of other ranks, answer such questions and fold the answers in.
//
// Why the image is exact: a secondary ray is blocked in the one-rank image when some grain
// blocks it. Each rank tests its rays against its own grains and its halo (the grains of other
// ranks within the occlusion distance of its box, which holds every grain an occlusion ray of a
// grain it shows can reach). A ray still open that passes through the box of another rank is
// asked of that rank, which tests it against its grains: a grain that blocks it lies in one of
// the boxes the ray crosses. Every test is the one-rank test of one ray against one grain, and
// "blocked" is an OR, so the bits are the one-rank bits whatever the split.
#pragma once

#include <cstdint>

#include "granray/kernels/lit_passes.h"
#include "granray/kernels/lit_queries.h"

namespace granray {

// An empty box (a rank with no grain drawn) has lo > hi: nothing reaches it, no ray meets it.
GRANRAY_HD_INLINE bool box_empty(const RankBox& b) { return !(b.lo.x <= b.hi.x); }

GRANRAY_HD_INLINE float box_distance(Vec3 p, const RankBox& b) {
  if (box_empty(b)) return INFINITY;
  const float dx = fmaxf(fmaxf(b.lo.x - p.x, 0.0f), p.x - b.hi.x);
  const float dy = fmaxf(fmaxf(b.lo.y - p.y, 0.0f), p.y - b.hi.y);
  const float dz = fmaxf(fmaxf(b.lo.z - p.z, 0.0f), p.z - b.hi.z);
  return sqrtf(dx * dx + dy * dy + dz * dz);
}

// Whether two boxes lie more than `gap` apart (an empty one is apart from everything).
GRANRAY_HD_INLINE bool boxes_apart(const RankBox& a, const RankBox& b, float gap) {
  if (box_empty(a) || box_empty(b)) return true;
  const float dx = fmaxf(fmaxf(a.lo.x - b.hi.x, b.lo.x - a.hi.x), 0.0f);
  const float dy = fmaxf(fmaxf(a.lo.y - b.hi.y, b.lo.y - a.hi.y), 0.0f);
  const float dz = fmaxf(fmaxf(a.lo.z - b.hi.z, b.lo.z - a.hi.z), 0.0f);
  return sqrtf(dx * dx + dy * dy + dz * dz) > gap;
}

// Where the ray (from t = 0, unbounded) runs inside the box: enter > exit where it misses it.
GRANRAY_HD_INLINE Interval span_in_box(const Ray& ray, const RankBox& b) {
  if (box_empty(b)) return {1.0f, 0.0f};
  return clip_to_box(ray, b.lo, b.hi, 0.0f, INFINITY);
}

// Whether the ray meets the box at or after `from` along it.
GRANRAY_HD_INLINE bool ray_meets_box_after(const Ray& ray, const RankBox& b, float from) {
  if (box_empty(b)) return false;
  const Interval span = clip_to_box(ray, b.lo, b.hi, from, INFINITY);
  return span.enter <= span.exit;
}

// The part of space in which a rank holds every other rank's grain that could stop a ray: its
// box grown along each axis by a little less than reach / sqrt(3). A corner of the box grown by g
// lies g * sqrt(3) from the box, and the halo holds every grain whose sphere reaches within
// `reach` of the box, so no point of a grain outside the halo lies in here.
GRANRAY_HD_INLINE RankBox covered_box(const RankBox& b, float reach) {
  const float g = 0.57f * reach;
  return {b.lo - Vec3{g, g, g}, b.hi + Vec3{g, g, g}};
}

// Whether box b lies inside the covered box with room for rounding (a thousandth of the reach,
// and some 64 float steps of the coordinates): a shadow ray from inside the covered box meets b
// only before it leaves, so it is never asked of b's rank.
GRANRAY_HD_INLINE bool inside_covered(const RankBox& b, const RankBox& covered, float reach) {
  if (box_empty(b)) return true;
  const float size = fmaxf(fmaxf(fmaxf(fabsf(covered.lo.x), fabsf(covered.hi.x)),
                                 fmaxf(fabsf(covered.lo.y), fabsf(covered.hi.y))),
                           fmaxf(fabsf(covered.lo.z), fabsf(covered.hi.z)));
  const float pad = 1e-3f * reach + 4e-6f * size;
  return b.lo.x >= covered.lo.x + pad && b.lo.y >= covered.lo.y + pad &&
         b.lo.z >= covered.lo.z + pad && b.hi.x <= covered.hi.x - pad &&
         b.hi.y <= covered.hi.y - pad && b.hi.z <= covered.hi.z - pad;
}

// Where a ray from inside the covered box leaves it: before that point every grain that could
// block it is here. 0 for a ray from outside (a wall's point may lie anywhere).
GRANRAY_HD_INLINE float covered_until(const Ray& ray, const RankBox& covered) {
  const Interval span = span_in_box(ray, covered);
  return span.enter <= 0.0f && span.enter <= span.exit ? span.exit : 0.0f;
}

// The part of a shadow ray an answering rank walks: where it runs inside that rank's box (which
// holds all its grains, radius included), widened a little for rounding. A grain that blocks the
// ray is met at a point of its sphere, inside its owner's box.
GRANRAY_HD_INLINE Interval answered_span(const Ray& ray, const RankBox& own) {
  const Interval span = span_in_box(ray, own);
  if (!(span.enter <= span.exit)) return span;
  const Vec3 size = own.hi - own.lo;
  const float slack =
      1e-3f * fmaxf(fmaxf(size.x, size.y), size.z) + 1e-3f * (span.exit - span.enter);
  return {fmaxf(span.enter - slack, 0.0f), span.exit + slack};
}

// Whether a renderable sphere reaches within `reach` of the box: it belongs in the halo of the
// box's rank.
struct ReachesBox {
  const Vec4* spheres;
  RankBox box;
  float reach;
  GRANRAY_HD bool operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    return is_renderable(s) && box_distance(center_of(s), box) <= s.w + reach;
  }
};

// Whether any sample of this rank can ask another rank (ForwardTargets): its grains' shadow rays
// start inside its covered box and are never asked of a rank whose box lies inside it; only a
// wall's point (where this rank keeps the walls) asks about its occlusion rays. When none can,
// the pass is not run.
inline bool may_ask_another_rank(const RankBox* boxes, int ranks, int rank, float reach,
                                 bool shadows, bool wall_samples) {
  if (wall_samples) return true;
  if (!shadows) return false;
  const RankBox covered = covered_box(boxes[rank], reach);
  for (int r = 0; r < ranks; ++r) {
    if (r != rank && !inside_covered(boxes[r], covered, reach)) return true;
  }
  return false;
}

// Per sample: the ranks (bit r % 64 of word r / 64 of its `groups` words) that must answer some
// of its secondary rays still open after this rank's own test. Its shadow ray goes to the ranks
// whose boxes it meets after it leaves the part of space this rank's halo covers
// (covered_box): before that, every grain that could block it is here. A wall's occlusion rays
// go to the ranks whose boxes lie within the occlusion distance, unless the halo covers the
// whole ball they run in (a grain's are answered here: its point lies in this rank's box).
struct ForwardTargets {
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const SurfaceSample* surfaces;
  const std::uint32_t* blocked;
  const RankBox* boxes;  // every rank's, grown
  int ranks;
  int rank;     // this one's: never asked
  float reach;  // of the halos (every rank picks its grains for the others' boxes by it)
  std::uint64_t* targets;

  GRANRAY_HD void operator()(int i, int j) const {
    const int samples = lighting.side * lighting.side;
    const int groups = target_words(ranks);
    const std::size_t first = first_sample_of(camera, i, j, samples);
    for (int s = 0; s < samples; ++s) {
      const std::size_t k = first + static_cast<std::size_t>(s);
      std::uint64_t* mask = targets + k * static_cast<std::size_t>(groups);
      for (int g = 0; g < groups; ++g) mask[g] = 0;
      const SurfaceSample surface = surfaces[k];
      if (!(surface.t < INFINITY)) continue;
      const std::uint32_t* words = blocked + k * static_cast<std::size_t>(lighting.mask_words);
      // A grain's point asks only about its shadow ray: none, or one blocked here already, asks
      // nothing (most samples of a bed), before its ray and point are worked out.
      if (!shows_wall(surface.sphere) && (!lighting.shadows || mask_bit(words, 0))) continue;
      const Ray primary = pixel_sample_ray(camera, i, j, s, lighting.side);
      sample(k, primary, shading_point(primary, surface.t, surface.sphere, lighting.wall_offset),
             surface, words);
    }
  }

  // Sample k's targets, into its zeroed mask, once its bits here are final: pass 2 calls this
  // where its primary ray and point are at hand (the CPU), the pass above otherwise.
  GRANRAY_HD void sample(std::size_t k, const Ray& primary, const ShadingPoint& p,
                         const SurfaceSample& surface, const std::uint32_t* words) const {
    std::uint64_t* mask = targets + k * static_cast<std::size_t>(target_words(ranks));
    const bool shadow_open = shadow_matters(p, primary, shading, lighting) && !mask_bit(words, 0);
    bool occlusion_open = false;
    if (shows_wall(surface.sphere) &&
        box_distance(p.origin, boxes[rank]) > 0.5f * (reach - lighting.ao_distance)) {
      for (int b = 1; b <= lighting.ao_samples && !occlusion_open; ++b) {
        occlusion_open = !mask_bit(words, b);
      }
    }
    if (!shadow_open && !occlusion_open) return;
    const RankBox covered = covered_box(boxes[rank], reach);
    const Ray shadow = shadow_ray(p, shading);
    const float beyond = shadow_open ? covered_until(shadow, covered) : 0.0f;
    for (int r = 0; r < ranks; ++r) {
      if (r == rank) continue;
      if ((shadow_open && ray_meets_box_after(shadow, boxes[r], beyond)) ||
          (occlusion_open && box_distance(p.origin, boxes[r]) <= lighting.ao_distance)) {
        mask[r / 64] |= std::uint64_t{1} << (r % 64);
      }
    }
  }
};

// Per screen tile: whether its list holds a grain of this rank (an index below `owned`; the halo's
// copies come after). A sample of a tile without one shows another rank's grain or nothing here.
struct TileHoldsOwn {
  const std::uint32_t* offsets;
  const std::uint32_t* index;
  std::uint32_t owned;
  std::uint8_t* holds;
  GRANRAY_HD void operator()(std::uint32_t tile) const {
    std::uint8_t any = 0;
    for (std::uint32_t k = offsets[tile]; k < offsets[tile + 1] && any == 0; ++k) {
      any = index[k] < owned ? 1 : 0;
    }
    holds[tile] = any;
  }
};

// Screen tiles across ranks: the tiles without a grain of this rank cast no primary ray here.
struct OwnTilesTracer {
  TileTracer tiles;
  const std::uint8_t* holds_own;  // per tile (TileHoldsOwn)
  GRANRAY_HD bool may_hit(int i, int j) const {
    return holds_own[tile_of_pixel(tiles.lists.tiles, i, j)] != 0;
  }
  GRANRAY_HD Hit operator()(const Ray& ray, int i, int j) const { return tiles(ray, i, j); }
};

// A query's pixel, sample and surface as its asker saw them.
struct AskedSample {
  int i, j, s;
  SurfaceSample surface;
};

GRANRAY_HD_INLINE AskedSample asked_sample(const SecondaryQuery& query, const CameraFrame& camera,
                                           const LightingParams& lighting) {
  const int samples = lighting.side * lighting.side;
  const std::uint32_t pixel = query.sample / static_cast<std::uint32_t>(samples);
  return {static_cast<int>(pixel % static_cast<std::uint32_t>(camera.width)),
          static_cast<int>(pixel / static_cast<std::uint32_t>(camera.width)),
          static_cast<int>(query.sample % static_cast<std::uint32_t>(samples)),
          {query.sphere, {0.0f, 0.0f, 0.0f}, query.t, query.id}};
}

// What an answering rank tests of a query: its shadow ray (where the shading model lets it
// matter) along the ray's part in this rank's box (answered_span), and a wall's occlusion rays.
// A grain's occlusion rays are final where it was asked (ForwardTargets), so they stay 0 here.
struct AskedRays {
  AskedSample a;
  Ray primary;
  ShadingPoint p;
  bool shadow;     // the shadow ray is tested
  bool occlusion;  // the occlusion rays are tested
  Interval span;   // of the shadow ray, walked
};

GRANRAY_HD_INLINE AskedRays asked_rays(const SecondaryQuery& query, const CameraFrame& camera,
                                       const ShadingParams& shading, const LightingParams& lighting,
                                       const RankBox& own) {
  AskedRays r{asked_sample(query, camera, lighting), {}, {}, false, false, {1.0f, 0.0f}};
  if (!(r.a.surface.t < INFINITY)) return r;
  r.primary = pixel_sample_ray(camera, r.a.i, r.a.j, r.a.s, lighting.side);
  r.p = shading_point(r.primary, r.a.surface.t, r.a.surface.sphere, lighting.wall_offset);
  r.shadow = shadow_matters(r.p, r.primary, shading, lighting);
  if (r.shadow) r.span = answered_span(shadow_ray(r.p, shading), own);
  r.occlusion = lighting.ao_samples > 0 && shows_wall(r.a.surface.sphere);
  return r;
}

// An answering rank's view of the queries asked of it: each query's rays (asked_rays) and the
// test of one piece of its shadow ray against this rank's occluder.
template <class Occluder>
struct AskedQueries {
  Occluder occluded;
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const SecondaryQuery* queries;
  RankBox own;  // this rank's box, as the others see it: all its grains lie in it

  GRANRAY_HD AskedRays rays_of(std::uint32_t q) const {
    return asked_rays(queries[q], camera, shading, lighting, own);
  }
  GRANRAY_HD bool shadow_blocked(const AskedRays& r, int piece, int pieces) const {
    const Ray shadow = shadow_ray(r.p, shading);
    return occluded.blocks_piece(shadow, shading.light.reach(r.p.origin),
                                 skipped_id(r.a.surface.id, r.p.normal, shadow.dir), piece, pieces,
                                 r.span);
  }
};

// An answering rank on the GPU: every ray of every query in a thread of its own, the shadow ray
// cut into `pieces` (Occluder::blocks_piece), then GatherAnsweredRays. Another rank asks about a
// few hundred samples; one thread per query walked its shadow ray across this rank's box and its
// occlusion rays in turn while the rest of the GPU idled (0.3 ms at 2 M grains on an H100,
// docs/benchmarks.md). Each ray is the one-rank test (find_sample_blockers), so are the bits.
template <class Occluder>
struct AnswerRaysApart {
  AskedQueries<Occluder> asked;
  int pieces;             // of a shadow ray; 0 without shadows
  std::uint8_t* blocked;  // pieces + ao_samples per query

  GRANRAY_HD void operator()(std::uint32_t t) const {
    const int rays = pieces + asked.lighting.ao_samples;
    const std::uint32_t q = t / static_cast<std::uint32_t>(rays);
    const int k = static_cast<int>(t % static_cast<std::uint32_t>(rays));
    const AskedRays r = asked.rays_of(q);
    bool hit = false;
    if (k < pieces) {
      hit = r.shadow && asked.shadow_blocked(r, k, pieces);
    } else if (r.occlusion) {  // as find_blockers_at seeds them: by the whole image's pixel
      const CameraFrame& c = asked.camera;
      hit = asked.occluded(
          ambient_ray(r.p, r.a.i + c.x0, r.a.j + c.y0, r.a.s, k - pieces, asked.lighting),
          asked.lighting.ao_distance, r.a.surface.id);
    }
    blocked[t] = hit ? 1 : 0;
  }
};

// Each query's rays answered apart (AnswerRaysApart) into its blocked words.
struct GatherAnsweredRays {
  LightingParams lighting;
  int pieces;
  const std::uint8_t* blocked;
  std::uint32_t* words;  // mask_words per query

  GRANRAY_HD void operator()(std::uint32_t q) const {
    const int rays = pieces + lighting.ao_samples;
    const std::uint8_t* mine = blocked + static_cast<std::size_t>(q) * rays;
    std::uint32_t* out = words + static_cast<std::size_t>(q) * lighting.mask_words;
    for (int w = 0; w < lighting.mask_words; ++w) out[w] = 0u;
    for (int k = 0; k < pieces; ++k) {
      if (mine[k] != 0) set_mask_bit(out, 0);
    }
    for (int k = 0; k < lighting.ao_samples; ++k) {
      if (mine[pieces + k] != 0) set_mask_bit(out, 1 + k);
    }
  }
};

// An answering rank: the blocked words of each query's asked rays (asked_rays) against its
// occluder, one thread per query (the CPU's way).
template <class Occluder>
struct AnswerQueries {
  AskedQueries<Occluder> asked;
  std::uint32_t* words;  // mask_words per query

  GRANRAY_HD void operator()(std::uint32_t q) const {
    const LightingParams& lighting = asked.lighting;
    std::uint32_t* out = words + static_cast<std::size_t>(q) * lighting.mask_words;
    for (int w = 0; w < lighting.mask_words; ++w) out[w] = 0u;
    const AskedRays r = asked.rays_of(q);
    if (r.shadow && asked.shadow_blocked(r, 0, 1)) set_mask_bit(out, 0);
    if (r.occlusion) {  // as find_blockers_at seeds them: by the whole image's pixel
      asked.occluded.ambient(r.p, r.a.i + asked.camera.x0, r.a.j + asked.camera.y0, r.a.s, lighting,
                             r.a.surface.id, out);
    }
  }
};

// The asking rank: the other ranks' answers OR-ed into its samples' blocked words (one answer
// per sample: the host merged the ranks' answers first).
struct FoldAnswers {
  const std::uint32_t* samples;
  const std::uint32_t* answers;
  int mask_words;
  std::uint32_t* blocked;
  GRANRAY_HD void operator()(std::uint32_t a) const {
    for (int w = 0; w < mask_words; ++w) {
      blocked[static_cast<std::size_t>(samples[a]) * mask_words + w] |=
          answers[static_cast<std::size_t>(a) * mask_words + w];
    }
  }
};

// The samples to ask about, as queries.
struct QueryOfSample {
  const SurfaceSample* surfaces;
  GRANRAY_HD SecondaryQuery operator()(std::uint32_t k) const {
    const SurfaceSample& s = surfaces[k];
    return {s.sphere, s.t, k, s.id};
  }
};

struct HasTargets {
  const std::uint64_t* targets;
  int groups;
  GRANRAY_HD bool operator()(std::uint32_t k) const {
    for (int g = 0; g < groups; ++g) {
      if (targets[static_cast<std::size_t>(k) * groups + g] != 0) return true;
    }
    return false;
  }
};

// A query's target words, gathered after the query's sample.
struct TargetWordOf {
  const std::uint32_t* picked;
  const std::uint64_t* targets;
  int groups;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t w) const {
    const std::uint32_t q = w / static_cast<std::uint32_t>(groups);
    return targets[static_cast<std::size_t>(picked[q]) * groups + w % groups];
  }
};

}  // namespace granray
