// The frame pipeline of one backend, written once, as a thin composition of owning parts
// (backend_parts.inl). Included by cpu_backend.cpp (g++, Thrust's OpenMP system) and
// cuda_backend.cu (nvcc, Thrust's CUDA system) after each defines, inside namespace
// granray::GRANRAY_BACKEND_NAMESPACE:
//   struct Memory    { static void* allocate(size_t); static void release(void*); };
//   class Executor   { Executor(void* stream); policy(); synchronize(); upload(); download();
//                      for_each_pixel(width, height, f): f(i, j) for every pixel;
//                      for_each_index(count, f): f(k) for k < count, launched as the pixels;
//                      download_later(pixels, count): PendingPixels or null (copy at once);
//                      wait_for_deferred_reads(pixels): before they are overwritten;
//                      static constexpr MemorySpace native_space; static constexpr name; };
//   std::size_t default_memory_limit();
//   std::size_t system_free_memory(); // what the backend's memory could still give now
//   class PeerMemory; // another process's memory by handle (backend/shared_planes.inl)
// Every type below lives in that backend's namespace, so the two builds never share a symbol.
// A frame's path through the parts: docs/design.md, "Map".

#include "backend_prelude.inl"
#include "granray/kernels/pixel_kernels.h"
#include "lit_across_ranks.inl"
#include "path_frame.inl"
#include "unlit_frame.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

class ThrustBackend final : public detail::Backend {
 public:
  ThrustBackend() : parts_(default_memory_limit()) {}

  void set_memory_limit(std::size_t bytes) override { parts_.account.set_limit(bytes); }
  // The buffers held are reused by the next frame, so they count as available.
  std::size_t memory_available() override {
    const detail::MemoryAccount& account = parts_.account;
    const std::size_t budget_left =
        account.limit() > account.in_use() ? account.limit() - account.in_use() : 0;
    return account.in_use() + std::min(budget_left, system_free_memory());
  }

  FrameStats render(const ParticleView& particles, const RenderSettings& settings,
                    const RenderOptions& options, Image& image) override {
    return translate_errors([&] { return render_frame(particles, settings, options, image); });
  }

  FrameExtent measure(const ParticleView& view) override {
    return translate_errors([&] {
      const Executor exec(view.cuda_stream, parts_.scratch);
      const ResidentParticles r = parts_.particles.resident(exec, view);
      const ScalarRange range = scalar_range(exec, r);
      return FrameExtent{reduce_bounds(exec, r), range.lo, range.hi};
    });
  }

  double time_hash_sort(const ParticleView& view) override {
    return translate_errors([&] {
      const Executor exec(view.cuda_stream, parts_.scratch);
      const ResidentParticles r = parts_.particles.resident(exec, view);
      const SceneBounds bounds = reduce_bounds(exec, r);
      if (bounds.renderable == 0) return 0.0;
      return parts_.grid.time_hash_sort(exec, r, bounds);
    });
  }

  std::vector<HostParticles> halo_for(const ParticleView& view, const RenderSettings& settings,
                                      const RenderOptions& options,
                                      const std::vector<RankBox>& boxes, int rank) override {
    return translate_errors(
        [&] { return halo_for_stage(parts_, view, settings, options, boxes, rank); });
  }

  FrameStats cast_with_halo(const ParticleView& view, const RenderSettings& settings,
                            const RenderOptions& options, const HostParticles& halo,
                            const std::vector<RankBox>& boxes, int rank, bool keep_walls,
                            std::vector<SecondaryQuery>& queries,
                            std::vector<std::uint64_t>& targets) override {
    return translate_errors([&] {
      return cast_local_stage(parts_, halo_frame_, view, settings, options, halo, boxes, rank,
                              keep_walls, queries, targets);
    });
  }

  std::vector<std::uint64_t> pick_halo(const ParticleView& view, const RenderSettings& settings,
                                       const RenderOptions& options,
                                       const std::vector<RankBox>& boxes, int rank) override {
    return translate_errors(
        [&] { return pick_halo_stage(parts_, view, settings, options, boxes, rank); });
  }

  std::size_t halo_mailbox_capacity() override { return parts_.mailbox.capacity(); }

  std::vector<unsigned char> share_halo_mailbox(std::size_t grains) override {
    return translate_errors([&] { return parts_.mailbox.share(grains); });
  }

  void open_halo_mailboxes(const std::vector<std::vector<unsigned char>>& handles,
                           int self) override {
    translate_errors([&] { parts_.mailbox.open(handles, self); });
  }

  void post_halo(void* cuda_stream) override {
    translate_errors(
        [&] { parts_.halo.post_picked(Executor(cuda_stream, parts_.scratch), parts_.mailbox); });
  }

  FrameStats cast_with_halo(const ParticleView& view, const RenderSettings& settings,
                            const RenderOptions& options, const MailboxHalo& halo,
                            const std::vector<RankBox>& boxes, int rank, bool keep_walls,
                            std::vector<SecondaryQuery>& queries,
                            std::vector<std::uint64_t>& targets) override {
    return translate_errors([&] {
      return cast_local_stage(parts_, halo_frame_, view, settings, options,
                              HaloInMailboxes{parts_.mailbox, halo}, boxes, rank, keep_walls,
                              queries, targets);
    });
  }

  double answer_queries(const std::vector<SecondaryQuery>& queries,
                        std::vector<std::uint32_t>& words) override {
    return translate_errors([&] { return answer_stage(parts_, halo_frame_, queries, words); });
  }

