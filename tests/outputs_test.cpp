// One writer for every client: each output key (`png`, or granray-render's --out; `output`, the
// HDF5 file with its views; [insitu.orbit] `cinema`) goes through the same frame sinks, so the
// plugin in a time loop and granray-render on a snapshot of the same grains write the same
// images to each.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "granray/adapters/buffers.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/image_file.h"
#include "h5_read.h"
#include "test_support.h"

namespace granray::test {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::uint8_t> h5_bytes(const std::string& path, const char* dataset) {
  H5File file(path);
  EXPECT_GE(file.id, 0) << path;
  return read_all<std::uint8_t>(file.id, dataset, H5T_NATIVE_UINT8);
}

TEST(Outputs, EveryKeyWritesTheSameOfflineAsInSitu) {
  Rng rng(fresh_seed());
  const std::vector<Vec4> grains = dense_bed(rng, 300, 0.3f, 0.5f);
  const std::string dir = temp_path("outputs-" + std::to_string(fresh_seed()));
  std::filesystem::create_directories(dir + "/offline");
  {
    std::ofstream bed(dir + "/bed.xyzr");
    char line[128];
    for (const Vec4& g : grains) {  // %.9g: every float read back exactly
      std::snprintf(line, sizeof line, "%.9g %.9g %.9g %.9g\n", g.x, g.y, g.z, g.w);
      bed << line;
    }
  }
  const int phi_count = 2 + static_cast<int>(rng() % 2);
  const std::string keys =
      "width = " + std::to_string(24 + rng() % 40) +
      "\nheight = " + std::to_string(20 + rng() % 30) +
      "\nbackend = \"cpu\"\n[insitu.camera]\ntheta = " +
      std::to_string(uniform(rng, 20.0f, 80.0f)) +
      "\n[[insitu.views]]\nname = \"side\"\ntheta = 90.0\n[insitu.orbit]\ntheta = [" +
      std::to_string(uniform(rng, 10.0f, 170.0f)) + "]\nphi_count = " + std::to_string(phi_count) +
      "\n";
  const auto outputs = [&](const std::string& way) {
    return "output = \"" + dir + "/" + way + ".h5\"\n" + keys + "cinema = \"" + dir + "/" + way +
           ".cdb\"\n";
  };
  {
    InsituRenderer vis(parse_insitu_config("[insitu]\nevery = 1\npng = \"" + dir +
                                               "/insitu/{view}_*.png\"\n" + outputs("insitu"),
                                           "sim.toml"),
                       {});
    ASSERT_TRUE(
        vis.render(0, 0.0, adapters::host_particles(grains.data(), grains.size())).rendered);
  }  // the writer has written everything
  const std::string config = dir + "/offline.toml";
  std::ofstream(config) << "[insitu]\n" << outputs("offline");
  const CommandResult r =
      run_command(std::string(GRANRAY_RENDER_EXE) + " --config " + config + " " + dir +
                  "/bed.xyzr --out '" + dir + "/offline/{view}_*.png'");
  ASSERT_EQ(r.status, 0) << r.output;

  // png / --out: the main view, the named view and the orbit's ring.
  std::vector<std::string> views = {"main", "side"};
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/offline")) {
    const std::string name = entry.path().stem().string();
    if (name.rfind("orbit_", 0) == 0) views.push_back(name.substr(0, name.rfind('_')));
  }
  EXPECT_EQ(views.size(), 2u + std::size_t(phi_count));
  for (const std::string& view : views) {
    const Image in_situ = io::read_png(dir + "/insitu/" + view + "_00000000.png");
    const Image offline = io::read_png(dir + "/offline/" + view + "_0.png");
    EXPECT_EQ(in_situ.rgb, offline.rgb) << view;
  }
  // output: the frames and each view's stack.
  EXPECT_EQ(h5_bytes(dir + "/insitu.h5", "/frames/rgb"),
            h5_bytes(dir + "/offline.h5", "/frames/rgb"));
  EXPECT_FALSE(h5_bytes(dir + "/offline.h5", "/frames/rgb").empty());
  EXPECT_EQ(h5_bytes(dir + "/insitu.h5", "/views/side/rgb"),
            h5_bytes(dir + "/offline.h5", "/views/side/rgb"));
  // cinema: the same rows, naming the same images.
  const std::string rows = read_text(dir + "/insitu.cdb/data.csv");
  EXPECT_EQ(rows, read_text(dir + "/offline.cdb/data.csv"));
  std::istringstream lines(rows);
  std::string line;
  std::getline(lines, line);  // the header
  int count = 0;
  while (std::getline(lines, line)) {
    const std::string file = line.substr(line.rfind(',') + 1);
    EXPECT_EQ(io::read_png(dir + "/insitu.cdb/" + file).rgb,
              io::read_png(dir + "/offline.cdb/" + file).rgb)
        << line;
    ++count;
  }
  EXPECT_EQ(count, phi_count);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace granray::test
