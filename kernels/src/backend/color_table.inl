// The particles' colour source: the colormap or palette table in this backend's memory, uploaded
// only when the frame asks for another, and the range it spans. Part of the backend
// (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "colormap_tables.h"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

class ColorTable {
 public:
  explicit ColorTable(detail::MemoryAccount& account) : table_(account, "colormap") {}

  // The particles' base colours: uniform, or the colormap of their scalar over a fixed range or
  // the frame's own min/max.
  ColorSource source(const Executor& exec, const ResidentParticles& r,
                     const RenderSettings& settings, const RenderOptions& options,
                     FrameStats& stats) {
    ColorSource color{nullptr, nullptr, 0.0f, 0.0f, settings.shading.particle_color, 0};
    if (!settings.color || r.scalar == nullptr) return color;
    const ColorMapping& mapping = *settings.color;
    if (!mapping.palette.empty()) {  // contract 2d categories: no range
      if (mapping.palette.size() > kMaxPaletteSize) {
        throw ConfigError("granray: a palette holds at most " + std::to_string(kMaxPaletteSize) +
                          " colours, got " + std::to_string(mapping.palette.size()));
      }
      const auto same = [](Vec3 a, Vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
      if (!std::equal(mapping.palette.begin(), mapping.palette.end(), uploaded_palette_.begin(),
                      uploaded_palette_.end(), same)) {
        exec.upload(table_, mapping.palette.data(), mapping.palette.size());
        uploaded_palette_ = mapping.palette;
        uploaded_colormap_ = -1;
      }
      stats.colored = true;
      stats.color_lo = stats.color_hi = NAN;
      return {r.scalar,
              table_.data(),
              0.0f,
              0.0f,
              settings.shading.particle_color,
              static_cast<std::uint32_t>(mapping.palette.size())};
    }
    if (mapping.colormap < 0 || mapping.colormap >= detail::kColormapCount) {
      throw ConfigError("granray: colormap index " + std::to_string(mapping.colormap) +
                        " out of range");
    }
    if (mapping.colormap != uploaded_colormap_) {  // 3 KB, but not every frame
      exec.upload(table_, detail::kColormapTables[mapping.colormap], detail::kColormapSize);
      uploaded_colormap_ = mapping.colormap;
      uploaded_palette_.clear();
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
    return {r.scalar, table_.data(), lo, 1.0f / span, settings.shading.particle_color, 0};
  }

 private:
  Array<Vec3> table_;
  int uploaded_colormap_ = -1;          // which colormap table_ holds
  std::vector<Vec3> uploaded_palette_;  // or which palette
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
