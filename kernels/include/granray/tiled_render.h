// Posters (contract 5: an image of any size in bounded memory): a frame rendered as bands of whole
// rows, each a window (RenderSettings::region) of the same frame. The camera, auto-fit, lighting
// and colour range see the whole image, so the bands put together are exactly the whole, and each
// band can be written out (PNG rows, HDF5 chunks) before the next is rendered.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "granray/renderer.h"

namespace granray {

// An upper estimate of the bytes a frame's buffers take per pixel of its window, the backend's
// and the host's together: the pixels, the screen tiles' lists, and a lit frame's samples.
std::size_t frame_bytes_per_pixel(const RenderSettings& settings);

// The host memory free now (the kernel's free pages).
std::size_t host_memory_available();

// A frame's buffers on the host (the CPU backend) take at most this much by default.
constexpr std::size_t kDefaultHostTileMemory = std::size_t{1} << 30;

// The budget a frame's bands are sized by: `configured` when not 0 (InsituConfig::tile_memory),
// else half of what the renderer's memory has available now (Renderer::memory_available), and
// on the CPU backend at most kDefaultHostTileMemory.
std::size_t tile_budget(Renderer& renderer, std::size_t configured);

// Rows per band so that a band's buffers fit `budget_bytes`: at least 1, at most the window's
// height (the whole window in one band when it fits).
int band_rows(const RenderSettings& settings, std::size_t budget_bytes);

// The bands of the window `settings` renders (its region, or the whole image), top first, each
// as wide as the window and `rows` high (the last one may be lower).
std::vector<PixelRect> frame_bands(const RenderSettings& settings, int rows);

// Adds a later band's times and categories to the frame's stats (the first band's).
void add_band_stats(FrameStats& frame, const FrameStats& band);

// The one band loop: renders the frame band after band with `render` (one renderer, or every
// rank through a rank group), handing each band's image (the band's size, rows top first) and
// stats to `take` before the next band renders; `take` may move the image away. Returns the
// frame's stats: the first band's, with every later band's added (add_band_stats).
using RenderBand =
    std::function<FrameStats(const RenderSettings& band, Image& image, bool later_band)>;
using TakeBand = std::function<void(const PixelRect& band, Image& image, const FrameStats& stats)>;
FrameStats render_bands(const RenderSettings& settings, int rows, const RenderBand& render,
                        const TakeBand& take);

// Bands on one renderer: the particles are measured once, for the bands after the first, which
// are given their box and colour range (RenderOptions::particle_bounds, color_range, where
// `options` gives none) and reuse the first band's grid (RenderOptions::same_particles). A frame
// of one band renders as it would alone.
RenderBand bands_on(Renderer& renderer, const ParticleView& particles, RenderOptions options);

// render_bands on one renderer, in bands that fit `budget_bytes`; each band's image is settled
// before `take` sees it.
void render_in_bands(Renderer& renderer, const ParticleView& particles,
                     const RenderSettings& settings, const RenderOptions& options,
                     std::size_t budget_bytes, const TakeBand& take);

}  // namespace granray
