#include "granray/tiled_render.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "granray/kernels/bounce_levels.h"
#include "granray/kernels/lighting.h"
#include "granray/kernels/path_trace.h"

namespace granray {

std::size_t frame_bytes_per_pixel(const RenderSettings& settings) {
  // Pixels on the backend and the host (3 + 3), depth and ids for compositing (12 + 12), and
  // one screen-tile entry a pixel with its key, sorted copies and sphere (about 40).
  std::size_t bytes = 3 + 3 + 24 + 40;
  // The paths' running sums and, level by level (path_levels.h), at least one path a pixel in
  // two lists with its radiance, group and place in order (a batch takes up to
  // kMostPathsInFlight paths, whatever the band).
  if (path_traced(settings)) {
    bytes += sizeof(Vec3) + 2 * sizeof(PathState) + sizeof(Vec3) + 1 + sizeof(std::uint32_t);
  }
  if (lighting_on(settings.shading) || materials_on(settings)) {
    const std::size_t samples = static_cast<std::size_t>(std::max(1, settings.shading.samples));
    const std::size_t mask =
        4 * static_cast<std::size_t>(blocked_mask_words(std::max(0, settings.shading.ao_samples)));
    // Surfaces and blocked bits, on the backend and (across ranks) on the host.
    bytes += 2 * samples * (sizeof(SurfaceSample) + mask);
    if (materials_on(settings)) {
      // Slots and mixes; the bounce pass's surfaces per sample and its list of rays, each with
      // its surface, colour, count of rays and (lit, BounceLevels) its grain found apart.
      bytes += samples * (1 + sizeof(Vec4) + sizeof(BounceNode) + 1);
      bytes += samples * kLevelRaysPerSample *
               (sizeof(LevelRay) + sizeof(BounceNode) + sizeof(Vec3) + 1 + sizeof(LevelHit));
    }
  }
  return bytes;
}

std::size_t host_memory_available() {
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return ~std::size_t{0};
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
}

std::size_t tile_budget(Renderer& renderer, std::size_t configured) {
  if (configured > 0) return configured;
  const std::size_t half = renderer.memory_available() / 2;
  return renderer.backend() == BackendKind::cpu ? std::min(half, kDefaultHostTileMemory) : half;
}

int band_rows(const RenderSettings& settings, std::size_t budget_bytes) {
  const PixelRect window = render_window(settings);
  const int height = std::max(1, window.y1 - window.y0);
  const std::size_t row_bytes = static_cast<std::size_t>(std::max(1, window.x1 - window.x0)) *
                                frame_bytes_per_pixel(settings);
  const std::size_t rows = budget_bytes / row_bytes;
  return static_cast<int>(std::clamp<std::size_t>(rows, 1, static_cast<std::size_t>(height)));
}

std::vector<PixelRect> frame_bands(const RenderSettings& settings, int rows) {
  const PixelRect window = render_window(settings);
  std::vector<PixelRect> bands;
  rows = std::max(1, rows);
  for (int y = window.y0; y < window.y1; y += rows) {
    bands.push_back({window.x0, y, window.x1, std::min(window.y1, y + rows)});
  }
  return bands;
}

void add_band_stats(FrameStats& frame, const FrameStats& band) {
  frame.grid_ms += band.grid_ms;
  frame.render_ms += band.render_ms;
  frame.primary_ms += band.primary_ms;
  frame.secondary_ms += band.secondary_ms;
  frame.secondary_rays += band.secondary_rays;
  frame.bounce_ms += band.bounce_ms;
  frame.bounce_rays += band.bounce_rays;
  frame.composite_ms += band.composite_ms;
  frame.total_ms += band.total_ms;
  for (std::size_t k = 0; k < frame.categories.size(); ++k)
    frame.categories[k] |= band.categories[k];
}

FrameStats render_bands(const RenderSettings& settings, int rows, const RenderBand& render,
                        const TakeBand& take) {
  RenderSettings band_settings = settings;
  Image image;
  FrameStats frame;
  bool later = false;
  for (const PixelRect& band : frame_bands(settings, rows)) {
    band_settings.region = band;
    const FrameStats stats = render(band_settings, image, later);
    if (later) {
      add_band_stats(frame, stats);
    } else {
      frame = stats;
    }
    later = true;
    take(band, image, stats);
  }
  return frame;
}

RenderBand bands_on(Renderer& renderer, const ParticleView& particles, RenderOptions options) {
  return [&renderer, particles, options](const RenderSettings& band, Image& image,
                                         bool later_band) mutable {
    // A frame of one band measures its particles itself; later bands share one measure.
    if (later_band && !options.particle_bounds) {
      const FrameExtent extent = renderer.measure(particles);
      options.particle_bounds = extent.bounds;
      // As a frame finds its own "auto" range: none without finite scalars.
      if (!options.color_range) {
        options.color_range = extent.scalar_lo <= extent.scalar_hi
                                  ? std::make_pair(extent.scalar_lo, extent.scalar_hi)
                                  : std::make_pair(0.0f, 0.0f);
      }
    }
    RenderOptions band_options = options;
    band_options.same_particles = later_band;
    return renderer.render(particles, band, image, band_options);
  };
}

void render_in_bands(Renderer& renderer, const ParticleView& particles,
                     const RenderSettings& settings, const RenderOptions& options,
                     std::size_t budget_bytes, const TakeBand& take) {
  render_bands(settings, band_rows(settings, budget_bytes), bands_on(renderer, particles, options),
               [&take](const PixelRect& band, Image& image, const FrameStats& stats) {
                 settle(image);
                 take(band, image, stats);
               });
}

}  // namespace granray
