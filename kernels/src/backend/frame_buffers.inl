// The frame's buffers in this backend's memory: the pixels, and with hits their depth and hit
// ids; the drawn region's row spans, and the drawn pixels packed for their copy out into the
// caller's image. Part of the backend (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "drawn_rows.h"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The frame's image: its region (contract 3) or the whole.
inline int window_width(const RenderSettings& settings) {
  const PixelRect w = render_window(settings);
  return w.x1 > w.x0 ? w.x1 - w.x0 : 0;
}
inline int window_height(const RenderSettings& settings) {
  const PixelRect w = render_window(settings);
  return w.y1 > w.y0 ? w.y1 - w.y0 : 0;
}
inline std::uint64_t image_pixels(const RenderSettings& settings) {
  return static_cast<std::uint64_t>(window_width(settings)) *
         static_cast<std::uint64_t>(window_height(settings));
}

// The one-pixel rectangle of pixel i when it shows a particle (finite depth), else empty.
struct DrawnPixel {
  const float* depth;
  std::uint32_t width;
  GRANRAY_HD PixelRect operator()(std::uint32_t i) const {
    if (!(depth[i] < INFINITY)) return {};
    const auto x = static_cast<std::int32_t>(i % width), y = static_cast<std::int32_t>(i / width);
    return {x, y, x + 1, y + 1};
  }
};

struct JoinRects {
  GRANRAY_HD PixelRect operator()(const PixelRect& a, const PixelRect& b) const {
    return a.join(b);
  }
};

// A row's drawn span, one call per row: its first and last drawn pixels, read from each end.
struct DrawnSpanOfRow {
  const float* depth;
  std::uint32_t width;
  PixelRect* spans;
  GRANRAY_HD void operator()(std::uint32_t y) const {
    const float* row = depth + static_cast<std::size_t>(y) * width;
    std::uint32_t x0 = 0, x1 = width;
    while (x0 < width && !(row[x0] < INFINITY)) ++x0;
    while (x1 > x0 && !(row[x1 - 1] < INFINITY)) --x1;
    const auto top = static_cast<std::int32_t>(y);
    spans[y] = x0 < x1 ? PixelRect{static_cast<std::int32_t>(x0), top,
                                   static_cast<std::int32_t>(x1), top + 1}
                       : PixelRect{};
  }
};

struct RowOfPixel {
  std::uint32_t width;
  GRANRAY_HD std::uint32_t operator()(std::uint32_t i) const { return i / width; }
};

// Copies the pixels of each row's drawn span, row after row, into packed planes; one call per
// pixel of the drawn region's bounding rectangle.
struct PackDrawnRows {
  PixelRect bounds;
  std::uint32_t width;
  const PixelRect* spans;        // per image row
  const std::uint32_t* offsets;  // per row of bounds: where its span starts when packed
  const Rgb8* rgb;
  const float* depth;
  const std::uint64_t* ids;
  Rgb8* packed_rgb;
  float* packed_depth;
  std::uint64_t* packed_ids;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    const auto columns = static_cast<std::uint32_t>(bounds.x1 - bounds.x0);
    const int y = bounds.y0 + static_cast<int>(i / columns);
    const int x = bounds.x0 + static_cast<int>(i % columns);
    const PixelRect span = spans[y];
    if (x < span.x0 || x >= span.x1) return;
    const std::size_t from = std::size_t(y) * width + x;
    const std::uint32_t to = offsets[y - bounds.y0] + static_cast<std::uint32_t>(x - span.x0);
    packed_rgb[to] = rgb[from];
    packed_depth[to] = depth[from];
    packed_ids[to] = ids[from];
  }
};

class FrameBuffers {
 public:
  explicit FrameBuffers(detail::MemoryAccount& account)
      : pixels_{Array<Rgb8>(account, "image"), Array<Rgb8>(account, "image"),
                Array<Rgb8>(account, "image")},
        depth_(account, "depth image"),
        hit_ids_(account, "hit id image"),
        row_spans_(account, "drawn row spans"),
        row_offsets_(account, "drawn row offsets"),
        packed_rgb_(account, "drawn pixels"),
        packed_depth_(account, "drawn depths"),
        packed_ids_(account, "drawn hit ids") {}

  // Room for a frame of `pixels`, with depth and hit ids when asked. A frame whose pixels are
  // copied out later casts into the next of a few buffers, so that the views of one frame
  // (contract 2f) cast while the copies of the views before them run; the stream waits only for a
  // copy still reading the buffer it takes.
  void prepare(const Executor& exec, std::size_t pixels, bool with_hits, bool deferred) {
    if (deferred) current_ = (current_ + 1) % kPixelBuffers;
    exec.wait_for_deferred_reads(pixels_[current_].data());
    pixels_[current_].resize(pixels);
    if (with_hits) {
      depth_.resize(pixels);
      hit_ids_.resize(pixels);
    }
  }

