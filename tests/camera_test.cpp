// Camera set-up (contract 2): auto placement, target, up fallback, orthographic height, zoom.
#include <gtest/gtest.h>

#include <cmath>

#include "granray/camera.h"
#include "granray/errors.h"
#include "test_support.h"

namespace granray::test {
namespace {

SceneBounds box(Vec3 lo, Vec3 hi) { return {lo, hi, 10, 0, 1.0}; }

double distance(Vec3 a, Vec3 b) {
  const double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

TEST(Camera, AutoPerspectiveFramesTheBoundingSphere) {
  Rng rng(fresh_seed());
  for (int k = 0; k < 50; ++k) {
    RenderSettings s = random_settings(rng, false);
    const Vec3 lo{uniform(rng, -5, 0), uniform(rng, -5, 0), uniform(rng, -5, 0)};
    const Vec3 hi{uniform(rng, 0.1f, 5), uniform(rng, 0.1f, 5), uniform(rng, 0.1f, 5)};
    const CameraSetup c = resolve_camera(s, box(lo, hi));
    const Vec3 centre{(lo.x + hi.x) / 2, (lo.y + hi.y) / 2, (lo.z + hi.z) / 2};
    const double R = distance(lo, hi) / 2;
    const double a = double(s.width) / s.height;
    const double fov = s.camera.fov * M_PI / 180;
    const double f = std::min(fov, 2 * std::atan(a * std::tan(fov / 2)));
    EXPECT_NEAR(distance(c.resolved.eye, centre), R / std::sin(f / 2) / s.camera.zoom, 1e-4 * R);
    EXPECT_NEAR(distance(c.resolved.target, centre), 0.0, 1e-5);
    // Direction from the target to the eye: polar angle theta from +z, azimuth phi from +x.
    const double th = s.camera.theta * M_PI / 180, ph = s.camera.phi * M_PI / 180;
    EXPECT_NEAR(c.frame.w.x, std::sin(th) * std::cos(ph), 1e-5);
    EXPECT_NEAR(c.frame.w.y, std::sin(th) * std::sin(ph), 1e-5);
    EXPECT_NEAR(c.frame.w.z, std::cos(th), 1e-5);
    EXPECT_NEAR(c.frame.half_height, std::tan(fov / 2), 1e-6);
    EXPECT_NEAR(dot(c.frame.u, c.frame.w), 0.0, 1e-6);
    EXPECT_NEAR(dot(c.frame.v, c.frame.w), 0.0, 1e-6);
    EXPECT_GT(dot(c.frame.v, s.camera.up), 0.0f) << "image up follows the up vector";
  }
}

TEST(Camera, AutoOrthographicHeightAndZoom) {
  Rng rng(fresh_seed());
  for (int k = 0; k < 20; ++k) {
    RenderSettings s = random_settings(rng, true);
    const CameraSetup c = resolve_camera(s, box({-1, -2, -3}, {1, 2, 3}));
    const double R = std::sqrt(4.0 + 16.0 + 36.0) / 2;
    const double a = double(s.width) / s.height;
    EXPECT_NEAR(c.resolved.ortho_height, 2 * R / std::min(1.0, a) / s.camera.zoom, 1e-4);
    EXPECT_NEAR(distance(c.resolved.eye, {0, 0, 0}), 2 * R, 1e-4);
    EXPECT_TRUE(c.frame.orthographic);
  }
}

TEST(Camera, GivenPositionAndTarget) {
  RenderSettings s;
  s.camera.position = Vec3{0.3f, -0.4f, 0.25f};
  s.camera.target = Vec3{0.0f, 0.0f, 0.05f};
  const CameraSetup c = resolve_camera(s, box({-1, -1, -1}, {1, 1, 1}));
  EXPECT_FLOAT_EQ(c.resolved.eye.x, 0.3f);
  EXPECT_FLOAT_EQ(c.resolved.target.z, 0.05f);
  const Vec3 w = normalize(Vec3{0.3f, -0.4f, 0.2f});
  EXPECT_NEAR(c.frame.w.x, w.x, 1e-6);
  EXPECT_NEAR(c.frame.w.y, w.y, 1e-6);
  EXPECT_NEAR(c.frame.w.z, w.z, 1e-6);
}

TEST(Camera, PositionWithoutTargetLooksAtTheBoxCentre) {
  RenderSettings s;
  s.camera.position = Vec3{10, 0, 0};
  const CameraSetup c = resolve_camera(s, box({2, 2, 2}, {4, 6, 8}));
  EXPECT_FLOAT_EQ(c.resolved.target.x, 3.0f);
  EXPECT_FLOAT_EQ(c.resolved.target.y, 4.0f);
  EXPECT_FLOAT_EQ(c.resolved.target.z, 5.0f);
}

TEST(Camera, UpParallelToViewFallsBackToYThenX) {
  RenderSettings s;
  s.camera.theta = 0.0f;  // looking straight down +z onto the target: up = +z is parallel
  CameraSetup c = resolve_camera(s, box({-1, -1, -1}, {1, 1, 1}));
  EXPECT_FLOAT_EQ(c.resolved.up.y, 1.0f);
  EXPECT_NEAR(c.frame.v.y, 1.0f, 1e-6);

  s.camera.up = {0, 1, 0};
  s.camera.position = Vec3{0, 5, 0};
  s.camera.target = Vec3{0, 0, 0};
  c = resolve_camera(s, box({-1, -1, -1}, {1, 1, 1}));
  EXPECT_FLOAT_EQ(c.resolved.up.x, 1.0f);
  EXPECT_NEAR(c.frame.v.x, 1.0f, 1e-6);
}

TEST(Camera, PixelCentresFollowTheSpec) {
  RenderSettings s;
  s.width = 8;
  s.height = 4;
  s.camera.position = Vec3{0, 0, 10};
  s.camera.target = Vec3{0, 0, 0};
  s.camera.up = {0, 1, 0};
  s.camera.fov = 90.0f;
  const CameraSetup c = resolve_camera(s, box({-1, -1, -1}, {1, 1, 1}));
  // Top-left pixel centre: su = (2 * 0.5 / 8 - 1) * 2 * 1, sv = (1 - 2 * 0.5 / 4) * 1.
  const Ray r = primary_ray(c.frame, 0, 0);
  const Vec3 expect = normalize(Vec3{-1.75f, 0.75f, -1.0f});
  EXPECT_NEAR(r.dir.x, expect.x, 1e-6);
  EXPECT_NEAR(r.dir.y, expect.y, 1e-6);
  EXPECT_NEAR(r.dir.z, expect.z, 1e-6);
}

TEST(Camera, EyeOnTargetIsAnError) {
  RenderSettings s;
  s.camera.position = Vec3{1, 1, 1};
  s.camera.target = Vec3{1, 1, 1};
  EXPECT_THROW(resolve_camera(s, box({0, 0, 0}, {2, 2, 2})), ConfigError);
}

}  // namespace
}  // namespace granray::test
