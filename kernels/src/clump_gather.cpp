#include "granray/clump_gather.h"

#include <cmath>
#include <string>

#include "clump_gather_device.h"
#include "granray/errors.h"
#include "granray/kernels/clump_spheres.h"

namespace granray {

// Host memory: the arrays themselves; device memory: the GPU side's.
struct ClumpGather::Storage {
  std::vector<std::uint32_t> first;  // per template, and one past the last
  std::vector<Vec3> offsets;
  std::vector<float> radii;
  std::vector<std::uint32_t> template_of;
  std::vector<std::uint32_t> first_sphere;  // per owner
  std::vector<Vec4> spheres;
  std::vector<float> values;
  std::unique_ptr<detail::DeviceClumpStorage> device;
};

ClumpGather::ClumpGather(MemorySpace space, const std::vector<ClumpTemplate>& templates,
                         const std::vector<std::uint32_t>& template_of_owner)
    : space_(space), storage_(std::make_unique<Storage>()) {
  Storage& s = *storage_;
  s.first.push_back(0);
  for (std::size_t k = 0; k < templates.size(); ++k) {
    const ClumpTemplate& t = templates[k];
    const std::string which = "granray: clump template " + std::to_string(k) + ": ";
    if (t.offsets.empty() || t.offsets.size() != t.radii.size()) {
      throw ConfigError(which + "needs one radius per offset and at least one sphere (it has " +
                        std::to_string(t.offsets.size()) + " offsets, " +
                        std::to_string(t.radii.size()) + " radii)");
    }
    for (std::size_t c = 0; c < t.radii.size(); ++c) {
      const Vec3 o = t.offsets[c];
      if (!(t.radii[c] > 0.0f && std::isfinite(t.radii[c])) || !std::isfinite(o.x + o.y + o.z)) {
        throw ConfigError(which + "sphere " + std::to_string(c) +
                          " needs a finite offset and a positive, finite radius");
      }
    }
    s.offsets.insert(s.offsets.end(), t.offsets.begin(), t.offsets.end());
    s.radii.insert(s.radii.end(), t.radii.begin(), t.radii.end());
    s.first.push_back(static_cast<std::uint32_t>(s.offsets.size()));
  }
  templates_ = templates.size();
  if (space_ == MemorySpace::device) {
    s.device = detail::make_device_clump_storage();
    s.device->upload_templates(s.first, s.offsets, s.radii);
  }
  set_owner_templates(template_of_owner);
}

ClumpGather::~ClumpGather() = default;

void ClumpGather::set_owner_templates(const std::vector<std::uint32_t>& template_of_owner) {
  Storage& s = *storage_;
  std::vector<std::uint32_t> first_sphere(template_of_owner.size());
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < template_of_owner.size(); ++i) {
    const std::uint32_t t = template_of_owner[i];
    if (t >= templates_) {
      throw ConfigError("granray: clump owner " + std::to_string(i) + " names template " +
                        std::to_string(t) + ", but there are " + std::to_string(templates_));
    }
    first_sphere[i] = static_cast<std::uint32_t>(total);
    total += s.first[t + 1] - s.first[t];
    if (total > 0xffffffffu) {
      throw ConfigError("granray: the clumps hold more than 2^32 - 1 spheres");
    }
  }
  if (s.device) s.device->upload_owners(template_of_owner, first_sphere);
  s.template_of = template_of_owner;
  s.first_sphere = std::move(first_sphere);
  owners_ = template_of_owner.size();
  spheres_ = static_cast<std::size_t>(total);
}

std::size_t ClumpGather::owners() const { return owners_; }
std::size_t ClumpGather::spheres() const { return spheres_; }

ParticleView ClumpGather::gather(const ClumpOwnersFrame& frame) {
  Storage& s = *storage_;
  if (owners_ > 0 && (frame.positions == nullptr || frame.orientations == nullptr)) {
    throw Error("granray: clump gather of " + std::to_string(owners_) +
                " owners without positions or orientations");
  }
  ParticleView view;
  view.count = spheres_;
  view.space = space_;
  view.cuda_stream = frame.cuda_stream;
  if (space_ == MemorySpace::device) {
    const float* values = nullptr;
    s.device->gather(frame, owners_, spheres_, view.xyzr, values);
    view.scalar = values;
    return view;
  }
  s.spheres.resize(spheres_);
  s.values.resize(frame.values != nullptr ? spheres_ : 0);
  const GatherClumpSpheres gather{frame.positions,
                                  frame.orientations,
                                  s.template_of.data(),
                                  s.first_sphere.data(),
                                  {s.first.data(), s.offsets.data(), s.radii.data()},
                                  frame.values,
                                  s.spheres.data(),
                                  s.values.data()};
  const auto n = static_cast<std::int64_t>(owners_);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) gather(static_cast<std::uint32_t>(i));
  view.xyzr = s.spheres.data();
  view.scalar = frame.values != nullptr ? s.values.data() : nullptr;
  return view;
}

#if !defined(GRANRAY_HAVE_CUDA)
namespace detail {
std::unique_ptr<DeviceClumpStorage> make_device_clump_storage() {
  throw DeviceError("granray: clumps in device memory need the CUDA build of granray");
}
}  // namespace detail
#endif

}  // namespace granray
