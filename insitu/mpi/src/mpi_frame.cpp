// Which way a frame goes across ranks: the measures every rank agrees on (camera box, colour
// range, ids), then an unlit frame rendered per rank and composited, or a lit one
// (mpi_lit_frame.cpp); the rank group the in-situ renderer drives, and the GPU of a rank.
#include "granray/insitu/mpi_frame.h"
#include "granray/rank_stages.h"
#include "mpi_contacts.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "granray/errors.h"
#include "granray/kernels/shading.h"
#include "mpi_agree.h"
#include "mpi_gathered_frame.h"
#include "mpi_lit_frame.h"

namespace granray::mpi {

using detail::agreed_step;
using detail::composite_rendered;
using detail::composites_in_gpu_memory;
using detail::gather_contacts;
using detail::has_see_through_walls;
using detail::ms_since;
using detail::render_in_gpu_memory;
using detail::render_lit_by_halo;
using detail::render_lit_gathered;

bool gathered_lit_frame(std::uint64_t particles, std::uint64_t pixels, int samples,
                        BackendKind backend, bool in_gpu_memory) {
  // A sample's worth of the halo's costs: its composite's 15 bytes through the host, or, with
  // the composite in GPU memory, its exchanges and stages alone (the switch measured near
  // 0.4 M grains at 1080p on one H100: about 6 bytes a sample).
  constexpr std::uint64_t kGatheredBytes = 28;
  const std::uint64_t sample_bytes = in_gpu_memory ? 6 : 15;
  // On CPUs every rank gathers every grain (to render its bands of rows), faster than the halo
  // at every size measured up to 1 M grains at 1080p; the grains a rank sends stay within the
  // 16 MB a lit frame may cost it (docs/benchmarks.md).
  constexpr std::uint64_t kMostGatheredBytesOnCpus = std::uint64_t{16} << 20;
  if (backend == BackendKind::cpu && particles * kGatheredBytes > kMostGatheredBytesOnCpus) {
    return false;
  }
  return particles <= kLitGatherParticles &&
         particles * kGatheredBytes <= pixels * std::uint64_t(samples) * sample_bytes;
}

FrameStats render_distributed(Renderer& renderer, MPI_Comm comm, ParticleView view,
                              const RenderSettings& settings, Image& image, Compositor* compositor,
                              Composited result, bool same_particles) {
  const auto start = std::chrono::steady_clock::now();
  FrameExtent local{};
  agreed_step("measuring the particles", comm, [&] { local = renderer.measure(view); });
  // Lows and negated highs in one MPI_MIN (negation is exact).
  float extremes[9] = {local.bounds.lo.x,  local.bounds.lo.y,  local.bounds.lo.z,
                       local.scalar_lo,    -local.bounds.hi.x, -local.bounds.hi.y,
                       -local.bounds.hi.z, -local.scalar_hi,   -local.bounds.max_radius};
  std::uint64_t counts[3] = {local.bounds.renderable, local.bounds.skipped, view.count};
  double diameters = local.bounds.diameter_sum;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, extremes, 9, MPI_FLOAT, MPI_MIN, comm));
  const float* lo = extremes;
  const float hi[4] = {-extremes[4], -extremes[5], -extremes[6], -extremes[7]};
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_UINT64_T, MPI_SUM, comm));
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &diameters, 1, MPI_DOUBLE, MPI_SUM, comm));
  // Every rank takes part in the scan: whether a rank passes ids is its own business (a rank
  // with no particles may well pass none).
  std::uint64_t before = 0;
  const std::uint64_t mine = view.count;
  GRANRAY_MPI_CHECK(MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, comm));
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  if (view.ids == nullptr && rank > 0) view.id_offset += before;  // rank 0's result is undefined
  // contract 2g: every rank draws every rank's capsules (settings agree on every rank).
  HostPairs contacts;
  if (settings.contacts && size > 1)
    view.contacts = gather_contacts(comm, renderer, view, contacts);
  RenderOptions options;
  options.with_hits = true;
  options.copy_drawn_only = size > 1;      // on one rank the image is the picture
  options.particle_bounds = local.bounds;  // measured above: not reduced a second time
  options.same_particles = same_particles;
  options.camera_bounds = SceneBounds{
      {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, counts[0], counts[1], diameters, -extremes[8]};
  if (lo[3] <= hi[3])
    options.color_range = std::make_pair(lo[3], hi[3]);
  else
    options.color_range = std::make_pair(0.0f, 0.0f);
  FrameStats stats;
  if (lighting_on(settings.shading) || materials_on(settings) || path_traced(settings)) {
    const std::optional<std::uint64_t> limit =
        compositor != nullptr ? compositor->lit_gather_limit() : std::nullopt;
    const std::uint64_t pixels = std::uint64_t(render_window(settings).area());
    // Bounce rays (contract 2e) go anywhere: one rank traces them over every grain.
    const bool bounce_rays = materials_on(settings) || path_traced(settings);
    // One sample per pixel by halo composites in GPU memory where it can.
    const bool in_gpu_memory = !bounce_rays && settings.shading.samples == 1 &&
                               !has_see_through_walls(settings) &&
                               composites_in_gpu_memory(renderer, comm, settings, compositor);
    const bool gather =
        bounce_rays || (limit ? counts[2] <= *limit
                              : gathered_lit_frame(counts[2], pixels, settings.shading.samples,
                                                   renderer.backend(), in_gpu_memory));
    if (gather) {
      // CPU ranks share the casting by bands of rows, unless rank 0 can render alone with every
      // rank's threads (all on one node, its CPUs theirs); on GPUs, where the casting is cheap
      // and moving the grains is not, rank 0 renders alone.
      int threads = 0;
      bool in_bands = false;
      if (renderer.backend() == BackendKind::cpu) {
        threads = compositor != nullptr ? compositor->gathered_frame_threads(comm) : 0;
        in_bands = threads == 0;
      }
      stats = render_lit_gathered(renderer, comm, view, settings, options, image, result, in_bands,
                                  compositor, threads);
    } else {
      stats = render_lit_by_halo(renderer, comm, view, settings, options, image, compositor, result,
                                 local.bounds, in_gpu_memory);
    }
  } else {
    const bool see_through = has_see_through_walls(settings);
    if (!see_through && composites_in_gpu_memory(renderer, comm, settings, compositor)) {
      stats = render_in_gpu_memory(renderer, comm, view, settings, options, image, result);
    } else {
      if (see_through) options.copy_drawn_only = false;
      agreed_step("rendering", comm,
                  [&] { stats = renderer.render(view, settings, image, options); });
      composite_rendered(image, settings, comm, compositor, result, see_through, stats);
    }
  }

  if (settings.select || !settings.clip.empty()) {  // each rank counted the grains it hid
    GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &stats.hidden, 1, MPI_UINT64_T, MPI_SUM, comm));
  }
  if (settings.category_census) {  // each rank listed the categories it drew
    GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, stats.categories.data(), kCategoryWords,
                                    MPI_UINT64_T, MPI_BOR, comm));
  }
  const RankStats share{view.count, stats.grid_ms, stats.render_ms, stats.composite_ms,
                        static_cast<double>(stats.exchange_bytes)};
  static_assert(sizeof(RankStats) == 5 * sizeof(double), "shares travel as raw bytes");
  if (rank == 0) stats.ranks.resize(size);
  GRANRAY_MPI_CHECK(MPI_Gather(&share, sizeof(RankStats), MPI_BYTE, stats.ranks.data(),
                               sizeof(RankStats), MPI_BYTE, 0, comm));
  stats.particles = counts[2];
  stats.skipped = counts[1];
  stats.total_ms = ms_since(start);
  return stats;
}

