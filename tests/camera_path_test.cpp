// [insitu.camera.path] (contract 2f): the camera through its keys, linear or smooth (Catmull-Rom),
// checked against the formulas on random keys; the frames in situ are those of a renderer given
// the path's camera at their step or time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "granray/adapters/buffers.h"
#include "granray/errors.h"
#include "granray/insitu/camera_path.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/image_file.h"
#include "test_support.h"

namespace granray::test {
namespace {

// Random increasing keys and a random theta at each.
CameraPath random_path(Rng& rng, bool smooth) {
  CameraPath path;
  path.smooth = smooth;
  const int keys = 2 + static_cast<int>(rng() % 5);
  double at = uniform(rng, -100.0f, 100.0f);
  for (int k = 0; k < keys; ++k) {
    path.at.push_back(at);
    path.theta.push_back(uniform(rng, 0.0f, 180.0f));
    at += uniform(rng, 1.0f, 50.0f);
  }
  return path;
}

float theta_at(const CameraPath& path, double key) {
  return camera_on_path(path, CameraSettings{}, key).theta;
}

TEST(CameraPath, LinearPassesThroughTheKeysAndStraightBetweenThem) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 20; ++round) {
    const CameraPath path = random_path(rng, false);
    for (std::size_t k = 0; k < path.at.size(); ++k) {
      EXPECT_FLOAT_EQ(theta_at(path, path.at[k]), path.theta[k]);
    }
    for (std::size_t k = 0; k + 1 < path.at.size(); ++k) {
      const double u = uniform(rng, 0.0f, 1.0f);
      const double key = path.at[k] + u * (path.at[k + 1] - path.at[k]);
      const double expected = path.theta[k] + u * (path.theta[k + 1] - path.theta[k]);
      EXPECT_NEAR(theta_at(path, key), expected, 1e-3);
    }
    EXPECT_FLOAT_EQ(theta_at(path, path.at.front() - 10.0), path.theta.front());
    EXPECT_FLOAT_EQ(theta_at(path, path.at.back() + 10.0), path.theta.back());
  }
}

TEST(CameraPath, SmoothPassesThroughTheKeysWithoutAKinkAndKeepsStraightLines) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 20; ++round) {
    CameraPath path = random_path(rng, true);
    for (std::size_t k = 0; k < path.at.size(); ++k) {
      EXPECT_FLOAT_EQ(theta_at(path, path.at[k]), path.theta[k]);
    }
    // The slope is the same on both sides of an inner key (Catmull-Rom is C1): one-sided
    // differences of second order, over a step that the angles' float resolution (about 1e-5
    // degrees) cannot swamp, and small beside the keys' spacing.
    for (std::size_t k = 1; k + 1 < path.at.size(); ++k) {
      const double x = path.at[k];
      const double h = 1e-2 * std::min(path.at[k] - path.at[k - 1], path.at[k + 1] - path.at[k]);
      const double left =
          (3.0 * theta_at(path, x) - 4.0 * theta_at(path, x - h) + theta_at(path, x - 2 * h)) /
          (2 * h);
      const double right =
          (-3.0 * theta_at(path, x) + 4.0 * theta_at(path, x + h) - theta_at(path, x + 2 * h)) /
          (2 * h);
      EXPECT_NEAR(left, right, 0.05 * (std::abs(left) + 1.0)) << "key " << k;
    }
    // Keys on a straight line, unevenly spaced: the smooth path is that line.
    const float a = uniform(rng, 0.0f, 90.0f), b = uniform(rng, -0.5f, 0.5f);
    for (std::size_t k = 0; k < path.at.size(); ++k) path.theta[k] = a + b * path.at[k];
    for (int probe = 0; probe < 10; ++probe) {
      const double key =
          path.at.front() + uniform(rng, 0.0f, 1.0f) * (path.at.back() - path.at.front());
      EXPECT_NEAR(theta_at(path, key), a + b * key, 2e-3);
    }
  }
}

