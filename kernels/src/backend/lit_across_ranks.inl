// A lit frame across ranks by halo (contract 2a; kernels/lit_exchange.h says why it is exact): the
// backend's side of mpi::render_lit_by_halo. In order, per frame: halo_for   the grains of this
// rank that other ranks' boxes need (their halos); cast_local this rank's samples, cast over its
// grains followed by its halo, their blocked bits against both, and the samples whose open rays
// other ranks must answer; answer     another rank's queries, against the same grains; shade
// the answers folded in, every sample shaded, the image with depth and ids. The frame's structures
// stay in the parts between the calls.
#pragma once

#include "backend_parts.inl"
#include "backend_prelude.inl"
#include "frame_buffers.inl"
#include "frame_handover.inl"
#include "frame_setup.inl"
#include "granray/kernels/lit_exchange.h"
#include "granray/kernels/lit_passes.h"
#include "granray/kernels/pixel_kernels.h"
#include "lit_frame.inl"
#include "lit_pipeline.inl"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// How far a halo reaches beyond a rank's box: the occlusion rays' length from a point a hair
// off a grain (shading_point: 1e-4 of its radius), and a margin for rounding.
inline float halo_reach(const LightingParams& lighting, const SceneBounds& scene) {
  const Vec3 size = scene.hi - scene.lo;
  const float extent = fmaxf(fmaxf(size.x, size.y), size.z);
  const float margin = 1e-5f * (extent < INFINITY ? extent : 0.0f) + 1e-3f * scene.max_radius;
  return (lighting.ao_samples > 0 ? lighting.ao_distance : 0.0f) + margin;
}

// The selection values a frame hides by (contract 2d), as set_up_frame reads them.
inline const float* selection_values(const ResidentParticles& all, const RenderSettings& settings) {
  if (!settings.select) return nullptr;
  return all.select != nullptr ? all.select : all.scalar;
}

// What a frame across ranks keeps between its calls: the setup of the particles with their
// halo, its structures and parameters.
struct HaloFrame {
  FrameSetup f;  // over the particles with their halo
  LitStructures s;
  ShadingParams shading;
  LightingParams lighting;
  RenderOptions options;
  void* stream;  // the particles' CUDA stream, which the later calls keep
  RankBox own;   // this rank's box as every rank has it: the answers walk their rays in it
};

// The other ranks' boxes that this rank's grains may reach: a box farther from this rank's box
// than the reach gets nothing, with no pass over the grains.
inline std::vector<bool> boxes_in_reach(const FrameSetup& f, const std::vector<RankBox>& boxes,
                                        int rank, float reach) {
  const RankBox own{f.bounds.lo, f.bounds.hi};
  std::vector<bool> near(boxes.size(), false);
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    near[b] = static_cast<int>(b) != rank && f.bounds.renderable > 0 &&
              !boxes_apart(own, boxes[b], reach);
  }
  return near;
}

// The halos of the other ranks: for each rank, this rank's grains within reach of its box.
inline std::vector<HostParticles> halo_for_stage(BackendParts& parts, const ParticleView& view,
                                                 const RenderSettings& settings,
                                                 const RenderOptions& options,
                                                 const std::vector<RankBox>& boxes, int rank) {
  const Executor exec(view.cuda_stream, parts.scratch);
  const FrameSetup f = set_up_frame(parts, exec, view, settings, options);
  const LightingParams lighting = make_lighting_params(settings.shading, f.scene);
  const float reach = halo_reach(lighting, f.scene);
  const float* select = selection_values(f.all, settings);
  std::vector<HostParticles> halos(boxes.size());
  const std::vector<bool> near = boxes_in_reach(f, boxes, rank, reach);
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    if (near[b]) parts.halo.pick(exec, f.r, f.all, f.id_of, boxes[b], reach, select, halos[b]);
  }
  return halos;
}

