// Screen tiles (screen_tiles.h): how each sphere's footprint is binned into the tiles it covers,
// and the part that owns the tiles' lists and builds them. Part of the backend
// (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "particle_grid.inl"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// Chunks of spheres that bin their tile entries side by side on the CPU.
constexpr std::size_t kTileChunks = 16;

// Screen tiles (screen_tiles.h). Each sphere's footprint is found once; then, as the backend's
// Executor says (like the grid):
// - by sorting (GPU): the entries' counts scanned, every entry emitted with its key, and one sort
//   of the keys lists every tile's spheres nearest first;
// - by counting (CPU): the spheres sorted by their bound (32-bit keys, one per sphere, where the
//   CPU's Thrust sorts the 64-bit entry keys on one thread: 16 % of a 1 M-grain frame), then cut
//   into consecutive chunks that count and place their entries into each tile's list in that
//   order, every chunk after the chunks before it: the lists come out sorted, with no atomics.
struct FootprintOf {
  CameraFrame camera;
  const Vec4* spheres;
  GRANRAY_HD Footprint operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    return is_renderable(s) ? sphere_footprint(camera, s) : no_footprint();
  }
};

struct TileCountOf {
  GRANRAY_HD std::uint64_t operator()(const Footprint& f) const { return tile_count(f); }
};

// Calls visit(tile, key) for each tile of sphere i's footprint.
template <class Visit>
GRANRAY_HD_INLINE void for_each_tile_entry(const ScreenTiles& tiles, const Footprint& f,
                                           Visit visit) {
  for (int y = f.y0 >> kTileShift; y <= f.y1 >> kTileShift; ++y) {
    for (int x = f.x0 >> kTileShift; x <= f.x1 >> kTileShift; ++x) {
      const auto tile = static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(tiles.columns) +
                        static_cast<std::uint32_t>(x);
      visit(tile, tile_entry_key(tile, f.near, f, x, y));
    }
  }
}

struct EmitTileEntries {
  ScreenTiles tiles;
  const Footprint* footprints;
  const std::uint64_t* ends;  // inclusive scan of the entry counts
  std::uint64_t* keys;
  std::uint32_t* values;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    const Footprint f = footprints[i];
    std::uint64_t k = ends[i] - tile_count(f);
    const EmitTileEntries& e = *this;
    for_each_tile_entry(tiles, f, [&e, &k, i](std::uint32_t, std::uint64_t key) {
      e.keys[k] = key;
      e.values[k] = i;
      ++k;
    });
  }
};

struct FirstKeyOfTile {
  GRANRAY_HD std::uint64_t operator()(std::uint32_t tile) const {
    return static_cast<std::uint64_t>(tile) << kTileKeyTileShift;
  }
};

struct NearBitsOf {
  GRANRAY_HD std::uint32_t operator()(const Footprint& f) const { return bits_of(f.near); }
};

// Chunk c of `chunks` holds the spheres order[first(c) .. first(c + 1)), nearest bound first.
struct SphereChunks {
  const std::uint32_t* order;  // the spheres by their bound
  std::uint32_t spheres;
  std::uint32_t chunks;
  GRANRAY_HD std::uint32_t first(std::uint32_t c) const {
    return static_cast<std::uint32_t>(std::uint64_t{spheres} * c / chunks);
  }
};

// cursors[c * tiles + t]: first the entries chunk c gives tile t.
struct CountChunkEntries {
  ScreenTiles tiles;
  SphereChunks chunks;
  const Footprint* footprints;  // in the chunks' order
  std::uint32_t* cursors;
  GRANRAY_HD void operator()(std::uint32_t c) const {
    std::uint32_t* row =
        cursors + std::size_t{c} * static_cast<std::uint32_t>(tiles.columns) * tiles.rows;
    for (std::uint32_t k = chunks.first(c); k < chunks.first(c + 1); ++k) {
      for_each_tile_entry(tiles, footprints[k],
                          [row](std::uint32_t tile, std::uint64_t) { ++row[tile]; });
    }
  }
};

