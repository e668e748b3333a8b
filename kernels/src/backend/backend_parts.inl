// The owning parts of one backend, each holding its buffers from frame to frame. The frame's steps
// (frame_setup.inl, unlit_frame.inl, lit_frame.inl) compose them; ThrustBackend
// (thrust_backend.inl) holds one set.
#pragma once

#include "backend_prelude.inl"
#include "color_table.inl"
#include "contact_scene.inl"
#include "frame_buffers.inl"
#include "light_column_lists.inl"
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
        mailbox(account),
        light_column_lists(account) {}

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
  // Shadow rays read columns along the light (kernels/light_columns.h), kept for the later bands
  // of a frame: the CPU builds them on the host (light_columns.cpp), the GPU by sorting in its
  // own memory (light_column_lists.inl). `light_columns_along` picks the backend's.
  detail::LightColumns light_columns;
  LightColumnLists light_column_lists;
};

// The frame's columns along the light `dir` over `layout`'s grid for `rays` shadow rays (none,
// entries null, where they would not repay their build).
template <class E>
LightColumnsView light_columns_along(BackendParts& parts, const E& exec,
                                     const detail::GridLayout& layout, Vec3 dir,
                                     std::uint64_t rays) {
  const GridView grid = parts.grid.view(layout);
  if constexpr (E::gathers_nearby_spheres) {
    parts.light_columns.build(grid, layout.references, dir, rays, parts.grid.generation());
    return parts.light_columns.view();
  } else {
    parts.light_column_lists.build(exec, grid, layout.cells, layout.references, dir, rays,
                                   parts.grid.generation(),
                                   E::least_shadow_rays_per_column_reference);
    return parts.light_column_lists.view();
  }
}

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