// As halo_for_stage, into the mailbox (RankHalo::pick_for_mailbox): the count for each rank.
inline std::vector<std::uint64_t> pick_halo_stage(BackendParts& parts, const ParticleView& view,
                                                  const RenderSettings& settings,
                                                  const RenderOptions& options,
                                                  const std::vector<RankBox>& boxes, int rank) {
  const Executor exec(view.cuda_stream, parts.scratch);
  const FrameSetup f = set_up_frame(parts, exec, view, settings, options);
  const LightingParams lighting = make_lighting_params(settings.shading, f.scene);
  const float reach = halo_reach(lighting, f.scene);
  return parts.halo.pick_for_mailbox(exec, f.r, f.all, f.id_of, boxes,
                                     boxes_in_reach(f, boxes, rank, reach), reach,
                                     selection_values(f.all, settings));
}

// `Halo`: HostParticles (the halo received in messages) or HaloInMailboxes (read in GPU memory).
template <class Halo>
inline FrameStats cast_local_stage(BackendParts& parts, std::optional<HaloFrame>& kept,
                                   const ParticleView& view, const RenderSettings& settings,
                                   const RenderOptions& options, const Halo& halo,
                                   const std::vector<RankBox>& boxes, int rank, bool keep_walls,
                                   std::vector<SecondaryQuery>& queries,
                                   std::vector<std::uint64_t>& targets) {
  const auto start = std::chrono::steady_clock::now();
  kept.reset();
  const Executor exec(view.cuda_stream, parts.scratch);
  // This rank's own particles: the frame's counts, census and colours come from them alone. The
  // contact network is built once, with the halo below (its pairs are given whole).
  ParticleView own_view = view;
  own_view.contacts = {};
  const FrameSetup own = set_up_frame(parts, exec, own_view, settings, options);
  FrameStats stats = setup_stats(own, parts.walls);
  take_category_census(exec, own.r, settings, stats);
  const ColorSource color = parts.colors.source(exec, own.all, settings, options, stats);
  ParticleView both =
      parts.halo.combine(exec, own.all, view.id_offset, selection_values(own.all, settings), halo);
  both.contacts = view.contacts;  // contract 2g: across ranks, gathered whole (no index)
  RenderOptions with_halo = options;
  with_halo.particle_bounds.reset();
  with_halo.same_particles = false;
  HaloFrame h{set_up_frame(parts, exec, both, settings, with_halo),
              {},
              {},
              {},
              with_halo,
              view.cuda_stream,
              boxes[static_cast<std::size_t>(rank)]};
  take_contact_stats(h.f.contacts, stats);
  h.lighting = make_lighting_params(settings.shading, h.f.scene);
  h.shading = make_shading_params(settings.shading, h.f.camera.frame, h.f.scene);
  exec.mark(0);
  LitStructureNeeds needs;
  needs.keep_tiles = true;
  h.s = build_lit_structures(parts, exec, h.f, with_halo, h.lighting, needs);
  exec.mark(1);
  const CameraFrame& cam = h.f.camera.frame;
  const auto owned = static_cast<std::uint32_t>(own.all.count);
  bool wall_samples = false;  // whether this rank shows the walls' points
  parts.walls.with_opaque(with_halo, [&](auto walls) {
    wall_samples = decltype(walls)::present && keep_walls;
    if (h.s.method == RenderMethod::tiles) {
      const TileTracer tiles{h.s.lists->view, h.f.id_of};
      // A tile without a grain of this rank shows nothing here; but where this rank keeps the
      // walls, a halo grain's hit must still hide the walls behind it.
      if (!(decltype(walls)::present && keep_walls) && owned < h.f.r.count) {
        const TileListsView& lists = tiles.lists;
        const auto count = static_cast<std::uint32_t>(lists.tiles.columns * lists.tiles.rows);
        std::uint8_t* holds = parts.halo.tiles_holding_own(count);
        thrust::for_each_n(exec.policy(), Index(0), count,
                           TileHoldsOwn{lists.offsets, lists.index, owned, holds});
        parts.lit.find_own_surfaces(exec, OwnTilesTracer{tiles, holds}, walls, cam, color,
                                    h.f.r.spheres, h.lighting, owned, keep_walls);
      } else {
        parts.lit.find_own_surfaces(exec, tiles, walls, cam, color, h.f.r.spheres, h.lighting,
                                    owned, keep_walls);
      }
    } else if (h.s.method == RenderMethod::grid) {
      parts.lit.find_own_surfaces(exec, GridTracer{parts.grid.view(*h.s.layout), h.f.id_of}, walls,
                                  cam, color, h.f.r.spheres, h.lighting, owned, keep_walls);
    } else {
      parts.lit.find_own_surfaces(exec, BruteForceTracer{h.f.r.spheres, h.f.r.count, h.f.id_of},
                                  walls, cam, color, h.f.r.spheres, h.lighting, owned, keep_walls);
    }
  });
  exec.mark(2);
  const std::size_t samples = lit_sample_count(cam, h.lighting);
  const float reach = halo_reach(h.lighting, h.f.scene);
  const bool secondary = has_secondary_rays(h.lighting);
  const bool may_ask =
      secondary && may_ask_another_rank(boxes.data(), static_cast<int>(boxes.size()), rank, reach,
                                        h.lighting.shadows, wall_samples);
  if (may_ask) {
    const RankBox* device_boxes = parts.lit.upload_boxes(exec, boxes);
    const int ranks = static_cast<int>(boxes.size()), groups = target_words(ranks);
    std::uint64_t* asks = parts.halo.targets(samples * static_cast<std::size_t>(groups));
    ForwardTargets forward{cam,     h.shading,    h.lighting, parts.lit.surfaces(),
                           nullptr, device_boxes, ranks,      rank,
                           reach,   asks};
    if constexpr (Executor::gathers_nearby_spheres) {
      // Pass 2 has each sample's ray and point at hand: it picks the ranks to ask as it goes
      // (a pass of its own over every sample cost a CPU rank 25-35 ms a 1080p frame).
      thrust::fill_n(exec.policy(), asks, samples * static_cast<std::size_t>(groups),
                     std::uint64_t{0});
      cast_blockers(parts, exec, h.f, h.s, with_halo, h.shading, h.lighting, forward);
    } else {
      cast_blockers(parts, exec, h.f, h.s, with_halo, h.shading, h.lighting);
      forward.blocked = parts.lit.blocked();
      exec.for_each_pixel(cam.width, cam.height, forward);
    }
    parts.halo.queries_to_host(exec, parts.lit.surfaces(), samples, groups, queries, targets);
  } else {
    if (secondary) cast_blockers(parts, exec, h.f, h.s, with_halo, h.shading, h.lighting);
    queries.clear();
    targets.clear();
  }
  exec.mark(3);
  exec.synchronize();
  record_structures(h.s, stats);
  stats.grid_ms = exec.elapsed_ms(0, 1);
  stats.primary_ms = exec.elapsed_ms(1, 2);
  stats.secondary_ms = exec.elapsed_ms(2, 3);
  stats.render_ms = exec.elapsed_ms(1, 3);
  stats.total_ms = ms_since(start);
  kept = h;
  return stats;
}