  Rgb8* rgb() { return pixels_[current_].data(); }
  float* depth() { return depth_.data(); }
  std::uint64_t* hit_ids() { return hit_ids_.data(); }

  // The finished pixels (with depth and ids when asked) from the backend into the image.
  void deliver(const Executor& exec, const RenderSettings& settings, const RenderOptions& options,
               FrameStats& stats, Image& image) {
    const auto pixels = static_cast<std::uint32_t>(image_pixels(settings));
    image.width = window_width(settings);
    image.height = window_height(settings);
    image.rgb.resize(static_cast<std::size_t>(pixels) * 3);
    static_assert(sizeof(Rgb8) == 3, "pixels are copied as packed bytes");
    auto* rgb = reinterpret_cast<Rgb8*>(image.rgb.data());
    if (options.with_hits) {
      stats.drawn = drawn_region(exec, window_width(settings), window_height(settings));
      image.depth.resize(pixels);
      image.hit_id.resize(pixels);
      if (options.copy_drawn_only) {
        copy_drawn(exec, stats.drawn, window_width(settings), image);
      } else {
        exec.download(rgb_const(), rgb, pixels);
        exec.download(depth_.data(), image.depth.data(), pixels);
        exec.download(hit_ids_.data(), image.hit_id.data(), pixels);
      }
    } else {
      if (options.defer_pixels) image.pending = exec.download_later(rgb_const(), pixels);
      if (!image.pending) exec.download(rgb_const(), rgb, pixels);
      image.depth.clear();
      image.hit_id.clear();
    }
  }

 private:
  static constexpr int kPixelBuffers = 3;
  const Rgb8* rgb_const() const { return pixels_[current_].data(); }

  // Each row's drawn span (one reduction by row over the depths), brought to the host.
  DrawnRegion drawn_region(const Executor& exec, int width, int height) {
    const auto w = static_cast<std::uint32_t>(width);
    const auto pixels = w * static_cast<std::uint32_t>(height);
    row_spans_.resize(static_cast<std::size_t>(height));
    if constexpr (Executor::spans_rows_in_turn) {
      thrust::for_each_n(exec.policy(), Index(0), static_cast<std::uint32_t>(height),
                         DrawnSpanOfRow{depth_.data(), w, row_spans_.data()});
    } else {
      thrust::reduce_by_key(exec.policy(), thrust::make_transform_iterator(Index(0), RowOfPixel{w}),
                            thrust::make_transform_iterator(Index(pixels), RowOfPixel{w}),
                            thrust::make_transform_iterator(Index(0), DrawnPixel{depth_.data(), w}),
                            thrust::make_discard_iterator(), row_spans_.data(),
                            thrust::equal_to<std::uint32_t>(), JoinRects{});
    }
    std::vector<PixelRect> spans(static_cast<std::size_t>(height));
    exec.download(row_spans_.data(), spans.data(), spans.size());
    DrawnRegion drawn;
    for (const PixelRect& s : spans) drawn.bounds = drawn.bounds.join(s);
    if (!drawn.bounds.empty()) {
      drawn.rows.assign(spans.begin() + drawn.bounds.y0, spans.begin() + drawn.bounds.y1);
    }
    return drawn;
  }

  // The drawn spans alone into the image: packed on the backend, copied out, put in place.
  void copy_drawn(const Executor& exec, const DrawnRegion& drawn, int width, Image& image) {
    if (drawn.bounds.empty()) return;
    const std::vector<std::uint32_t> offsets = detail::packed_row_offsets(drawn);
    const std::size_t count = offsets.back();
    exec.upload(row_offsets_, offsets.data(), offsets.size());
    packed_rgb_.resize(count);
    packed_depth_.resize(count);
    packed_ids_.resize(count);
    thrust::for_each_n(
        exec.policy(), Index(0), static_cast<std::uint32_t>(drawn.bounds.area()),
        PackDrawnRows{drawn.bounds, static_cast<std::uint32_t>(width), row_spans_.data(),
                      row_offsets_.data(), rgb_const(), depth_.data(), hit_ids_.data(),
                      packed_rgb_.data(), packed_depth_.data(), packed_ids_.data()});
    const auto w = static_cast<std::size_t>(width);
    exec.download_drawn(packed_rgb_.data(), count, reinterpret_cast<Rgb8*>(image.rgb.data()), w,
                        drawn, offsets);
    exec.download_drawn(packed_depth_.data(), count, image.depth.data(), w, drawn, offsets);
    exec.download_drawn(packed_ids_.data(), count, image.hit_id.data(), w, drawn, offsets);
  }

  Array<Rgb8> pixels_[kPixelBuffers];
  int current_ = 0;
  Array<float> depth_;
  Array<std::uint64_t> hit_ids_;
  Array<PixelRect> row_spans_;  // per image row: its drawn span
  Array<std::uint32_t> row_offsets_;
  Array<Rgb8> packed_rgb_;  // the drawn spans row after row (copy_drawn_only)
  Array<float> packed_depth_;
  Array<std::uint64_t> packed_ids_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
