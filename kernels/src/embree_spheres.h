// Embree 3's spheres as the CPU's occluder for secondary rays (issue #39 asked for it to be
// evaluated against the gather of nearby_spheres.h). Built only with -DGRANRAY_WITH_EMBREE=ON and
// used only where GRANRAY_CPU_OCCLUDER=embree is set: Embree tests a ray against a sphere with
// its own arithmetic (an approximate reciprocal, its own order of operations), so a ray that
// grazes a grain may be answered otherwise than by `blocks` (occlusion.h), which every other path
// and the reference share.
#pragma once

#include <cstdint>
#include <memory>

#include "granray/kernels/intersect.h"
#include "granray/kernels/lighting.h"
#include "granray/kernels/occlusion.h"
#include "granray/kernels/trace.h"

namespace granray::detail {

// An Embree scene of the renderable spheres among `count`, rebuilt by build(); owns the device
// and scene handles.
class EmbreeSpheres {
 public:
  EmbreeSpheres();
  ~EmbreeSpheres();
  EmbreeSpheres(const EmbreeSpheres&) = delete;
  EmbreeSpheres& operator=(const EmbreeSpheres&) = delete;

  void build(const Vec4* spheres, std::uint32_t count, IdMap id_of);
  // GRANRAY_EMBREE_RAYS=alone: one rtcOccluded1 per occlusion ray instead of a packet of 8.
  bool rays_alone() const { return rays_alone_; }

  // Whether a sphere other than `skip_id`'s meets the ray at t in (0, length).
  bool occluded(const Ray& ray, float length, std::uint64_t skip_id) const;
  // The nearest sphere the ray enters at t > 0 (sphere_entry_distance, whose t it returns), by
  // Embree's ordering of the candidates.
  Hit nearest(const Ray& ray) const;
  // Bit 1 + k of `words` for each ray k of `count` (at most 8) from `origin` along `dirs` that a
  // sphere other than `skip_id`'s meets within `length`: one packet.
  void occluded8(Vec3 origin, const Vec3* dirs, int count, float length, std::uint64_t skip_id,
                 std::uint32_t* words, int first_bit) const;

 private:
  struct Handles;
  std::unique_ptr<Handles> handles_;
  bool rays_alone_ = false;
};

// The occluder of the lit passes over an EmbreeSpheres scene.
struct EmbreeOccluder {
  static constexpr bool gathers_nearby = false;
  const EmbreeSpheres* scene;

  bool operator()(const Ray& ray, float length, std::uint64_t skip_id) const {
    return scene->occluded(ray, length, skip_id);
  }
  void ambient(const ShadingPoint& p, int i, int j, int sample, const LightingParams& lighting,
               std::uint64_t skip_id, std::uint32_t* words) const {
    const std::uint32_t seed = ao_seed(i, j, sample, lighting.ao_samples);
    if (scene->rays_alone()) {
      for (int k = 0; k < lighting.ao_samples; ++k) {
        const Vec3 d = ao_direction_of_seed(p.normal, seed, k, lighting.ao_samples);
        if (scene->occluded(Ray{p.origin, d}, lighting.ao_distance, skip_id)) {
          set_mask_bit(words, 1 + k);
        }
      }
      return;
    }
    Vec3 dirs[8];
    for (int first = 0; first < lighting.ao_samples; first += 8) {
      const int rays = lighting.ao_samples - first < 8 ? lighting.ao_samples - first : 8;
      for (int k = 0; k < rays; ++k) {
        dirs[k] = ao_direction_of_seed(p.normal, seed, first + k, lighting.ao_samples);
      }
      scene->occluded8(p.origin, dirs, rays, lighting.ao_distance, skip_id, words, 1 + first);
    }
  }
};

// The nearest hit of bounce rays and paths (SPEC 2e) over an EmbreeSpheres scene.
struct EmbreeTracer {
  const EmbreeSpheres* scene;
  bool may_hit(int, int) const { return true; }
  Hit operator()(const Ray& ray, int, int) const { return scene->nearest(ray); }
};

}  // namespace granray::detail
