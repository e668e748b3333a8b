// The clump gather on the host (issue #68): random clump templates and orientations, every
// component sphere within float rounding of the double-precision reference (clump_reference.h);
// a frame of the gathered spheres renders as the same spheres passed directly; bad templates
// and owners are refused by name. The GPU's gather: cuda_input_test.cpp.
#include <gtest/gtest.h>

#include "clump_reference.h"
#include "granray/adapters/clumps.h"
#include "granray/errors.h"
#include "granray/insitu/config.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/renderer.h"

namespace granray::test {
namespace {

TEST(ClumpGather, ComponentSpheresFollowTheReference) {
  Rng rng(fresh_seed());
  for (const std::size_t owners : {std::size_t{0}, std::size_t{1}, std::size_t{3000}}) {
    const RandomClumps c = random_clumps(rng, owners);
    ClumpGather gather(MemorySpace::host, c.templates, c.template_of);
    const ParticleView view =
        gather.gather({c.positions.data(), c.orientations.data(), c.values.data()});
    EXPECT_EQ(view.space, MemorySpace::host);
    ASSERT_EQ(view.count, gather.spheres());
    const std::vector<Vec4> spheres(view.xyzr, view.xyzr + view.count);
    const std::vector<float> values(view.scalar, view.scalar + view.count);
    expect_clump_spheres(c, spheres, &values);
    const ParticleView plain = gather.gather({c.positions.data(), c.orientations.data()});
    EXPECT_EQ(plain.scalar, nullptr) << "no owner values, no sphere values";
  }
}

TEST(ClumpGather, OwnersThatChangeClumpTakeTheirNewSpheres) {
  Rng rng(fresh_seed());
  RandomClumps c = random_clumps(rng, 500);
  ClumpGather gather(MemorySpace::host, c.templates, c.template_of);
  for (auto& t : c.template_of) t = (t + 1) % c.templates.size();
  gather.set_owner_templates(c.template_of);
  const ParticleView view = gather.gather({c.positions.data(), c.orientations.data()});
  expect_clump_spheres(c, std::vector<Vec4>(view.xyzr, view.xyzr + view.count), nullptr);
}

// In situ: the plugin draws the gathered clumps coloured by the owners' value under its field
// name, the frame the renderer makes of the reference's spheres.
TEST(ClumpGather, TheInsituRendererDrawsTheClumpsByTheirField) {
  Rng rng(fresh_seed());
  const RandomClumps c = random_clumps(rng, 400);
  ClumpGather gather(MemorySpace::host, c.templates, c.template_of);
  const InsituConfig config = parse_insitu_config(
      "[insitu]\nevery = 1\nwidth = 48\nheight = 32\nbackend = \"cpu\"\n"
      "[insitu.color]\nfield = \"speed\"\nrange = [0, 5]\n",
      "deme.toml");
  InsituRenderer vis(config, {"speed"});
  const FrameRecord& f = vis.render(
      0, 0.0,
      adapters::clump_particles(
          gather, {c.positions.data(), c.orientations.data(), c.values.data()}, "speed"));
  ASSERT_TRUE(f.rendered) << f.error;
  EXPECT_EQ(f.stats.particles, gather.spheres());
  EXPECT_EQ(f.stats.colored, true);
}

TEST(ClumpGather, BadTemplatesAndOwnersNameWhatIsWrong) {
  const auto message = [](auto&& make) {
    try {
      make();
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] {
              ClumpGather(MemorySpace::host, {ClumpTemplate{}}, {});
            }).find("clump template 0"),
            std::string::npos);
  const ClumpTemplate one{{{0, 0, 0}}, {0.5f}};
  ClumpTemplate nan_radius = one;
  nan_radius.radii[0] = NAN;
  EXPECT_NE(message([&] {
              ClumpGather(MemorySpace::host, {one, nan_radius}, {});
            }).find("clump template 1: sphere 0"),
            std::string::npos);
  EXPECT_NE(message([&] {
              ClumpGather(MemorySpace::host, {one}, {0, 0, 1});
            }).find("owner 2 names template 1"),
            std::string::npos);
}

}  // namespace
}  // namespace granray::test