// Tile t's total into offsets[t + 1], and each chunk's count turned into where its entries start
// when taken from offset 0 (the scan of the totals adds the tile's offset later).
struct ChunkStartsInTile {
  std::uint32_t tiles;
  std::uint32_t chunks;
  std::uint32_t* cursors;
  std::uint32_t* offsets;
  GRANRAY_HD void operator()(std::uint32_t t) const {
    std::uint32_t running = 0;
    for (std::uint32_t c = 0; c < chunks; ++c) {
      const std::uint32_t count = cursors[std::size_t{c} * tiles + t];
      cursors[std::size_t{c} * tiles + t] = running;
      running += count;
    }
    offsets[t + 1] = running;
  }
};

struct PlaceChunkEntries {
  ScreenTiles tiles;
  SphereChunks chunks;
  const Footprint* footprints;  // in the chunks' order
  const std::uint32_t* offsets;
  std::uint32_t* cursors;
  std::uint64_t* keys;
  std::uint32_t* values;
  GRANRAY_HD void operator()(std::uint32_t c) const {
    std::uint32_t* row =
        cursors + std::size_t{c} * static_cast<std::uint32_t>(tiles.columns) * tiles.rows;
    const PlaceChunkEntries& p = *this;
    for (std::uint32_t k = chunks.first(c); k < chunks.first(c + 1); ++k) {
      const std::uint32_t sphere = chunks.order[k];
      for_each_tile_entry(tiles, footprints[k],
                          [&p, row, sphere](std::uint32_t tile, std::uint64_t key) {
                            const std::uint32_t slot = p.offsets[tile] + row[tile]++;
                            p.keys[slot] = key;
                            p.values[slot] = sphere;
                          });
    }
  }
};

// The automatic method takes the grid on the CPU when the tiles would hold more entries than the
// image has pixels: then binning outweighs what the tiles save in casting (1 M dense grains at
// 1080p: 2.4 M entries, 129 ms a frame against the grid's 88; 300 k: 0.9 M entries, tiles
// faster; docs/benchmarks.md).
constexpr std::uint64_t kAutomaticTileEntriesPerPixel = 1;

// Asked for, the tiles take any number of entries; chosen automatically, at most one a pixel.
inline std::uint64_t tile_entry_cap(const RenderOptions& options, std::uint64_t pixels) {
  return options.method == RenderMethod::tiles ? std::numeric_limits<std::uint32_t>::max() - 1
                                               : kAutomaticTileEntriesPerPixel * pixels;
}

struct TileLists {
  TileListsView view;
  std::uint64_t entries;
};

class ScreenTileLists {
 public:
  // `ends`: scratch shared with the grid (ParticleGrid).
  ScreenTileLists(detail::MemoryAccount& account, Array<std::uint64_t>& ends)
      : ends_(ends),
        footprints_(account, "screen footprints"),
        sphere_near_(account, "screen footprint bounds"),
        sphere_order_(account, "spheres by screen footprint bound"),
        sorted_footprints_(account, "screen footprints by bound"),
        tile_keys_(account, "screen tile keys"),
        tile_refs_(account, "screen tile entries"),
        tile_keys_sorted_(account, "sorted screen tile keys"),
        tile_refs_sorted_(account, "sorted screen tile entries"),
        tile_offsets_(account, "screen tile offsets"),
        tile_cursor_(account, "screen tile cursors"),
        tile_spheres_(account, "particles in screen tile order") {}