namespace detail {

// Every rank leaves its frame in its shared planes; once all have (the agreement after the
// render orders them), rank 0 merges them in GPU memory, and the other ranks wait for that
// before their next frame may overwrite their planes.
FrameStats render_in_gpu_memory(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                                const RenderSettings& settings, RenderOptions options, Image& image,
                                Composited result) {
  options.share_planes = true;
  FrameStats stats;
  agreed_step("rendering", comm, [&] { stats = renderer.render(view, settings, image, options); });
  composite_in_gpu_memory(renderer, comm, view.cuda_stream, settings, result, image, stats);
  return stats;
}

void composite_in_gpu_memory(Renderer& renderer, MPI_Comm comm, void* cuda_stream,
                             const RenderSettings& settings, Composited result, Image& image,
                             FrameStats& stats) {
  int rank = 0;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const auto composite_start = std::chrono::steady_clock::now();
  agreed_step("compositing in GPU memory", comm, [&] {
    if (rank == 0) {
      rank_stages(renderer).composite_shared_planes(
          cuda_stream, settings, result == Composited::rgb_depth_ids, image, stats);
    }
  });
  stats.composite_ms += ms_since(composite_start);
}

bool composites_in_gpu_memory(Renderer& renderer, MPI_Comm comm, const RenderSettings& settings,
                              Compositor* compositor) {
  int size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const PixelRect window = render_window(settings);
  return compositor != nullptr && size > 1 && !window.empty() &&
         compositor->composites_in_gpu_memory(renderer, comm, window.x1 - window.x0,
                                              window.y1 - window.y0);
}

bool has_see_through_walls(const RenderSettings& settings) {
  return settings.walls && std::any_of(settings.walls->begin(), settings.walls->end(),
                                       [](const Wall& w) { return w.opacity < 1.0f; });
}

// contract 2d: where no rank shows a surface, a pixel is the see-through walls over the background,
// which every rank computes alike but the compositors fill with the bare background. Rank 0
// keeps its own colour there.
void composite_rendered(Image& image, const RenderSettings& settings, MPI_Comm comm,
                        Compositor* compositor, Composited result, bool see_through,
                        FrameStats& stats) {
  int rank = 0;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const Composited composited = see_through ? Composited::rgb_depth_ids : result;
  const auto composite_start = std::chrono::steady_clock::now();
  std::vector<std::uint8_t> own_rgb;
  if (see_through && rank == 0) own_rgb = image.rgb;
  if (compositor != nullptr) {
    compositor->composite(image, settings.shading.background, comm, composited, &stats.drawn);
  } else {
    Compositor(CompositeMethod::automatic)
        .composite(image, settings.shading.background, comm, composited, &stats.drawn);
  }
  if (see_through && rank == 0) {
    for (std::size_t p = 0; p < image.hit_id.size(); ++p) {
      if (image.hit_id[p] == ~std::uint64_t{0}) std::memcpy(&image.rgb[3 * p], &own_rgb[3 * p], 3);
    }
  }
  stats.composite_ms += ms_since(composite_start);
}

}  // namespace detail

