// Walls (contract 2b): triangle meshes drawn with the grains. A frame's walls travel in
// RenderSettings::walls; the backends build their hierarchy (kernels/walls.h) once for a wall
// list they have seen and again whenever the list is a new one or lives in device memory.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "granray/kernels/vec.h"
#include "granray/particles.h"

namespace granray {

// Three vertices; the winding gives the normal (right-hand rule). A simulation's own triangles
// are this layout: nine floats, vertex after vertex.
struct Triangle {
  Vec3 a, b, c;
};
static_assert(sizeof(Triangle) == 36, "a triangle is nine packed floats");

enum class WallFaces {
  all,   // every triangle
  back,  // only the triangles whose normal points away from the camera (a container's far side)
};

struct Wall {
  std::string name;
  std::vector<Triangle> triangles;  // host memory
  // Or triangles the simulation keeps, read where they lie every frame instead of `triangles`:
  // a CUDA device buffer on the CUDA backend (no host copy), or host memory.
  const Triangle* in_place = nullptr;
  std::size_t in_place_count = 0;
  MemorySpace in_place_space = MemorySpace::device;
  Vec3 color = {0.6f, 0.65f, 0.75f};
  WallFaces faces = WallFaces::all;
  // Below 1 a see-through wall (contract 2d): it blocks no ray and is composited over what lies
  // behind it; 0 draws nothing.
  float opacity = 1.0f;
  // contract 2e: the name of one of RenderSettings::materials; empty: matte.
  std::string material;

  std::size_t triangle_count() const {
    return in_place != nullptr ? in_place_count : triangles.size();
  }
};

using WallList = std::vector<Wall>;

// x -> rotation x + translation: where a moving wall is this frame.
struct RigidTransform {
  float rotation[3][3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
  Vec3 translation = {0.0f, 0.0f, 0.0f};

  Vec3 apply(Vec3 p) const;
  // A rotation by `degrees` about the line through `point` along `axis` (right-hand rule).
  static RigidTransform rotation_about(Vec3 point, Vec3 axis, double degrees);
  static RigidTransform translation_by(Vec3 offset);
};

std::vector<Triangle> transformed(const std::vector<Triangle>& triangles, const RigidTransform& m);
// scale first, then translate (contract 2b's order).
std::vector<Triangle> scaled_and_translated(const std::vector<Triangle>& triangles, float scale,
                                            Vec3 offset);

// Closed, outward-facing meshes (contract 2b): a box of 12 triangles; a cylinder (side, two caps)
// of 4 x segments - 4 triangles about the line from `base` along `axis`, `height` long.
std::vector<Triangle> box_triangles(Vec3 lo, Vec3 hi);
std::vector<Triangle> cylinder_triangles(Vec3 base, Vec3 axis, float radius, float height,
                                         int segments);

}  // namespace granray