// The frame cast_local_stage kept: the later calls of a frame across ranks need it.
inline const HaloFrame& kept_frame(const std::optional<HaloFrame>& kept) {
  if (!kept) throw Error("granray: a lit frame's later step across ranks before its cast");
  return *kept;
}

// Another rank's queries against this rank's particles and halo (a superset of its own grains
// within the set of all: the OR with the asker's bits is the one-rank answer).
inline double answer_stage(BackendParts& parts, const std::optional<HaloFrame>& kept,
                           const std::vector<SecondaryQuery>& queries,
                           std::vector<std::uint32_t>& words) {
  const HaloFrame& h = kept_frame(kept);
  const Executor exec(h.stream, parts.scratch);
  const std::size_t count = queries.size();
  words.assign(count * static_cast<std::size_t>(h.lighting.mask_words), 0u);
  if (count == 0) return 0.0;
  exec.mark(0);
  const SecondaryQuery* q = parts.halo.upload_queries(exec, queries);
  std::uint32_t* out = parts.halo.answers(words.size());
  const auto n = static_cast<std::uint32_t>(count);
  const CameraFrame& cam = h.f.camera.frame;
  const auto answer = [&](const auto& spheres) {
    with_wall_occluder(parts, h.options, spheres, [&](const auto& occluder) {
      using Occluder = std::decay_t<decltype(occluder)>;
      if constexpr (Executor::answers_rays_apart) {
        const int pieces = h.lighting.shadows ? Executor::shadow_ray_pieces : 0;
        const auto rays = static_cast<std::uint32_t>(pieces + h.lighting.ao_samples);
        std::uint8_t* blocked = parts.halo.rays_answered(std::size_t{n} * rays);
        thrust::for_each_n(exec.policy(), Index(0), n * rays,
                           AnswerRaysApart<Occluder>{
                               {occluder, cam, h.shading, h.lighting, q, h.own}, pieces, blocked});
        thrust::for_each_n(exec.policy(), Index(0), n,
                           GatherAnsweredRays{h.lighting, pieces, blocked, out});
        return;
      }
      thrust::for_each_n(
          exec.policy(), Index(0), n,
          AnswerQueries<Occluder>{{occluder, cam, h.shading, h.lighting, q, h.own}, out});
    });
  };
  if (h.s.layout) {
    answer(GridOccluder{parts.grid.view(*h.s.layout), h.f.id_of});
  } else {
    answer(BruteForceOccluder{h.f.r.spheres, h.f.r.count, h.f.id_of});
  }
  exec.mark(1);
  exec.download(out, words.data(), words.size());
  return exec.elapsed_ms(0, 1);
}

