// The frame pipeline of one backend, written once. Included by cpu_backend.cpp (g++, Thrust's
// OpenMP system) and cuda_backend.cu (nvcc, Thrust's CUDA system) after each defines, inside
// namespace granray::GRANRAY_BACKEND_NAMESPACE:
//   struct Memory    { static void* allocate(size_t); static void release(void*); };
//   class Executor   { Executor(void* stream); policy(); synchronize(); upload(); download();
//                      for_each_pixel(width, height, f): f(i, j) for every pixel;
//                      download_later(pixels, count): PendingPixels or null (copy at once);
//                      wait_for_deferred_reads(): before the pixels are overwritten;
//                      static constexpr MemorySpace native_space; static constexpr name; };
//   std::size_t default_memory_limit();
//   std::size_t system_free_memory(); // what the backend's memory could still give now
// Every type below lives in that backend's namespace, so the two builds never share a symbol.

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backend.h"
#include "buffer.h"
#include "colormap_tables.h"
#include "drawn_rows.h"
#include "granray/camera.h"
#include "granray/errors.h"
#include "granray/kernels/lit_passes.h"
#include "granray/kernels/pixel_kernels.h"
#include "granray/pixel_rect.h"
#include "grid_layout.h"
#include "see_through_binning.h"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

template <class T>
using Array = detail::Buffer<T, Memory>;
using Index = thrust::counting_iterator<std::uint32_t>;

// Bits a radix sort needs for cell indices below `cells`.
inline int key_bits(std::uint64_t cells) {
  int bits = 1;
  while (bits < 32 && (std::uint64_t{1} << bits) < cells) ++bits;
  return bits;
}

