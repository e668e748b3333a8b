#pragma once

#include "granray/kernels/ray.h"

namespace granray {

// The resolved camera as the pixel kernels see it (contract 2): an orthonormal basis u, v, w with
// w pointing from the target back to the eye, and the half extent h of the image plane.
struct CameraFrame {
  Vec3 eye;
  Vec3 u, v, w;
  float half_height;  // tan(fov / 2) for perspective, ortho_height / 2 for orthographic
  float aspect;       // width / height
  int width, height;
  bool orthographic;
  // Pixel (i, j)'s centre on the image plane, su = (i + 0.5) column_step - aspect half_height and
  // sv = half_height - (j + 0.5) row_step, with the steps worked out once (camera_frame_steps):
  // two divisions and two products fewer in every primary ray.
  float column_step;  // 2 aspect half_height / width
  float row_step;     // 2 half_height / height
  // A frame may render a window of the image (contract 3 region, and the tiles of a poster): width
  // and height above are the window's, the kernels' (i, j) count from its top left corner, and
  // (x0, y0) is that corner in the whole full_width x full_height image. Rays, sample offsets and
  // ambient-occlusion directions use the whole image's coordinates, so a window shows exactly
  // the pixels of that part of the whole.
  int x0, y0;
  int full_width, full_height;
};

// Ray through the point (i + dx, j + dy) of pixel (i, j)'s square, dx and dy in [0, 1); row 0 is
// the top of the image. Antialiasing samples several such points (contract 2a).
GRANRAY_HD_PIXEL_INLINE Ray sample_ray(const CameraFrame& cam, int i, int j, float dx, float dy) {
  const float su =
      (static_cast<float>(i + cam.x0) + dx) * cam.column_step - cam.aspect * cam.half_height;
  const float sv = cam.half_height - (static_cast<float>(j + cam.y0) + dy) * cam.row_step;
  if (cam.orthographic) {
    return {cam.eye + cam.u * su + cam.v * sv, cam.w * -1.0f};
  }
  return {cam.eye, normalize(cam.u * su + cam.v * sv - cam.w)};
}

// Ray through the centre of pixel (i, j).
GRANRAY_HD_PIXEL_INLINE Ray primary_ray(const CameraFrame& cam, int i, int j) {
  return sample_ray(cam, i, j, 0.5f, 0.5f);
}

}  // namespace granray