// The other ranks' answers (one merged answer per sample) folded into this rank's blocked bits.
inline void fold_answers(BackendParts& parts, const Executor& exec, const HaloFrame& h,
                         const std::vector<std::uint32_t>& samples,
                         const std::vector<std::uint32_t>& words) {
  if (samples.empty()) return;
  parts.halo.upload_answers(exec, samples, words);
  thrust::for_each_n(exec.policy(), Index(0), static_cast<std::uint32_t>(samples.size()),
                     FoldAnswers{parts.halo.answered(), parts.halo.answer_words(),
                                 h.lighting.mask_words, parts.lit.blocked()});
}

// The answers folded in, then every sample shaded; the image gets depth and ids from each
// pixel's first sample in the same pass.
inline void shade_stage(BackendParts& parts, const std::optional<HaloFrame>& kept,
                        const RenderSettings& settings, const std::vector<std::uint32_t>& samples,
                        const std::vector<std::uint32_t>& words, Image& image, FrameStats& stats) {
  const HaloFrame& h = kept_frame(kept);
  const Executor exec(h.stream, parts.scratch);
  const CameraFrame& cam = h.f.camera.frame;
  fold_answers(parts, exec, h, samples, words);
  image.pending.reset();
  const std::size_t pixels = static_cast<std::size_t>(image_pixels(settings));
  parts.frame.prepare(exec, pixels, true, false);
  parts.walls.with_see_through(h.options, [&](auto walls) {
    parts.lit.shade(exec, cam, h.shading, h.lighting, has_secondary_rays(h.lighting), walls,
                    parts.frame.rgb(), parts.frame.depth(), parts.frame.hit_ids());
  });
  RenderOptions delivery = h.options;
  delivery.with_hits = true;
  delivery.defer_pixels = false;
  hand_over_frame(exec, parts.frame, parts.shared, settings, delivery, stats, image);
}

// With several samples per pixel: the answers folded in, then every sample's shown colour, depth
// and id, sample by sample, for the ranks' composite of samples.
inline HostSamples shade_samples_stage(BackendParts& parts, const std::optional<HaloFrame>& kept,
                                       const std::vector<std::uint32_t>& samples,
                                       const std::vector<std::uint32_t>& words) {
  const HaloFrame& h = kept_frame(kept);
  const Executor exec(h.stream, parts.scratch);
  const CameraFrame& cam = h.f.camera.frame;
  fold_answers(parts, exec, h, samples, words);
  const std::size_t count = lit_sample_count(cam, h.lighting);
  ShownSample* shown = parts.halo.shown(count);
  const std::uint32_t* blocked = has_secondary_rays(h.lighting) ? parts.lit.blocked() : nullptr;
  parts.walls.with_see_through(h.options, [&](auto walls) {
    exec.for_each_pixel(
        cam.width, cam.height,
        ShadeSamples<decltype(walls)>{
            {cam, h.shading, h.lighting, parts.lit.surfaces(), blocked, walls}, shown});
  });
  if constexpr (Executor::native_space == MemorySpace::host) {
    return {shown, count};
  } else {
    ShownSample* out = parts.halo.shown_on_host(count);
    exec.download(shown, out, count);
    return {out, count};
  }
}

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
