#include "granray/renderer.h"

#include <iterator>

#include "backend.h"
#include "colormap_tables.h"
#include "granray/errors.h"

namespace granray {

#if defined(GRANRAY_HAVE_CUDA)
bool cuda_backend_compiled() { return true; }
bool cuda_device_available() { return detail::cuda_runtime_has_device(); }
int cuda_device_count() { return detail::cuda_runtime_device_count(); }

void use_cuda_device(int index) {
  const int count = detail::cuda_runtime_device_count();
  if (index < 0 || index >= count) {
    throw DeviceError("granray: CUDA device " + std::to_string(index) + " requested, " +
                      std::to_string(count) + " present");
  }
  detail::cuda_runtime_use_device(index);
}
#else
bool cuda_backend_compiled() { return false; }
bool cuda_device_available() { return false; }
int cuda_device_count() { return 0; }

void use_cuda_device(int index) {
  throw DeviceError("granray: CUDA device " + std::to_string(index) +
                    " requested, but this build has no CUDA backend");
}
#endif

// Names in the order of the enums' values.
const char* backend_name(BackendKind kind) {
  static constexpr const char* kNames[] = {"auto", "cuda", "cpu"};
  const auto k = static_cast<std::size_t>(kind);
  return k < std::size(kNames) ? kNames[k] : "unknown";
}

const char* render_method_name(RenderMethod method) {
  static constexpr const char* kNames[] = {"auto", "grid", "tiles", "brute force"};
  const auto k = static_cast<std::size_t>(method);
  return k < std::size(kNames) ? kNames[k] : "unknown";
}

std::optional<BackendKind> backend_from_name(const std::string& name) {
  for (const BackendKind kind : {BackendKind::automatic, BackendKind::cuda, BackendKind::cpu}) {
    if (name == backend_name(kind)) return kind;
  }
  return std::nullopt;
}

Vec3 colormap_color(int colormap, float s) {
  if (colormap < 0 || colormap >= detail::kColormapCount) {
    throw ConfigError("granray: colormap index " + std::to_string(colormap) + " out of range");
  }
  const float clamped = s > 0.0f ? (s < 1.0f ? s : 1.0f) : 0.0f;
  return detail::kColormapTables[colormap][static_cast<int>(255.0f * clamped + 0.5f)];
}

std::vector<Vec3> tableau10_palette() {
  static const unsigned hex[10] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
  std::vector<Vec3> palette;
  for (const unsigned h : hex) {
    palette.push_back({float((h >> 16) & 0xff) / 255.0f, float((h >> 8) & 0xff) / 255.0f,
                       float(h & 0xff) / 255.0f});
  }
  return palette;
}

const std::vector<std::string>& colormap_names() {
  static const std::vector<std::string> names = {"viridis", "cividis",  "magma", "inferno",
                                                 "plasma",  "coolwarm", "gray"};
  return names;
}

namespace {

BackendKind pick(BackendKind requested) {
  if (requested != BackendKind::automatic) return requested;
  return cuda_device_available() ? BackendKind::cuda : BackendKind::cpu;
}

std::unique_ptr<detail::Backend> make_backend(BackendKind kind) {
  if (kind == BackendKind::cpu) return detail::make_cpu_backend();
#if defined(GRANRAY_HAVE_CUDA)
  if (!detail::cuda_runtime_has_device()) {
    throw DeviceError("granray: backend \"cuda\" requested, but no CUDA device is available");
  }
  return detail::make_cuda_backend();
#else
  throw DeviceError("granray: backend \"cuda\" requested, but this build has no CUDA backend");
#endif
}

}  // namespace

Renderer::Renderer(BackendKind kind) : kind_(pick(kind)), impl_(make_backend(kind_)) {}
Renderer::~Renderer() = default;
Renderer::Renderer(Renderer&&) noexcept = default;
Renderer& Renderer::operator=(Renderer&&) noexcept = default;

FrameStats Renderer::render(const ParticleView& particles, const RenderSettings& settings,
                            Image& image, const RenderOptions& options) {
  return impl_->render(particles, settings, options, image);
}

FrameExtent Renderer::measure(const ParticleView& particles) { return impl_->measure(particles); }

HostGrid Renderer::build_grid(const ParticleView& particles, GridCells cells) {
  return impl_->build_grid(particles, cells);
}

RankStages& rank_stages(Renderer& renderer) { return *renderer.impl_; }

void Renderer::set_memory_limit(std::size_t bytes) { impl_->set_memory_limit(bytes); }

std::size_t Renderer::memory_available() { return impl_->memory_available(); }

double Renderer::time_hash_sort(const ParticleView& particles) {
  return impl_->time_hash_sort(particles);
}

}  // namespace granray