  void shade_with_answers(const RenderSettings& settings, const std::vector<std::uint32_t>& samples,
                          const std::vector<std::uint32_t>& words, Image& image,
                          FrameStats& stats) override {
    translate_errors(
        [&] { shade_stage(parts_, halo_frame_, settings, samples, words, image, stats); });
  }

  HostSamples shade_samples_with_answers(const std::vector<std::uint32_t>& samples,
                                         const std::vector<std::uint32_t>& words) override {
    return translate_errors(
        [&] { return shade_samples_stage(parts_, halo_frame_, samples, words); });
  }

  std::vector<unsigned char> share_planes(std::size_t pixels) override {
    return translate_errors([&] {
      parts_.mailbox.reset();  // the ranks, or the frames' size, changed: mapped again alike
      return parts_.shared.share(pixels);
    });
  }

  void open_shared_planes(const std::vector<std::vector<unsigned char>>& handles,
                          int self) override {
    translate_errors([&] { parts_.shared.open(Executor(nullptr, parts_.scratch), handles, self); });
  }

  void composite_shared_planes(void* cuda_stream, const RenderSettings& settings, bool with_hits,
                               Image& image, FrameStats& stats) override {
    translate_errors([&] {
      const Executor exec(cuda_stream, parts_.scratch);
      const std::size_t pixels = image_pixels(settings);
      // Into this rank's own frame buffers (its planes were copied out by its render), then out
      // as a one-rank frame.
      parts_.frame.prepare(exec, pixels, with_hits, false);
      parts_.shared.merge(exec, to_rgb8(settings.shading.background), parts_.frame.rgb(),
                          with_hits ? parts_.frame.depth() : nullptr,
                          with_hits ? parts_.frame.hit_ids() : nullptr, pixels);
      RenderOptions delivery;
      delivery.with_hits = with_hits;
      parts_.frame.deliver(exec, settings, delivery, stats, image);
    });
  }

  void copy_to_host(const ParticleView& view, HostParticles& out) override {
    translate_errors(
        [&] { copy_particles_to_host(Executor(view.cuda_stream, parts_.scratch), view, out); });
  }

  void copy_contacts_to_host(const ParticleView& view, HostPairs& out) override {
    translate_errors([&] {
      const Executor exec(view.cuda_stream, parts_.scratch);
      const bool by_index = view.contacts.spheres == nullptr;
      const ResidentParticles all = by_index ? parts_.particles.resident(exec, view)
                                             : ResidentParticles{nullptr, nullptr, nullptr, 0u};
      parts_.contacts.copy_whole_to_host(exec, all, view, out);
    });
  }

  HostGrid build_grid(const ParticleView& view, GridCells cells) override {
    return translate_errors([&] {
      const Executor exec(view.cuda_stream, parts_.scratch);
      const ResidentParticles r = parts_.particles.resident(exec, view);
      const SceneBounds bounds = reduce_bounds(exec, r);
      if (bounds.renderable == 0) return HostGrid{};
      return parts_.grid.download(exec, parts_.grid.build(exec, r, bounds, false, cells));
    });
  }

 private:
  template <class F>
  static auto translate_errors(F&& body) -> decltype(body()) {
    try {
      return body();
    } catch (const Error&) {
      throw;
    } catch (const std::bad_alloc& e) {
      throw OutOfMemoryError(std::string("granray ") + Executor::name +
                             " backend: out of memory (" + e.what() + ")");
    } catch (const std::exception& e) {
      throw DeviceError(std::string("granray ") + Executor::name + " backend: " + e.what());
    }
  }

  FrameStats render_frame(const ParticleView& view, const RenderSettings& settings,
                          const RenderOptions& options, Image& image) {
    const auto frame_start = std::chrono::steady_clock::now();
    const Executor exec(view.cuda_stream, parts_.scratch);
    const FrameSetup f = set_up_frame(parts_, exec, view, settings, options);
    const ResidentParticles& r = f.r;
    const CameraSetup& camera = f.camera;
    const std::uint64_t pixel_count = image_pixels(settings);

    FrameStats stats = setup_stats(f, parts_.walls);
    take_category_census(exec, r, settings, stats);

    const auto pixels = static_cast<std::uint32_t>(pixel_count);
    image.pending.reset();
    parts_.frame.prepare(exec, pixels, options.with_hits, options.defer_pixels);
    const FrameTarget target{camera.frame,
                             make_shading_params(settings.shading, camera.frame, f.scene),
                             parts_.colors.source(exec, f.all, settings, options, stats),
                             r.spheres,
                             parts_.frame.rgb(),
                             options.with_hits ? parts_.frame.depth() : nullptr,
                             options.with_hits ? parts_.frame.hit_ids() : nullptr};
    if (path_traced(settings)) {
      render_path(parts_, exec, f, target, settings, options, stats);
    } else if (lighting_on(settings.shading) || materials_on(settings)) {
      render_lit(parts_, exec, f, target, settings, options, stats);
    } else {
      cast_unlit(parts_, exec, f, target, settings, options, stats);
    }
    hand_over_frame(exec, parts_.frame, parts_.shared, settings, options, stats, image);
    stats.total_ms = ms_since(frame_start);
    return stats;
  }

  BackendParts parts_;
  std::optional<HaloFrame> halo_frame_;  // between the calls of a lit frame across ranks
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
