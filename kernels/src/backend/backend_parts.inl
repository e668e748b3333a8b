// The owning parts of one backend, each holding its buffers from frame to frame. The frame's steps
// (frame_setup.inl, unlit_frame.inl, lit_frame.inl) compose them; ThrustBackend
// (thrust_backend.inl) holds one set.
#pragma once

#include "backend_prelude.inl"
#include "color_table.inl"
#include "contact_scene.inl"
#include "frame_buffers.inl"
#include "light_columns.h"
#include "lit_pipeline.inl"
#include "particle_grid.inl"
#include "particle_residency.inl"
#include "rank_halo.inl"
#include "screen_tile_lists.inl"
#include "shared_planes.inl"
#include "wall_scene.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

struct BackendParts {
  explicit BackendParts(std::size_t memory_limit)
      : account(memory_limit),
        reference_ends(account, "grid reference offsets"),
        particles(account),
        colors(account),
        grid(account, reference_ends),
        tiles(account, reference_ends),
        walls(account),
        contacts(account),
        frame(account),
        shared(account),
        lit(account),
        halo(account),
        mailbox(account) {}

  detail::MemoryAccount account;  // every part's buffers count against its limit
  Scratch scratch;                // the executor's, kept between frames
  // The grid's and the tiles' scanned reference counts: a frame builds one at a time.
  Array<std::uint64_t> reference_ends;
  ParticleResidency particles;
  ColorTable colors;
  ParticleGrid grid;
  ScreenTileLists tiles;
  WallScene walls;
  ContactScene contacts;  // contract 2g: the capsules, which WallScene hands the kernels
  FrameBuffers frame;
  SharedPlanes shared;  // frames composited in GPU memory across ranks (shared_planes.inl)
  LitPipeline lit;
  RankHalo halo;        // lit frames across ranks by halo (lit_across_ranks.inl)
  HaloMailbox mailbox;  // their halos in GPU memory (rank_halo.inl)
  // The CPU's shadow rays read columns along the light (light_columns.h), kept for the later
  // bands of a frame.
  detail::LightColumns light_columns;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
