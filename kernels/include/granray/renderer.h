#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "granray/camera.h"
#include "granray/image.h"
#include "granray/kernels/grid_view.h"
#include "granray/kernels/lighting.h"
#include "granray/particles.h"
#include "granray/pixel_rect.h"
#include "granray/render_settings.h"

namespace granray {

enum class BackendKind { automatic, cuda, cpu };
// How a frame finds each pixel's nearest sphere; every method gives the same image.
//   grid:        3D-DDA through a uniform grid of the particles (seed 002);
//   tiles:       the image cut into tiles that list their spheres nearest first
//                (kernels/screen_tiles.h);
//   brute_force: every sphere for every pixel (seed 001), the reference;
//   automatic:   the backend's fastest as measured (docs/benchmarks.md): the grid on the GPU,
//                tiles on the CPU unless they would hold more entries than the image has pixels.
enum class RenderMethod { automatic, grid, tiles, brute_force };

const char* render_method_name(RenderMethod method);

struct RenderOptions {
  RenderMethod method = RenderMethod::automatic;
  bool with_hits = false;  // also fill Image::depth and Image::hit_id
  // With with_hits: copy into the image only the pixels of FrameStats::drawn (each row from its
  // first to its last drawn pixel), leaving the others as they were: compositing reads no
  // others, and one rank's part of a scene often covers a small part of the picture.
  bool copy_drawn_only = false;
  // Rendering a part of the particles (one rank's): the box of all of them frames the auto
  // camera, and their scalar range replaces this part's own "auto" colour range.
  std::optional<SceneBounds> camera_bounds;
  std::optional<std::pair<float, float>> color_range;
  // The box and census of exactly the particles being rendered, as Renderer::measure returned
  // them for this frame: the render then skips reducing them again. Its max_radius decides
  // whether the grid may list every grain once without counting: it must not be below the
  // largest radius (0 makes the grid count).
  std::optional<SceneBounds> particle_bounds;
  // Without with_hits, on the CUDA backend: return once the pixels are cast and leave their copy
  // into Image::rgb running on a stream of its own; Image::pending is then set and settle(image)
  // (on any thread) finishes it. The simulation's next kernels need not wait for the copy, and
  // the renderer's next frame waits only until the copy has read the pixels. The CPU backend,
  // and the CUDA backend when all its page-locked frame buffers are lent out, copy at once.
  bool defer_pixels = false;
  // Lit frames: count the secondary rays into FrameStats::secondary_rays (one more pass over the
  // samples; benchmarks ask for it).
  bool count_rays = false;
  // The particles are those of this renderer's previous render call, unchanged (a later band of
  // the same frame: render_bands): the backend may reuse the grid it built for them then.
  bool same_particles = false;
  // With with_hits, on the CUDA backend, after RankStages::share_planes: leave the frame's
  // pixels, depths and ids in the renderer's shared planes for composite_shared_planes on rank 0
  // instead of copying them into the image (which gets the frame's size alone).
  bool share_planes = false;
  // The path-traced still (contract 2e): called after each batch of paths with the paths per pixel
  // done and in all, for a progress line.
  std::function<void(int done, int total)> path_progress;
};

// The extent of one frame's particles: their box and census, and the range of their scalar.
struct FrameExtent {
  SceneBounds bounds;
  float scalar_lo;  // +inf / -inf when there is no scalar or no renderable particle
  float scalar_hi;
};

// One rank's share of a frame composited across MPI ranks.
struct RankStats {
  std::uint64_t particles = 0;
  double grid_ms = 0.0;
  double render_ms = 0.0;
  double composite_ms = 0.0;
  double exchange_bytes = 0.0;  // what the rank sent other ranks for the frame
};

struct FrameStats {
  std::uint64_t particles = 0;
  std::uint64_t skipped = 0;  // non-finite coordinates or radius not finite and > 0
  std::uint64_t hidden = 0;   // removed by clip planes or the selection (contract 2c, 2d)
  RenderMethod method = RenderMethod::brute_force;  // the one that ran (never automatic)
  std::uint64_t cells = 0;                          // grid cells, or screen tiles
  std::uint64_t grid_references = 0;                // the cells' or tiles' entries
  double grid_ms = 0.0;
  double render_ms = 0.0;            // casting and shading
  double primary_ms = 0.0;           // of render_ms: the primary rays
  double secondary_ms = 0.0;         // of render_ms: shadow and ambient-occlusion rays (lit frames)
  std::uint64_t secondary_rays = 0;  // with RenderOptions::count_rays
  double bounce_ms = 0.0;            // of render_ms: metal and glass's bounce pass (contract 2e)
  // With RenderOptions::count_rays: the bounce pass's rays, its hits' shadow and occlusion rays
  // included.
  std::uint64_t bounce_rays = 0;
  // The entries of the columns along the light that this frame's shadow rays read (lit frames
  // and the path still under a point light, on one rank; kernels/light_columns.h); 0 where they
  // walked the grid.
  std::uint64_t light_column_entries = 0;
  // The path still traced level by level (the GPU's): its parts whose lists found no memory and
  // were traced again in halves. After one, the still's later batches start at the smaller part.
  std::uint64_t path_parts_retried = 0;
  double total_ms = 0.0;
  std::uint64_t exchange_bytes = 0;  // across ranks: what this rank sent the others (lit by halo)
  std::uint64_t wall_triangles = 0;  // contract 2b
  double wall_ms = 0.0;              // building the walls' tree this frame (0: kept from before)
  ResolvedCamera camera{};
  bool colored = false;  // coloured by the scalar over [color_lo, color_hi]
  float color_lo = 0.0f;
  float color_hi = 0.0f;
  // contract 2g: the capsules drawn (pairs at or above the threshold), the pairs left out for a
  // broken grain, an index past the frame's particles or a value that is not a finite f >= 0,
  // and the range their colours span.
  std::uint64_t contacts = 0;
  std::uint64_t contacts_skipped = 0;
  double contact_ms = 0.0;  // building the capsules and their grid (the device waited for)
  float contact_lo = 0.0f;
  float contact_hi = 0.0f;
  // With RenderSettings::category_census: bit v (word v / 64) set when a drawn grain has the
  // category value v = floor(s + 0.5) in 0..255 (contract 2d); every rank's, once composited.
  std::array<std::uint64_t, kCategoryWords> categories{};
  // With RenderOptions::with_hits: where the pixels that show a particle lie.
  DrawnRegion drawn;
  double composite_ms = 0.0;     // sort-last compositing across ranks (0 on one rank)
  std::vector<RankStats> ranks;  // per rank, on rank 0 of a composited frame; else empty
};

// The grid of one frame copied to the host, for tests and diagnostics.
struct HostGrid {
  GridGeometry geometry{};
  std::vector<std::uint32_t> cell_offsets;  // cells + 1: cell c lists [offsets[c], offsets[c + 1])
  std::vector<Vec4> ref_spheres;            // references, then kSphereBatchPad empty spheres
  std::vector<std::uint32_t> ref_index;
  // GridView::clearance, one a block of kClearanceBlock^3 cells (clearance_blocks(dims) each way,
  // x fastest); empty: none.
  std::vector<std::uint8_t> clearance;