namespace {

class MpiRankGroup final : public RankGroup {
 public:
  explicit MpiRankGroup(MPI_Comm comm) : comm_(comm) {
    GRANRAY_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    GRANRAY_MPI_CHECK(MPI_Comm_size(comm_, &size_));
  }
  int rank() const override { return rank_; }
  int ranks() const override { return size_; }
  FrameStats render(Renderer& renderer, const ParticleView& view, const RenderSettings& settings,
                    Image& image) override {
    return render_distributed(renderer, comm_, view, settings, image, &compositor_,
                              Composited::rgb);
  }
  FrameStats render_band(Renderer& renderer, const ParticleView& view, const RenderSettings& band,
                         Image& image, bool later_band) override {
    return render_distributed(renderer, comm_, view, band, image, &compositor_, Composited::rgb,
                              later_band);
  }
  bool all(bool ok) override {
    int value = ok ? 1 : 0;
    GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, comm_));
    return value == 1;
  }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  Compositor compositor_;
};

}  // namespace

std::shared_ptr<RankGroup> rank_group(MPI_Comm comm) {
  return std::make_shared<MpiRankGroup>(comm);
}

int use_node_local_gpu(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  GRANRAY_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local_rank = 0;
  const int status = MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  check(status, "MPI_Comm_rank(node communicator)");
  const int devices = cuda_device_count();
  if (devices == 0) return -1;
  const int device = local_rank % devices;
  use_cuda_device(device);
  return device;
}

bool launched_by_mpi() {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

}  // namespace granray::mpi