#include "embree_spheres.h"

#include <embree3/rtcore.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "granray/errors.h"

namespace granray::detail {
namespace {

void check_device(RTCDevice device, const char* what) {
  const RTCError e = rtcGetDeviceError(device);
  if (e != RTC_ERROR_NONE) {
    throw Error(std::string("granray: Embree failed to ") + what + " (error " +
                std::to_string(static_cast<int>(e)) + ")");
  }
}

// What the filter needs to drop the shading point's own grain.
struct SkipContext {
  RTCIntersectContext context;  // first: Embree hands the filter this pointer
  const std::uint32_t* index;   // Embree's primitive -> the frame's sphere index
  IdMap id_of;
  std::uint64_t skip_id;
};

void skip_own_grain(const RTCFilterFunctionNArguments* args) {
  const auto* c = reinterpret_cast<const SkipContext*>(args->context);
  for (unsigned i = 0; i < args->N; ++i) {
    if (args->valid[i] != -1) continue;
    const unsigned prim = RTCHitN_primID(args->hit, args->N, i);
    if (c->id_of(c->index[prim]) == c->skip_id) args->valid[i] = 0;
  }
}

// What the nearest-hit filter needs: only entries at t > 0 count, as sphere_entry_distance says.
struct EntryContext {
  RTCIntersectContext context;
  const Vec4* spheres;
  Ray ray;
};

void entries_only(const RTCFilterFunctionNArguments* args) {
  const auto* c = reinterpret_cast<const EntryContext*>(args->context);
  for (unsigned i = 0; i < args->N; ++i) {
    if (args->valid[i] != -1) continue;
    const unsigned prim = RTCHitN_primID(args->hit, args->N, i);
    if (!(sphere_entry_distance(c->ray, c->spheres[prim]) < INFINITY)) args->valid[i] = 0;
  }
}

}  // namespace

struct EmbreeSpheres::Handles {
  RTCDevice device = nullptr;
  RTCScene scene = nullptr;
  std::vector<Vec4> spheres;  // the renderable ones, with 16 bytes of padding Embree may read
  std::vector<std::uint32_t> index;
  IdMap id_of{nullptr, 0};

  ~Handles() {
    if (scene != nullptr) rtcReleaseScene(scene);
    if (device != nullptr) rtcReleaseDevice(device);
  }
};

EmbreeSpheres::EmbreeSpheres() : handles_(std::make_unique<Handles>()) {
  handles_->device = rtcNewDevice(std::getenv("GRANRAY_EMBREE_CONFIG"));
  if (handles_->device == nullptr) throw Error("granray: Embree could not make a device");
  const char* rays = std::getenv("GRANRAY_EMBREE_RAYS");
  rays_alone_ = rays != nullptr && std::string(rays) == "alone";
}

EmbreeSpheres::~EmbreeSpheres() = default;

void EmbreeSpheres::build(const Vec4* spheres, std::uint32_t count, IdMap id_of) {
  Handles& h = *handles_;
  if (h.scene != nullptr) {
    rtcReleaseScene(h.scene);
    h.scene = nullptr;
  }
  h.spheres.clear();
  h.index.clear();
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!is_renderable(spheres[i])) continue;
    h.spheres.push_back(spheres[i]);
    h.index.push_back(i);
  }
  h.id_of = id_of;
  const std::size_t n = h.spheres.size();
  h.spheres.push_back(Vec4{0.0f, 0.0f, 0.0f, 0.0f});
  h.scene = rtcNewScene(h.device);
  rtcSetSceneFlags(h.scene, RTC_SCENE_FLAG_CONTEXT_FILTER_FUNCTION);
  const char* quality = std::getenv("GRANRAY_EMBREE_QUALITY");
  rtcSetSceneBuildQuality(h.scene, quality != nullptr && std::string(quality) == "medium"
                                       ? RTC_BUILD_QUALITY_MEDIUM
                                       : RTC_BUILD_QUALITY_HIGH);
  if (n > 0) {
    RTCGeometry g = rtcNewGeometry(h.device, RTC_GEOMETRY_TYPE_SPHERE_POINT);
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT4, h.spheres.data(), 0,
                               sizeof(Vec4), n);
    rtcCommitGeometry(g);
    rtcAttachGeometry(h.scene, g);
    rtcReleaseGeometry(g);
  }
  rtcCommitScene(h.scene);
  check_device(h.device, "build its scene of spheres");
}

bool EmbreeSpheres::occluded(const Ray& ray, float length, std::uint64_t skip_id) const {
  const Handles& h = *handles_;
  SkipContext c{{}, h.index.data(), h.id_of, skip_id};
  rtcInitIntersectContext(&c.context);
  c.context.filter = skip_own_grain;
  RTCRay r{};
  r.org_x = ray.origin.x;
  r.org_y = ray.origin.y;
  r.org_z = ray.origin.z;
  r.tnear = 0.0f;
  r.dir_x = ray.dir.x;
  r.dir_y = ray.dir.y;
  r.dir_z = ray.dir.z;
  r.tfar = length;
  r.mask = ~0u;
  rtcOccluded1(h.scene, &c.context, &r);
  return r.tfar < 0.0f;
}

Hit EmbreeSpheres::nearest(const Ray& ray) const {
  const Handles& h = *handles_;
  EntryContext c{{}, h.spheres.data(), ray};
  rtcInitIntersectContext(&c.context);
  c.context.filter = entries_only;
  RTCRayHit r{};
  r.ray.org_x = ray.origin.x;
  r.ray.org_y = ray.origin.y;
  r.ray.org_z = ray.origin.z;
  r.ray.tnear = 0.0f;
  r.ray.dir_x = ray.dir.x;
  r.ray.dir_y = ray.dir.y;
  r.ray.dir_z = ray.dir.z;
  r.ray.tfar = INFINITY;
  r.ray.mask = ~0u;
  r.hit.geomID = RTC_INVALID_GEOMETRY_ID;
  rtcIntersect1(h.scene, &c.context, &r);
  if (r.hit.geomID == RTC_INVALID_GEOMETRY_ID) return no_hit();
  const std::uint32_t index = h.index[r.hit.primID];
  return {sphere_entry_distance(ray, h.spheres[r.hit.primID]), h.id_of(index), index};
}

void EmbreeSpheres::occluded8(Vec3 origin, const Vec3* dirs, int count, float length,
                              std::uint64_t skip_id, std::uint32_t* words, int first_bit) const {
  const Handles& h = *handles_;
  SkipContext c{{}, h.index.data(), h.id_of, skip_id};
  rtcInitIntersectContext(&c.context);
  c.context.filter = skip_own_grain;
  alignas(32) RTCRay8 r{};
  alignas(32) int valid[8];
  for (int k = 0; k < 8; ++k) {
    valid[k] = k < count ? -1 : 0;
    r.org_x[k] = origin.x;
    r.org_y[k] = origin.y;
    r.org_z[k] = origin.z;
    r.tnear[k] = 0.0f;
    const Vec3 d = dirs[k < count ? k : 0];
    r.dir_x[k] = d.x;
    r.dir_y[k] = d.y;
    r.dir_z[k] = d.z;
    r.tfar[k] = length;
    r.mask[k] = ~0u;
  }
  rtcOccluded8(valid, h.scene, &c.context, &r);
  for (int k = 0; k < count; ++k) {
    if (r.tfar[k] < 0.0f) set_mask_bit(words, first_bit + k);
  }
}

}  // namespace granray::detail