  // The tiles' lists, or none when they would hold more than `most` entries. A template, like
  // ParticleGrid::build, so that only the backend's own way is compiled.
  template <class E>
  std::optional<TileLists> build(const E& exec, const ResidentParticles& r,
                                 const CameraFrame& camera, std::uint64_t most) {
    if (screen_tile_count(camera) > kMaxScreenTiles) return std::nullopt;
    auto policy = exec.policy();
    const std::uint32_t n = r.count;
    const ScreenTiles tiles = screen_tiles_of(camera);
    const auto tile_total = static_cast<std::size_t>(screen_tile_count(camera));
    footprints_.resize(n);
    thrust::transform(policy, Index(0), Index(n), footprints_.data(),
                      FootprintOf{camera, r.spheres});
    // The total: the last of the scanned counts where the entries are emitted by them, else a sum.
    std::uint64_t total = 0;
    if constexpr (E::lists_by_sorting) {
      ends_.resize(n);
      thrust::transform_inclusive_scan(policy, footprints_.data(), footprints_.data() + n,
                                       ends_.data(), TileCountOf{}, SumU64{});
      exec.download(ends_.data() + (n - 1), &total, 1);
    } else {
      total = thrust::transform_reduce(policy, footprints_.data(), footprints_.data() + n,
                                       TileCountOf{}, std::uint64_t{0}, SumU64{});
    }
    if (total > most) return std::nullopt;
    tile_keys_.resize(total);
    tile_refs_.resize(total);
    tile_offsets_.resize(tile_total + 1);
    std::uint64_t* keys = tile_keys_.data();
    std::uint32_t* refs = tile_refs_.data();
    if constexpr (E::lists_by_sorting) {
      thrust::for_each_n(policy, Index(0), n,
                         EmitTileEntries{tiles, footprints_.data(), ends_.data(), tile_keys_.data(),
                                         tile_refs_.data()});
      // The rectangle's 16 bits carry no order; the tile's needs only as many as there are tiles.
      tile_keys_sorted_.resize(total);
      tile_refs_sorted_.resize(total);
      std::tie(keys, refs) = exec.sort_pairs(
          tile_keys_.data(), tile_refs_.data(), tile_keys_sorted_.data(), tile_refs_sorted_.data(),
          total, kTileKeyTileShift + key_bits(tile_total), kTileKeyRectangleBits);
      const auto first_keys = thrust::make_transform_iterator(Index(0), FirstKeyOfTile{});
      thrust::lower_bound(policy, keys, keys + total, first_keys, first_keys + (tile_total + 1),
                          tile_offsets_.data());
    } else {
      sphere_near_.resize(n);
      sphere_order_.resize(n);
      thrust::transform(policy, footprints_.data(), footprints_.data() + n, sphere_near_.data(),
                        NearBitsOf{});
      thrust::sequence(policy, sphere_order_.data(), sphere_order_.data() + n);
      thrust::sort_by_key(policy, sphere_near_.data(), sphere_near_.data() + n,
                          sphere_order_.data());
      // The footprints in that order, so that the chunks read them one after another.
      sorted_footprints_.resize(n);
      thrust::gather(policy, sphere_order_.data(), sphere_order_.data() + n, footprints_.data(),
                     sorted_footprints_.data());
      // Enough chunks to share among the threads, few enough that their counts stay small.
      const auto chunk_count = static_cast<std::uint32_t>(std::max<std::size_t>(
          1, std::min<std::size_t>(kTileChunks, (std::size_t{1} << 22) / tile_total)));
      const SphereChunks chunks{sphere_order_.data(), n, chunk_count};
      tile_cursor_.resize(std::size_t{chunk_count} * tile_total);
      std::uint32_t* cursors = tile_cursor_.data();
      std::uint32_t* offsets = tile_offsets_.data();
      thrust::fill_n(policy, cursors, std::size_t{chunk_count} * tile_total, 0u);
      thrust::for_each_n(policy, Index(0), chunk_count,
                         CountChunkEntries{tiles, chunks, sorted_footprints_.data(), cursors});
      thrust::fill_n(policy, offsets, 1, 0u);
      thrust::for_each_n(
          policy, Index(0), static_cast<std::uint32_t>(tile_total),
          ChunkStartsInTile{static_cast<std::uint32_t>(tile_total), chunk_count, cursors, offsets});
      thrust::inclusive_scan(policy, offsets + 1, offsets + tile_total + 1, offsets + 1);
      thrust::for_each_n(policy, Index(0), chunk_count,
                         PlaceChunkEntries{tiles, chunks, sorted_footprints_.data(), offsets,
                                           cursors, tile_keys_.data(), tile_refs_.data()});
    }
    tile_spheres_.resize(total);
    thrust::gather(policy, refs, refs + total, r.spheres, tile_spheres_.data());
    return TileLists{{tiles, tile_offsets_.data(), keys, tile_spheres_.data(), refs}, total};
  }

 private:
  Array<std::uint64_t>& ends_;
  Array<Footprint> footprints_;
  Array<std::uint32_t> sphere_near_;   // bits of each footprint's bound, sorted
  Array<std::uint32_t> sphere_order_;  // the spheres in that order
  Array<Footprint> sorted_footprints_;
  Array<std::uint64_t> tile_keys_;
  Array<std::uint32_t> tile_refs_;
  Array<std::uint64_t> tile_keys_sorted_;  // the GPU's sort writes here
  Array<std::uint32_t> tile_refs_sorted_;
  Array<std::uint32_t> tile_offsets_;
  Array<std::uint32_t> tile_cursor_;
  Array<Vec4> tile_spheres_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