TEST(CameraPath, SmoothZoomStaysInsideItsKeysRange) {
  CameraPath path;
  path.smooth = true;
  path.at = {0.0, 1.0, 2.0, 3.0};
  path.zoom = {0.1f, 0.1f, 5.0f, 5.0f};  // Catmull-Rom would dip below 0.1 near key 1
  for (double key = 0.0; key <= 3.0; key += 0.01) {
    const float z = camera_on_path(path, CameraSettings{}, key).zoom;
    EXPECT_GE(z, 0.1f);
    EXPECT_LE(z, 5.0f);
  }
}

void expect_path_error(const std::string& path_toml, const std::string& fragment) {
  expect_config_error("[insitu]\n[insitu.camera.path]\n" + path_toml,
                      {fragment, "insitu.camera.path"});
}

TEST(CameraPath, ConfigurationMistakesNameTheKey) {
  const InsituConfig ok = parse_insitu_config(
      "[insitu]\n[insitu.camera.path]\nkeys = \"time\"\nat = [0.0, 0.5]\n"
      "position = [[1, 0, 0], [0, 1, 0]]\ninterpolate = \"smooth\"\n",
      "sim.toml");
  ASSERT_TRUE(ok.camera_path);
  EXPECT_EQ(ok.camera_path->keys, CameraPath::Keys::time);
  EXPECT_TRUE(ok.camera_path->smooth);
  EXPECT_EQ(ok.camera_path->position.size(), 2u);
  expect_path_error("at = [0, 10]\n", "moves nothing");
  expect_path_error("at = [0, 10, 5]\ntheta = [1, 2, 3]\n", "must increase");
  expect_path_error("at = [0, 10]\ntheta = [1, 2, 3]\n", "one per key");
  expect_path_error("at = [0, 10]\nposition = [[1, 2], [3, 4, 5]]\n", "points");
  expect_path_error("at = [0, 10]\nzoom = [1, 0]\n", "> 0");
  expect_path_error("at = [0, 10]\ntheta = [1, 2]\nkeys = \"frame\"\n", "\"step\" or \"time\"");
  expect_path_error("at = [0, 10]\ntheta = [1, 2]\nspeed = 3\n", "speed");
  expect_path_error("theta = [1, 2]\n", "is required");
}

// The frames of a run whose camera follows a path are a renderer's with the path's camera at
// each frame's step (or time).
TEST(CameraPath, FramesInSituFollowThePath) {
  Rng rng(fresh_seed());
  const std::vector<Vec4> grains = dense_bed(rng, 300, 0.3f, 0.5f);
  const std::string dir = temp_path("path-" + std::to_string(fresh_seed()));
  std::filesystem::create_directories(dir);
  const bool by_time = rng() % 2 == 0;
  const std::string toml =
      "[insitu]\nevery = 10\nwidth = 48\nheight = 36\nbackend = \"cpu\"\npng = \"" + dir +
      "/f_*.png\"\n[insitu.camera.path]\nkeys = \"" + (by_time ? "time" : "step") +
      "\"\nat = " + (by_time ? "[0.0, 0.2, 0.4]" : "[0, 20, 40]") +
      "\ntheta = [20.0, 80.0, 150.0]\nphi = [0.0, 90.0, 45.0]\nzoom = [1.0, 1.5, 0.8]\n" +
      "interpolate = \"" + (rng() % 2 == 0 ? "smooth" : "linear") + "\"\n";
  const InsituConfig config = parse_insitu_config(toml, "sim.toml");
  ParticleView view;
  view.xyzr = grains.data();
  view.count = grains.size();
  Renderer renderer(BackendKind::cpu);
  InsituRenderer vis(config, {});
  std::vector<Image> frames;
  for (std::int64_t step : {0, 10, 30, 50}) {
    const double time = 0.01 * static_cast<double>(step);
    const FrameRecord& f =
        vis.render(step, time, adapters::host_particles(grains.data(), grains.size()));
    ASSERT_TRUE(f.rendered) << f.error;
    vis.finish();
    RenderSettings settings = config.render;
    settings.camera = camera_on_path(*config.camera_path, config.render.camera,
                                     by_time ? time : static_cast<double>(step));
    Image direct;
    renderer.render(view, settings, direct);
    EXPECT_EQ(io::read_png(f.png_path).rgb, direct.rgb) << "step " << step;
    frames.push_back(direct);
  }
  EXPECT_NE(frames[0].rgb, frames[1].rgb) << "the camera did not move";
}

}  // namespace
}  // namespace granray::test