GRANRAY_HD_INLINE SceneBounds empty_bounds() {
  return {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0, 0.0, 0.0f};
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

struct BoundsOfSphere {
  const Vec4* spheres;
  GRANRAY_HD SceneBounds operator()(std::uint32_t i) const {
    const Vec4 s = spheres[i];
    if (!is_renderable(s)) {
      SceneBounds b = empty_bounds();
      b.skipped = 1;
      return b;
    }
    return {
        {s.x - s.w, s.y - s.w, s.z - s.w}, {s.x + s.w, s.y + s.w, s.z + s.w}, 1, 0, 2.0 * s.w, s.w};
  }
};

struct MergeBounds {
  GRANRAY_HD SceneBounds operator()(const SceneBounds& a, const SceneBounds& b) const {
    return {{nan_ignoring_min(a.lo.x, b.lo.x), nan_ignoring_min(a.lo.y, b.lo.y),
             nan_ignoring_min(a.lo.z, b.lo.z)},
            {nan_ignoring_max(a.hi.x, b.hi.x), nan_ignoring_max(a.hi.y, b.hi.y),
             nan_ignoring_max(a.hi.z, b.hi.z)},
            a.renderable + b.renderable,
            a.skipped + b.skipped,
            a.diameter_sum + b.diameter_sum,
            nan_ignoring_max(a.max_radius, b.max_radius)};
  }
};

struct ScalarRange {
  float lo, hi;
};

struct ScalarRangeOf {
  const Vec4* spheres;
  const float* scalar;
  GRANRAY_HD ScalarRange operator()(std::uint32_t i) const {
    if (!is_renderable(spheres[i]) || !is_finite(scalar[i])) return {INFINITY, -INFINITY};
    return {scalar[i], scalar[i]};
  }
};

struct MergeScalarRange {
  GRANRAY_HD ScalarRange operator()(const ScalarRange& a, const ScalarRange& b) const {
    return {nan_ignoring_min(a.lo, b.lo), nan_ignoring_max(a.hi, b.hi)};
  }
};

// SPEC 2d's census: which category values 0..255 the drawn grains take.
struct CategorySet {
  std::uint64_t words[kCategoryWords];
};

struct CategoryOf {
  const Vec4* spheres;
  const float* scalar;
  GRANRAY_HD CategorySet operator()(std::uint32_t i) const {
    CategorySet set{};
    const float s = scalar[i];
    if (!is_renderable(spheres[i]) || !(s > -1.0f && s < 64.0f * kCategoryWords)) return set;
    const auto k = static_cast<int>(floor(static_cast<double>(s) + 0.5));
    if (k >= 0 && k < 64 * kCategoryWords) set.words[k / 64] = std::uint64_t{1} << (k % 64);
    return set;
  }
};

struct JoinCategorySets {
  GRANRAY_HD CategorySet operator()(const CategorySet& a, const CategorySet& b) const {
    CategorySet set;
    for (int w = 0; w < kCategoryWords; ++w) set.words[w] = a.words[w] | b.words[w];
    return set;
  }
};

// Host time for the frame's statistics.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

#include "grid_building.inl"
#include "lit_pipeline.inl"
#include "tile_binning.inl"
#include "wall_building.inl"

// The automatic method takes the grid on the CPU when the tiles would hold more entries than the
// image has pixels: then binning outweighs what the tiles save in casting (1 M dense grains at
// 1080p: 2.4 M entries, 129 ms a frame against the grid's 88; 300 k: 0.9 M entries, tiles
// faster; docs/benchmarks.md).
constexpr std::uint64_t kAutomaticTileEntriesPerPixel = 1;

class ThrustBackend final : public detail::Backend {
 public:
  ThrustBackend()
      : account_(default_memory_limit()),
        staged_spheres_(account_, "particle upload"),
        staged_ids_(account_, "particle id upload"),
        staged_scalar_(account_, "particle scalar upload"),
        colormap_(account_, "colormap"),
        ends_(account_, "grid reference offsets"),
        keys_(account_, "grid reference keys"),
        values_(account_, "grid references"),
        keys_sorted_(account_, "sorted grid reference keys"),
        values_sorted_(account_, "sorted grid references"),
        cell_offsets_(account_, "grid cell offsets"),
        ref_spheres_(account_, "particles in cell order"),
        footprints_(account_, "screen footprints"),
        sphere_near_(account_, "screen footprint bounds"),
        sphere_order_(account_, "spheres by screen footprint bound"),
        sorted_footprints_(account_, "screen footprints by bound"),
        tile_keys_(account_, "screen tile keys"),
        tile_refs_(account_, "screen tile entries"),
        tile_keys_sorted_(account_, "sorted screen tile keys"),
        tile_refs_sorted_(account_, "sorted screen tile entries"),
        tile_offsets_(account_, "screen tile offsets"),
        tile_cursor_(account_, "screen tile cursors"),
        tile_spheres_(account_, "particles in screen tile order"),
        pixels_(account_, "image"),
        depth_(account_, "depth image"),
        hit_ids_(account_, "hit id image"),
        lit_(account_),
        walls_(account_),
        clipped_(account_, "particles after the clip planes and selection"),
        staged_select_(account_, "particle selection upload"),
        row_spans_(account_, "drawn row spans"),
        row_offsets_(account_, "drawn row offsets"),
        packed_rgb_(account_, "drawn pixels"),
        packed_depth_(account_, "drawn depths"),
        packed_ids_(account_, "drawn hit ids") {}

  void set_memory_limit(std::size_t bytes) override { account_.set_limit(bytes); }
  // The buffers held are reused by the next frame, so they count as available.
  std::size_t memory_available() override {
    const std::size_t budget_left =
        account_.limit() > account_.in_use() ? account_.limit() - account_.in_use() : 0;
    return account_.in_use() + std::min(budget_left, system_free_memory());
  }

  FrameStats render(const ParticleView& particles, const RenderSettings& settings,
                    const RenderOptions& options, Image& image) override {
    return translate_errors([&] { return render_frame(particles, settings, options, image); });
  }

  FrameExtent measure(const ParticleView& view) override {
    return translate_errors([&] {
      const Executor exec(view.cuda_stream, scratch_);
      const Resident r = make_resident(exec, view);
      const ScalarRange range = scalar_range(exec, r);
      return FrameExtent{reduce_bounds(exec, r), range.lo, range.hi};
    });
  }

  double time_hash_sort(const ParticleView& view) override {
    return translate_errors([&] {
      const Executor exec(view.cuda_stream, scratch_);
      const Resident r = make_resident(exec, view);
      const SceneBounds bounds = reduce_bounds(exec, r);
      if (bounds.renderable == 0) return 0.0;
      const GridGeometry g =
          detail::choose_grid_layout(bounds, [](const GridGeometry&) { return 0; }).geometry;
      keys_.resize(r.count);
      values_.resize(r.count);
      auto policy = exec.policy();
      exec.mark(0);
      thrust::transform(policy, Index(0), Index(r.count), keys_.data(),
                        CentreCellKey{g, r.spheres});
      thrust::sequence(policy, values_.data(), values_.data() + r.count);
      thrust::sort_by_key(policy, keys_.data(), keys_.data() + r.count, values_.data());
      exec.mark(1);
      exec.synchronize();
      return exec.elapsed_ms(0, 1);
    });
  }

  FrameStats find_surfaces(const ParticleView& particles, const RenderSettings& settings,
                           const RenderOptions& options,
                           std::vector<SurfaceSample>& surfaces) override {
    return translate_errors([&] { return surfaces_stage(particles, settings, options, surfaces); });
  }

  double find_blockers(const ParticleView& particles, const RenderSettings& settings,
                       const RenderOptions& options, const std::vector<SurfaceSample>& surfaces,
                       std::vector<std::uint32_t>& blocked) override {
    return translate_errors(
        [&] { return blockers_stage(particles, settings, options, surfaces, blocked); });
  }

  void shade_surfaces(const RenderSettings& settings, const RenderOptions& options,
                      const std::vector<SurfaceSample>& surfaces,
                      const std::vector<std::uint32_t>& blocked, Image& image) override {
    translate_errors([&] { shading_stage(settings, options, surfaces, blocked, image); });
  }

  void copy_to_host(const ParticleView& view, HostParticles& out) override {
    translate_errors([&] {
      const Executor exec(view.cuda_stream, scratch_);
      const std::size_t n = view.count;
      if (n > 0 && view.xyzr == nullptr) {
        throw Error("granray: particle view holds " + std::to_string(n) + " particles but no data");
      }
      const bool on_host = view.space == MemorySpace::host;
      if (!on_host && view.space != Executor::native_space) {
        throw DeviceError(std::string("granray ") + Executor::name +
                          " backend cannot read particles held in device memory");
      }
      const auto take = [&](const auto* from, auto& into) {
        into.resize(n);
        if (n == 0) return;
        if (on_host) {
          std::copy_n(from, n, into.data());
        } else {
          exec.download(from, into.data(), n);
        }
      };
      take(view.xyzr, out.xyzr);
      if (view.scalar != nullptr) {
        take(view.scalar, out.scalar);
      } else {
        out.scalar.clear();
      }
      if (view.select_scalar != nullptr) {
        take(view.select_scalar, out.select);
      } else {
        out.select.clear();
      }
      if (view.ids != nullptr) {
        take(view.ids, out.ids);
      } else {
        out.ids.resize(n);
        for (std::size_t i = 0; i < n; ++i) out.ids[i] = view.id_offset + i;
      }
    });
  }

  HostGrid build_grid(const ParticleView& particles) override {
    return translate_errors([&] { return snapshot_grid(particles); });
  }

 private:
  using Clock = std::chrono::steady_clock;

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

  struct Resident {
    const Vec4* spheres;
    const std::uint64_t* ids;
    const float* scalar;
    std::uint32_t count;
    const float* select = nullptr;  // SPEC 2d selection values; null: `scalar`
  };

  // The particles in this backend's memory: in place when they already are, else uploaded.
  Resident make_resident(const Executor& exec, const ParticleView& view) {
    if (view.count > std::numeric_limits<std::uint32_t>::max() - 1) {
      throw Error("granray: " + std::to_string(view.count) +
                  " particles in one frame exceed the 32-bit index range; split them over ranks");
    }
    const auto n = static_cast<std::uint32_t>(view.count);
    if (n > 0 && view.xyzr == nullptr) {
      throw Error("granray: particle view holds " + std::to_string(n) + " particles but no data");
    }
    if (view.space == Executor::native_space || n == 0) {
      return {view.xyzr, view.ids, view.scalar, n, view.select_scalar};
    }
    if (view.space != MemorySpace::host) {
      throw DeviceError(std::string("granray ") + Executor::name +
                        " backend cannot read particles held in device memory");
    }
    exec.upload(staged_spheres_, view.xyzr, n);
    const std::uint64_t* ids = nullptr;
    if (view.ids != nullptr) {
      exec.upload(staged_ids_, view.ids, n);
      ids = staged_ids_.data();
    }
    const float* scalar = nullptr;
    if (view.scalar != nullptr) {
      exec.upload(staged_scalar_, view.scalar, n);
      scalar = staged_scalar_.data();
    }
    const float* select = nullptr;
    if (view.select_scalar != nullptr) {
      exec.upload(staged_select_, view.select_scalar, n);
      select = staged_select_.data();
    }
    return {staged_spheres_.data(), ids, scalar, n, select};
  }

  // Min and max of the renderable particles' finite scalars; lo > hi when there are none.
  ScalarRange scalar_range(const Executor& exec, const Resident& r) const {
    if (r.scalar == nullptr || r.count == 0) return {INFINITY, -INFINITY};
    return thrust::transform_reduce(exec.policy(), Index(0), Index(r.count),
                                    ScalarRangeOf{r.spheres, r.scalar},
                                    ScalarRange{INFINITY, -INFINITY}, MergeScalarRange{});
  }

  // SPEC 2d: the category values of the grains this frame draws (hidden ones are not renderable
  // in `r`), when the settings ask for the census.
  void take_category_census(const Executor& exec, const Resident& r, const RenderSettings& settings,
                            FrameStats& stats) const {
    if (!settings.category_census || !settings.color || settings.color->palette.empty() ||
        r.scalar == nullptr || r.count == 0) {
      return;
    }
    const CategorySet set = thrust::transform_reduce(exec.policy(), Index(0), Index(r.count),
                                                     CategoryOf{r.spheres, r.scalar}, CategorySet{},
                                                     JoinCategorySets{});
    std::copy(set.words, set.words + kCategoryWords, stats.categories.begin());
  }

  // The particles' base colours: uniform, or the colormap of their scalar over a fixed range or
  // the frame's own min/max.
  ColorSource color_source(const Executor& exec, const Resident& r, const RenderSettings& settings,
                           const RenderOptions& options, FrameStats& stats) {
    ColorSource color{nullptr, nullptr, 0.0f, 0.0f, settings.shading.particle_color, 0};
    if (!settings.color || r.scalar == nullptr) return color;
    const ColorMapping& mapping = *settings.color;
    if (!mapping.palette.empty()) {  // SPEC 2d categories: no range
      if (mapping.palette.size() > kMaxPaletteSize) {
        throw ConfigError("granray: a palette holds at most " + std::to_string(kMaxPaletteSize) +
                          " colours, got " + std::to_string(mapping.palette.size()));
      }
      const auto same = [](Vec3 a, Vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
      if (!std::equal(mapping.palette.begin(), mapping.palette.end(), palette_uploaded_.begin(),
                      palette_uploaded_.end(), same)) {
        exec.upload(colormap_, mapping.palette.data(), mapping.palette.size());
        palette_uploaded_ = mapping.palette;
        colormap_uploaded_ = -1;
      }
      stats.colored = true;
      stats.color_lo = stats.color_hi = NAN;
      return {r.scalar,
              colormap_.data(),
              0.0f,
              0.0f,
              settings.shading.particle_color,
              static_cast<std::uint32_t>(mapping.palette.size())};
    }
    if (mapping.colormap < 0 || mapping.colormap >= detail::kColormapCount) {
      throw ConfigError("granray: colormap index " + std::to_string(mapping.colormap) +
                        " out of range");
    }
    if (mapping.colormap != colormap_uploaded_) {  // 3 KB, but not every frame
      exec.upload(colormap_, detail::kColormapTables[mapping.colormap], detail::kColormapSize);
      colormap_uploaded_ = mapping.colormap;
      palette_uploaded_.clear();
    }
    float lo = mapping.lo, hi = mapping.hi;
    if (mapping.auto_range && options.color_range) {
      lo = options.color_range->first;
      hi = options.color_range->second;
    } else if (mapping.auto_range) {
      const ScalarRange range = scalar_range(exec, r);
      lo = range.lo <= range.hi ? range.lo : 0.0f;
      hi = range.lo <= range.hi ? range.hi : 0.0f;
    }
    stats.colored = true;
    stats.color_lo = lo;
    stats.color_hi = hi;
    // A frame whose scalars are all equal maps them to the low end of the colormap.
    const float span = hi > lo ? hi - lo : 1.0f;
    return {r.scalar, colormap_.data(), lo, 1.0f / span, settings.shading.particle_color, 0};
  }

  SceneBounds reduce_bounds(const Executor& exec, const Resident& r) {
    if (r.count == 0) return empty_bounds();
    return thrust::transform_reduce(exec.policy(), Index(0), Index(r.count),
                                    BoundsOfSphere{r.spheres}, empty_bounds(), MergeBounds{});
  }

  // Templates, so that only the backend's own way is compiled (the CPU has no radix sort here).
  template <class E>
  detail::GridLayout build_grid_arrays(const E& exec, const Resident& r,
                                       const SceneBounds& bounds) {
    if constexpr (E::lists_by_sorting) {
      return sort_grid(exec, r, bounds);
    } else {
      return count_grid(exec, r, bounds);
    }
  }

  template <class E>
  detail::GridLayout sort_grid(const E& exec, const Resident& r, const SceneBounds& bounds) {
    auto policy = exec.policy();
    const std::uint32_t n = r.count;
    // Unless every sphere is listed once, one fused pass counts each sphere's cells and scans
    // them; the last entry is the total. The last geometry tried is the one kept, so its scan is
    // what EmitReferences reads.
    bool scanned = false;
    const detail::GridLayout layout =
        detail::choose_grid_layout(bounds, [&](const GridGeometry& g) {
          scanned = !detail::lists_every_sphere_once(bounds, g);
          if (!scanned) return bounds.renderable;
          ends_.resize(n);
          thrust::transform_inclusive_scan(policy, Index(0), Index(n), ends_.data(),
                                           ReferenceCount{g, r.spheres}, SumU64{});
          std::uint64_t total = 0;
          exec.download(ends_.data() + (n - 1), &total, 1);
          return total;
        });
    const GridGeometry& g = layout.geometry;
    const auto total = static_cast<std::uint32_t>(layout.references);
    const auto cells = static_cast<std::uint32_t>(layout.cells);
    // Listed once, every particle gets a key (broken ones `cells`, sorted after the rest).
    const std::uint32_t keyed = scanned ? total : n;
    keys_.resize(keyed);
    values_.resize(keyed);
    if (scanned) {
      thrust::for_each_n(policy, Index(0), n,
                         EmitReferences{g, r.spheres, ends_.data(), keys_.data(), values_.data()});
    } else {
      thrust::transform(policy, Index(0), Index(n), keys_.data(),
                        ListedOnceKey{g, r.spheres, cells});
      thrust::sequence(policy, values_.data(), values_.data() + n);
    }
    keys_sorted_.resize(keyed);
    values_sorted_.resize(keyed);
    std::uint32_t* sorted_keys = nullptr;
    std::tie(sorted_keys, ref_index_) =
        exec.sort_pairs(keys_.data(), values_.data(), keys_sorted_.data(), values_sorted_.data(),
                        keyed, key_bits(std::uint64_t{cells} + 1));
    // Offsets by marking each listed cell's start and taking suffix minima: every thread does
    // the same work, where filling each run of empty cells from its end left one thread writing a
    // whole empty layer (1.1 ms of a 10 M-grain build).
    cell_offsets_.resize(std::size_t{cells} + 1);
    std::uint32_t* offsets = cell_offsets_.data();
    thrust::fill_n(policy, offsets, std::size_t{cells} + 1, total);
    thrust::for_each_n(policy, Index(0), keyed, MarkCellStarts{sorted_keys, cells, offsets});
    const auto from_end = thrust::make_reverse_iterator(offsets + cells + 1);
    thrust::inclusive_scan(policy, from_end, from_end + (std::size_t{cells} + 1), from_end,
                           thrust::minimum<std::uint32_t>());
    ref_spheres_.resize(total);
    thrust::gather(policy, ref_index_, ref_index_ + total, r.spheres, ref_spheres_.data());
    return layout;
  }

  template <class E>
  detail::GridLayout count_grid(const E& exec, const Resident& r, const SceneBounds& bounds) {
    auto policy = exec.policy();
    const std::uint32_t n = r.count;
    // The total in 64 bits decides the geometry (a huge one must not wrap to a small one).
    const detail::GridLayout layout =
        detail::choose_grid_layout(bounds, [&](const GridGeometry& g) {
          if (detail::lists_every_sphere_once(bounds, g)) return bounds.renderable;
          return thrust::transform_reduce(policy, Index(0), Index(n), ReferenceCount{g, r.spheres},
                                          std::uint64_t{0}, SumU64{});
        });
    const GridGeometry& g = layout.geometry;
    const auto total = static_cast<std::uint32_t>(layout.references);
    const auto cells = static_cast<std::size_t>(layout.cells);
    // keys_ holds each cell's count, then its cursor.
    keys_.resize(cells);
    thrust::fill_n(policy, keys_.data(), cells, 0u);
    thrust::for_each_n(policy, Index(0), n, CountCellReferences{g, r.spheres, keys_.data()});
    cell_offsets_.resize(cells + 1);
    thrust::fill_n(policy, cell_offsets_.data(), 1, 0u);
    thrust::inclusive_scan(policy, keys_.data(), keys_.data() + cells, cell_offsets_.data() + 1);
    ref_spheres_.resize(total);
    values_.resize(total);
    ref_index_ = values_.data();
    thrust::copy_n(policy, cell_offsets_.data() + 1, cells, keys_.data());
    thrust::for_each_n(
        policy, Index(0), n,
        PlaceReferences{g, r.spheres, keys_.data(), ref_spheres_.data(), ref_index_});
    return layout;
  }

  struct TileLists {
    TileListsView view;
    std::uint64_t entries;
  };

  // The tiles' lists, or none when they would hold more than `most` entries. A template, like
  // build_grid_arrays, so that only the backend's own way is compiled.
  template <class E>
  std::optional<TileLists> build_tile_lists(const E& exec, const Resident& r,
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

  GridView grid_view(const detail::GridLayout& layout) const {
    return {layout.geometry, cell_offsets_.data(), ref_spheres_.data(), ref_index_};
  }

  // Each row's drawn span (one reduction by row over the depths), brought to the host.
  DrawnRegion drawn_region(const Executor& exec, int width, int height) {
    const auto w = static_cast<std::uint32_t>(width);
    const auto pixels = w * static_cast<std::uint32_t>(height);
    row_spans_.resize(static_cast<std::size_t>(height));
    thrust::reduce_by_key(exec.policy(), thrust::make_transform_iterator(Index(0), RowOfPixel{w}),
                          thrust::make_transform_iterator(Index(pixels), RowOfPixel{w}),
                          thrust::make_transform_iterator(Index(0), DrawnPixel{depth_.data(), w}),
                          thrust::make_discard_iterator(), row_spans_.data(),
                          thrust::equal_to<std::uint32_t>(), JoinRects{});
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
                      row_offsets_.data(), pixels_.data(), depth_.data(), hit_ids_.data(),
                      packed_rgb_.data(), packed_depth_.data(), packed_ids_.data()});
    const auto w = static_cast<std::size_t>(width);
    exec.download_drawn(packed_rgb_.data(), count, reinterpret_cast<Rgb8*>(image.rgb.data()), w,
                        drawn, offsets);
    exec.download_drawn(packed_depth_.data(), count, image.depth.data(), w, drawn, offsets);
    exec.download_drawn(packed_ids_.data(), count, image.hit_id.data(), w, drawn, offsets);
  }

  // What every frame works out before casting: the particles in this backend's memory, their
  // box, the camera (framed by every rank's box when given, and the walls) and the scene the
  // lighting sees. Clip planes (SPEC 2c) leave `all` and the camera alone: the structures and
  // rays read `r`, where the grains beyond a plane are unrenderable.
  struct FrameSetup {
    Resident all;
    SceneBounds all_bounds;  // these particles': the census and the colour range count them all
    Resident r;              // the particles drawn
    SceneBounds bounds;      // theirs
    SceneBounds scene;       // what frames the camera: every rank's particles or these, and walls
    CameraSetup camera;
    IdMap id_of;
  };

  FrameSetup set_up_frame(const Executor& exec, const ParticleView& view,
                          const RenderSettings& settings, const RenderOptions& options) {
    const std::uint64_t pixel_count = image_pixels(settings);
    if (pixel_count > std::numeric_limits<std::uint32_t>::max()) {
      throw ConfigError("granray: image " + std::to_string(window_width(settings)) + " x " +
                        std::to_string(window_height(settings)) +
                        " exceeds 2^32 - 1 pixels (render it in tiles: granray/tiled_render.h)");
    }
    walls_.prepare(exec, settings);
    const Resident all = make_resident(exec, view);
    const SceneBounds all_bounds =
        options.particle_bounds ? *options.particle_bounds : reduce_bounds(exec, all);
    const SceneBounds scene =
        walls_.scene_with_walls(options.camera_bounds ? *options.camera_bounds : all_bounds);
    Resident r = all;
    SceneBounds bounds = all_bounds;
    const float* select = all.select != nullptr ? all.select : all.scalar;
    if (settings.select && select == nullptr && all.count > 0) {
      throw ConfigError(
          "granray: [insitu.select] needs a value per particle to select by, and this frame's "
          "particles have none");
    }
    if ((walls_.plane_count() > 0 || settings.select) && all.count > 0) {
      clipped_.resize(all.count);
      const SelectRange window = settings.select.value_or(SelectRange{-INFINITY, INFINITY});
      thrust::transform(exec.policy(), Index(0), Index(all.count), clipped_.data(),
                        HideSphere{all.spheres, walls_.planes(), walls_.plane_count(),
                                   settings.select ? select : nullptr, window.lo, window.hi});
      r.spheres = clipped_.data();
      bounds = reduce_bounds(exec, r);
      bounds.skipped = all_bounds.skipped;
    }
    const CameraSetup camera = resolve_camera(settings, scene);
    walls_.build_for(exec, camera.frame,
                     make_shading_params(settings.shading, camera.frame, scene));
    return {all, all_bounds, r, bounds, scene, camera, IdMap{r.ids, view.id_offset}};
  }

  // Runs `body` with the frame's walls as the kernels see them, or with NoWalls when it has
  // none (the kernels then compile the wall tests away). The brute-force reference tests every
  // triangle too.
  template <class Body>
  void with_walls(const RenderOptions& options, Body&& body) const {
    if (walls_.count() > 0) {
      body(walls_.view(options.method == RenderMethod::brute_force));
    } else {
      body(NoWalls{});
    }
  }

  // As with_walls, for the lit passes that see only opaque walls (surfaces, secondary rays) or
  // only see-through ones (their composite): see-through walls hide no surface and block no
  // secondary ray, and a pass compiled without walls keeps fewer registers (a see-through box
  // slowed the lit surfaces and shadow passes on the GPU by a quarter though they met no wall).
  template <class Body>
  void with_opaque_walls(const RenderOptions& options, Body&& body) const {
    if (walls_.opaque_count() > 0) {
      with_walls(options, std::forward<Body>(body));
    } else {
      body(NoWalls{});
    }
  }
  template <class Body>
  void with_see_through_walls(const RenderOptions& options, Body&& body) const {
    if (walls_.see_through_count() > 0) {
      with_walls(options, std::forward<Body>(body));
    } else {
      body(NoWalls{});
    }
  }

  // The frame's image: its region (SPEC 3) or the whole.
  static int window_width(const RenderSettings& settings) {
    const PixelRect w = render_window(settings);
    return w.x1 > w.x0 ? w.x1 - w.x0 : 0;
  }
  static int window_height(const RenderSettings& settings) {
    const PixelRect w = render_window(settings);
    return w.y1 > w.y0 ? w.y1 - w.y0 : 0;
  }
  static std::uint64_t image_pixels(const RenderSettings& settings) {
    return static_cast<std::uint64_t>(window_width(settings)) *
           static_cast<std::uint64_t>(window_height(settings));
  }

  // The method a frame uses for its primary rays, before the tiles may fall back to the grid.
  static RenderMethod primary_method(const RenderOptions& options, const SceneBounds& bounds) {
    if (bounds.renderable == 0) return RenderMethod::brute_force;  // nothing to list
    return options.method == RenderMethod::automatic ? Executor::fastest_method : options.method;
  }

  // Asked for, the tiles take any number of entries; chosen automatically, at most one a pixel.
  static std::uint64_t tile_entry_cap(const RenderOptions& options, std::uint64_t pixels) {
    return options.method == RenderMethod::tiles ? std::numeric_limits<std::uint32_t>::max() - 1
                                                 : kAutomaticTileEntriesPerPixel * pixels;
  }

  // Lit frames: their structures, passes and the passes one at a time.
#include "lit_frame_members.inl"

  FrameStats render_frame(const ParticleView& view, const RenderSettings& settings,
                          const RenderOptions& options, Image& image) {
    const Clock::time_point frame_start = Clock::now();
    const Executor exec(view.cuda_stream, scratch_);
    const FrameSetup f = set_up_frame(exec, view, settings, options);
    const Resident& r = f.r;
    const CameraSetup& camera = f.camera;
    const std::uint64_t pixel_count = image_pixels(settings);

    FrameStats stats;
    stats.particles = r.count;
    stats.skipped = f.all_bounds.skipped;
    stats.hidden = f.all_bounds.renderable - f.bounds.renderable;
    stats.camera = camera.resolved;
    record_walls(stats);
    take_category_census(exec, r, settings, stats);

    const auto pixels = static_cast<std::uint32_t>(pixel_count);
    image.pending.reset();
    exec.wait_for_deferred_reads();
    pixels_.resize(pixels);
    if (options.with_hits) {
      depth_.resize(pixels);
      hit_ids_.resize(pixels);
    }
    const FrameTarget target{camera.frame,
                             make_shading_params(settings.shading, camera.frame, f.scene),
                             color_source(exec, f.all, settings, options, stats),
                             r.spheres,
                             pixels_.data(),
                             options.with_hits ? depth_.data() : nullptr,
                             options.with_hits ? hit_ids_.data() : nullptr};
    if (lighting_on(settings.shading)) {
      render_lit(exec, f, target, settings, options, stats);
    } else {
      cast_unlit(exec, f, target, settings, options, stats);
    }
    deliver_pixels(exec, settings, options, stats, image);
    stats.total_ms = ms_since(frame_start);
    return stats;
  }

  // SPEC 2: one primary ray per pixel, shaded where it hits.
  void cast_unlit(const Executor& exec, const FrameSetup& f, const FrameTarget& target,
                  const RenderSettings& settings, const RenderOptions& options, FrameStats& stats) {
    const Resident& r = f.r;
    const SceneBounds& bounds = f.bounds;
    const CameraSetup& camera = f.camera;
    const IdMap& id_of = f.id_of;
    const std::uint64_t pixel_count = image_pixels(settings);
    // Stage times from the executor's marks: CUDA events on the GPU, the clock on the CPU.
    exec.mark(0);
    RenderMethod method = primary_method(options, bounds);
    if (method == RenderMethod::tiles) {
      const std::uint64_t most = tile_entry_cap(options, pixel_count);
      const std::optional<TileLists> lists = build_tile_lists(exec, r, camera.frame, most);
      if (lists) {
        exec.mark(1);
        stats.cells = screen_tile_count(camera.frame);
        stats.grid_references = lists->entries;
        with_walls(options, [&](auto walls) {
          exec.for_each_pixel(
              window_width(settings), window_height(settings),
              RenderPixel<TileTracer, decltype(walls)>{{lists->view, id_of}, target, walls});
        });
      } else {
        method = RenderMethod::grid;
      }
    }
    if (method == RenderMethod::grid) {
      const detail::GridLayout layout = build_grid_arrays(exec, r, bounds);
      exec.mark(1);
      stats.cells = layout.cells;
      stats.grid_references = layout.references;
      with_walls(options, [&](auto walls) {
        exec.for_each_pixel(
            window_width(settings), window_height(settings),
            RenderPixel<GridTracer, decltype(walls)>{{grid_view(layout), id_of}, target, walls});
      });
    } else if (method == RenderMethod::brute_force) {
      exec.mark(1);
      with_walls(options, [&](auto walls) {
        exec.for_each_pixel(window_width(settings), window_height(settings),
                            RenderPixel<BruteForceTracer, decltype(walls)>{
                                {r.spheres, r.count, id_of}, target, walls});
      });
    }
    stats.method = method;
    exec.mark(2);
    exec.synchronize();
    stats.grid_ms = exec.elapsed_ms(0, 1);
    stats.render_ms = exec.elapsed_ms(1, 2);
    stats.primary_ms = stats.render_ms;
  }

  void record_walls(FrameStats& stats) const {
    stats.wall_triangles = walls_.total();
    stats.wall_ms = walls_.build_ms();
  }

  // The finished pixels (with depth and ids when asked) from the backend into the image.
  void deliver_pixels(const Executor& exec, const RenderSettings& settings,
                      const RenderOptions& options, FrameStats& stats, Image& image) {
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
        exec.download(pixels_.data(), rgb, pixels);
        exec.download(depth_.data(), image.depth.data(), pixels);
        exec.download(hit_ids_.data(), image.hit_id.data(), pixels);
      }
    } else {
      if (options.defer_pixels) image.pending = exec.download_later(pixels_.data(), pixels);
      if (!image.pending) exec.download(pixels_.data(), rgb, pixels);
      image.depth.clear();
      image.hit_id.clear();
    }
  }

  HostGrid snapshot_grid(const ParticleView& view) {
    const Executor exec(view.cuda_stream, scratch_);
    const Resident r = make_resident(exec, view);
    const SceneBounds bounds = reduce_bounds(exec, r);
    HostGrid grid;
    if (bounds.renderable == 0) return grid;
    const detail::GridLayout layout = build_grid_arrays(exec, r, bounds);
    grid.geometry = layout.geometry;
    grid.cell_offsets.resize(layout.cells + 1);
    grid.ref_spheres.resize(layout.references);
    grid.ref_index.resize(layout.references);
    exec.download(cell_offsets_.data(), grid.cell_offsets.data(), layout.cells + 1);
    exec.download(ref_spheres_.data(), grid.ref_spheres.data(), layout.references);
    exec.download(ref_index_, grid.ref_index.data(), layout.references);
    return grid;
  }

  detail::MemoryAccount account_;
  Scratch scratch_;
  Array<Vec4> staged_spheres_;
  Array<std::uint64_t> staged_ids_;
  Array<float> staged_scalar_;
  Array<Vec3> colormap_;
  int colormap_uploaded_ = -1;          // which table colormap_ holds
  std::vector<Vec3> palette_uploaded_;  // or which palette
  Array<std::uint64_t> ends_;
  Array<std::uint32_t> keys_;
  Array<std::uint32_t> values_;
  Array<std::uint32_t> keys_sorted_;
  Array<std::uint32_t> values_sorted_;
  // The grid's references (particle indices) in cell order: values_ or values_sorted_.
  std::uint32_t* ref_index_ = nullptr;
  Array<std::uint32_t> cell_offsets_;
  Array<Vec4> ref_spheres_;
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
  Array<Rgb8> pixels_;
  Array<float> depth_;
  Array<std::uint64_t> hit_ids_;
  LitPipeline lit_;
  WallStructure walls_;
  Array<Vec4> clipped_;  // the particles, those clipped or not selected made unrenderable
  Array<float> staged_select_;
  Array<PixelRect> row_spans_;  // per image row: its drawn span
  Array<std::uint32_t> row_offsets_;
  Array<Rgb8> packed_rgb_;  // the drawn spans row after row (copy_drawn_only)
  Array<float> packed_depth_;
  Array<std::uint64_t> packed_ids_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
