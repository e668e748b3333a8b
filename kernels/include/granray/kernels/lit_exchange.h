// Lit frames across ranks by halo (SPEC 2a; docs/design.md, "Lit frames across ranks"): the
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

// Whether the ray from `o` along `d` (unbounded) meets the box: the slab test.
GRANRAY_HD_INLINE bool ray_meets_box(Vec3 o, Vec3 d, const RankBox& b) {
  if (box_empty(b)) return false;
  float near = 0.0f, far = INFINITY;
  const float lo[3] = {b.lo.x, b.lo.y, b.lo.z}, hi[3] = {b.hi.x, b.hi.y, b.hi.z};
  const float origin[3] = {o.x, o.y, o.z}, dir[3] = {d.x, d.y, d.z};
  for (int a = 0; a < 3; ++a) {
    if (dir[a] == 0.0f) {
      if (origin[a] < lo[a] || origin[a] > hi[a]) return false;
      continue;
    }
    const float inv = 1.0f / dir[a];
    float t0 = (lo[a] - origin[a]) * inv, t1 = (hi[a] - origin[a]) * inv;
    if (t0 > t1) {
      const float swap = t0;
      t0 = t1;
      t1 = swap;
    }
    near = fmaxf(near, t0);
    far = fminf(far, t1);
    if (near > far) return false;
  }
  return true;
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

// Per sample: the ranks (bit r % 64 of word r / 64 of its `groups` words) that must answer some
// of its secondary rays still open after this rank's own test. Its shadow ray goes to the ranks
// whose boxes it crosses; a wall's occlusion rays go to the ranks whose boxes lie within the
// occlusion distance (a grain's are answered here: its point lies in this rank's box, which the
// halo covers).
struct ForwardTargets {
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const SurfaceSample* surfaces;
  const std::uint32_t* blocked;
  const RankBox* boxes;  // every rank's, grown
  int ranks;
  int rank;  // this one's: never asked
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
      const Ray primary = pixel_sample_ray(camera, i, j, s, lighting.side);
      const ShadingPoint p =
          shading_point(primary, surface.t, surface.sphere, lighting.wall_offset);
      const bool shadow_open =
          shadow_matters(p.normal, primary, shading, lighting) && !mask_bit(words, 0);
      bool occlusion_open = false;
      if (shows_wall(surface.sphere)) {
        for (int b = 1; b <= lighting.ao_samples && !occlusion_open; ++b) {
          occlusion_open = !mask_bit(words, b);
        }
      }
      if (!shadow_open && !occlusion_open) continue;
      for (int r = 0; r < ranks; ++r) {
        if (r == rank) continue;
        if ((shadow_open && ray_meets_box(p.origin, shading.light, boxes[r])) ||
            (occlusion_open && box_distance(p.origin, boxes[r]) <= lighting.ao_distance)) {
          mask[r / 64] |= std::uint64_t{1} << (r % 64);
        }
      }
    }
  }
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

// An answering rank on the GPU: every ray of every query in a thread of its own, the shadow ray
// cut into `pieces` (Occluder::blocks_piece), then GatherAnsweredRays. Another rank asks about a
// few hundred samples; one thread per query walked its shadow ray across this rank's box and its
// occlusion rays in turn while the rest of the GPU idled (0.3 ms at 2 M grains on an H100,
// docs/benchmarks.md). Each ray is the one-rank test (find_sample_blockers), so are the bits.
template <class Occluder>
struct AnswerRaysApart {
  Occluder occluded;
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const SecondaryQuery* queries;
  int pieces;             // of a shadow ray; 0 without shadows
  std::uint8_t* blocked;  // pieces + ao_samples per query

  GRANRAY_HD void operator()(std::uint32_t t) const {
    const int rays = pieces + lighting.ao_samples;
    const std::uint32_t q = t / static_cast<std::uint32_t>(rays);
    const int k = static_cast<int>(t % static_cast<std::uint32_t>(rays));
    const AskedSample a = asked_sample(queries[q], camera, lighting);
    bool hit = false;
    if (a.surface.t < INFINITY) {
      const Ray primary = pixel_sample_ray(camera, a.i, a.j, a.s, lighting.side);
      const ShadingPoint p =
          shading_point(primary, a.surface.t, a.surface.sphere, lighting.wall_offset);
      if (k < pieces) {
        hit =
            shadow_matters(p.normal, primary, shading, lighting) &&
            occluded.blocks_piece(Ray{p.origin, shading.light}, INFINITY, a.surface.id, k, pieces);
      } else {  // as find_blockers_at seeds them: by the whole image's pixel
        hit = occluded(ambient_ray(p, a.i + camera.x0, a.j + camera.y0, a.s, k - pieces, lighting),
                       lighting.ao_distance, a.surface.id);
      }
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

// An answering rank: the blocked words of each query's secondary rays against its occluder, one
// thread per query (the CPU's way).
template <class Occluder>
struct AnswerQueries {
  Occluder occluded;
  CameraFrame camera;
  ShadingParams shading;
  LightingParams lighting;
  const SecondaryQuery* queries;
  std::uint32_t* words;  // mask_words per query

  GRANRAY_HD void operator()(std::uint32_t q) const {
    const AskedSample a = asked_sample(queries[q], camera, lighting);
    find_sample_blockers(occluded, camera, shading, lighting, a.i, a.j, a.s, a.surface,
                         words + static_cast<std::size_t>(q) * lighting.mask_words);
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
