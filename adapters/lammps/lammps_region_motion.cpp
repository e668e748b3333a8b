#include "lammps_region_motion.h"

namespace granray::lammps {
namespace {

// Region keeps the rotation's point and unit axis protected. A pointer to a protected member
// named through a derived class may be applied to any Region: the standard way to read them
// without copying the class.
struct RegionAxis : LAMMPS_NS::Region {
  static const double* point_of(const LAMMPS_NS::Region& r) { return r.*(&RegionAxis::point); }
  static const double* unit_of(const LAMMPS_NS::Region& r) { return r.*(&RegionAxis::runit); }
};

Vec3 vec(const double* v) {
  return {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
}

}  // namespace

RigidTransform region_motion(LAMMPS_NS::Region& region) {
  region.prematch();  // this step's dx, dy, dz and theta from the region's variables
  RigidTransform motion;
  if (region.rotateflag) {
    constexpr double kDegrees = 180.0 / 3.14159265358979323846;
    motion =
        RigidTransform::rotation_about(vec(RegionAxis::point_of(region)),
                                       vec(RegionAxis::unit_of(region)), region.theta * kDegrees);
  }
  if (region.moveflag) {
    motion.translation.x += static_cast<float>(region.dx);
    motion.translation.y += static_cast<float>(region.dy);
    motion.translation.z += static_cast<float>(region.dz);
  }
  return motion;
}

}  // namespace granray::lammps
