// contract 2f on each backend: a frame's further views, rendered in situ from the grid the main
// camera built, are the frames a renderer of that backend draws with their cameras, unlit and
// lit. Built once per backend.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "granray/adapters/buffers.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/image_file.h"
#include "test_support.h"

namespace granray::test {
namespace {

class ViewsOnBackendTest : public OnEachBackend {};

TEST_F(ViewsOnBackendTest, EachViewEqualsARenderWithItsCamera) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 4; ++round) {
    const std::vector<Vec4> grains = dense_bed(rng, 2000 + rng() % 3000, 0.3f, 0.5f);
    const std::string dir = temp_path("backend-views-" + std::to_string(fresh_seed()));
    std::filesystem::create_directories(dir);
    std::string toml = "[insitu]\nevery = 1\nwidth = " + std::to_string(64 + rng() % 96) +
                       "\nheight = " + std::to_string(48 + rng() % 64) + "\nbackend = \"" +
                       backend_name(test_backend()) + "\"\npng = \"" + dir + "/{view}_*.png\"\n";
    if (round % 2 == 1) toml += "[insitu.shading]\nshadows = true\nao_samples = 4\nsamples = 4\n";
    for (int k = 0; k < 3; ++k) {
      toml += "[[insitu.views]]\nname = \"v" + std::to_string(k) +
              "\"\ntheta = " + std::to_string(uniform(rng, 5.0f, 175.0f)) +
              "\nphi = " + std::to_string(uniform(rng, -180.0f, 180.0f)) +
              "\nzoom = " + std::to_string(uniform(rng, 0.7f, 1.8f)) + "\n";
    }
    const InsituConfig config = parse_insitu_config(toml, "sim.toml");
    {
      InsituRenderer vis(config, {});
      const FrameRecord& f =
          vis.render(0, 0.0, adapters::host_particles(grains.data(), grains.size()));
      ASSERT_TRUE(f.rendered) << f.error;
    }
    ParticleView view;
    view.xyzr = grains.data();
    view.count = grains.size();
    Renderer renderer(test_backend());
    for (std::size_t k = 0; k <= config.views.size(); ++k) {
      RenderSettings settings = config.render;
      const std::string name = k == 0 ? "main" : config.views[k - 1].name;
      if (k > 0) settings.camera = config.views[k - 1].camera;
      Image direct;
      renderer.render(view, settings, direct);
      EXPECT_EQ(io::read_png(dir + "/" + name + "_00000000.png").rgb, direct.rgb)
          << "round " << round << ", view " << name;
    }
  }
}

}  // namespace
}  // namespace granray::test
