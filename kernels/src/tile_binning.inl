// The screen tiles' binning functors, for one backend. Included by backend_impl.inl inside
// namespace granray::GRANRAY_BACKEND_NAMESPACE.

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