  // The kernels' view of this grid (with its clearance, or without when `leap` is false).
  GridView view(bool leap = true) const {
    GridView v{geometry, cell_offsets.data(), ref_spheres.data(), ref_index.data()};
    if (leap && !clearance.empty()) set_clearance(v, clearance.data());
    return v;
  }
};

bool cuda_backend_compiled();
// True when the CUDA backend is compiled in and a CUDA device can be used.
bool cuda_device_available();
// CUDA devices this process sees (0 without the CUDA backend).
int cuda_device_count();
// Makes device `index` current for this thread (cudaSetDevice): the renderer's buffers and the
// simulation's should live there. Throws DeviceError for a device that is not present.
void use_cuda_device(int index);
const char* backend_name(BackendKind kind);
// "auto", "cuda" or "cpu"; nullopt for anything else.
std::optional<BackendKind> backend_from_name(const std::string& name);

// The colormaps ColorMapping::colormap indexes: viridis, cividis, magma, inferno, plasma,
// coolwarm, gray.
const std::vector<std::string>& colormap_names();
// The colour a colormap gives the fraction s of its range (clamped to [0, 1]), as the renderer
// picks it: entry floor(255 s + 0.5) of 256.
Vec3 colormap_color(int colormap, float s);

namespace detail {
class Backend;
}
class RankStages;

// Renders frames on one backend. Buffers are kept between frames; one Renderer per thread.
class Renderer {
 public:
  // automatic picks CUDA when it is compiled in and a device is present, else the CPU.
  explicit Renderer(BackendKind kind = BackendKind::automatic);
  ~Renderer();
  Renderer(Renderer&&) noexcept;
  Renderer& operator=(Renderer&&) noexcept;

  BackendKind backend() const { return kind_; }

  // Throws ConfigError, OutOfMemoryError or DeviceError; the image is resized to the settings.
  FrameStats render(const ParticleView& particles, const RenderSettings& settings, Image& image,
                    const RenderOptions& options = {});

  HostGrid build_grid(const ParticleView& particles, GridCells cells = GridCells::centres);

  FrameExtent measure(const ParticleView& particles);

  // Caps the memory this renderer's buffers may hold (host or device, by backend); a frame that
  // needs more fails with OutOfMemoryError. The CPU default is the machine's physical memory.
  void set_memory_limit(std::size_t bytes);
  // Bytes this renderer's frames could use now: its buffers and what its backend's memory (the
  // GPU's, or the host's) still has free, within the limit. Posters size their bands by it.
  std::size_t memory_available();

  // Benchmark baseline: milliseconds for a bare cell hash of every particle's centre plus
  // Thrust's sort_by_key of the 32-bit keys and ids, on this backend (GPU.md's ceiling).
  double time_hash_sort(const ParticleView& particles);

 private:
  // The stages of a frame across ranks (kernels/internal/granray/rank_stages.h).
  friend RankStages& rank_stages(Renderer& renderer);

  BackendKind kind_;
  std::unique_ptr<detail::Backend> impl_;
};

}  // namespace granray
