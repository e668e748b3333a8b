// granray-render end to end: real files to PNG/PPM, patterns, and clean failures.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "granray/io/image_file.h"
#include "granray/io/particle_file.h"
#include "test_support.h"

namespace granray::test {
namespace {

using Result = CommandResult;

Result run_tool(const std::string& args) {
  return run_command(std::string(GRANRAY_RENDER_EXE) + " " + args);
}

std::string shared_data(const std::string& relative) {
  const std::string path = std::string(GRANRAY_SHARED_DATA_DIR) + "/" + relative;
  return std::filesystem::exists(path) ? path : std::string();
}

TEST(RenderTool, LiggghtsDumpToPngMatchesTheLibrary) {
  const std::string dump = shared_data("liggghts/pour-20k.step10000.liggghts");
  if (dump.empty()) GTEST_SKIP() << "../shared/data not present";
  const std::string out = temp_path("pour_*.png");
  const Result r = run_tool("--set width=320 --set height=240 --set backend='\"cpu\"' " + dump +
                            " --out " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  const Image png = io::read_png(temp_path("pour_10000.png"));
  ASSERT_EQ(png.width, 320);
  ASSERT_EQ(png.height, 240);

  RenderSettings s;
  s.width = 320;
  s.height = 240;
  const auto frames = io::read_particle_file(dump);
  Image direct;
  Renderer(BackendKind::cpu).render(frames[0].view(), s, direct);
  EXPECT_EQ(png.rgb, direct.rgb);
}

TEST(RenderTool, ConfigFileAndPpmOutput) {
  Rng rng(fresh_seed());
  const std::string xyzr = temp_path("cloud.xyzr");
  {
    std::ofstream f(xyzr);
    for (int i = 0; i < 300; ++i) {
      f << uniform(rng, 0, 1) << " " << uniform(rng, 0, 1) << " " << uniform(rng, 0, 1)
        << " 0.05\n";
    }
  }
  const std::string config = temp_path("render.toml");
  std::ofstream(config) << "[insitu]\nwidth = 64\nheight = 48\nbackend = \"cpu\"\n"
                           "[insitu.shading]\nbackground = [0, 0, 0]\n";
  const std::string out = temp_path("cloud.ppm");
  const Result r = run_tool("--config " + config + " --format xyzr " + xyzr + " --out " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream ppm(out, std::ios::binary);
  std::string magic;
  int w, h, max;
  ppm >> magic >> w >> h >> max;
  EXPECT_EQ(magic, "P6");
  EXPECT_EQ(w, 64);
  EXPECT_EQ(h, 48);
  EXPECT_EQ(std::filesystem::file_size(out), 64u * 48u * 3u + 13u);
}

TEST(RenderTool, SeveralFramesNeedAStar) {
  const std::string dump = temp_path("two.dump");
  std::ofstream(dump) << "ITEM: TIMESTEP\n1\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS ff ff ff\n"
                         "0 1\n0 1\n0 1\nITEM: ATOMS x y z radius\n0.5 0.5 0.5 0.1\n"
                         "ITEM: TIMESTEP\n2\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS ff ff ff\n"
                         "0 1\n0 1\n0 1\nITEM: ATOMS x y z radius\n0.4 0.5 0.5 0.1\n";
  const std::string out = temp_path("single.png");
  Result r = run_tool(dump + " --set width=32 --set height=32 --out " + out);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("no '*'"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing is rendered before the error";

  r = run_tool(dump + " --set width=32 --set height=32 --out " + temp_path("step_*.png"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(temp_path("step_1.png")));
  EXPECT_TRUE(std::filesystem::exists(temp_path("step_2.png")));
}

TEST(RenderTool, BadInputFailsWithFileAndLine) {
  const std::string bad = temp_path("bad.xyzr");
  std::ofstream(bad) << "0 0 0 1\n0 0 zero 1\n";
  Result r = run_tool(bad + " --out " + temp_path("bad.png"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("bad.xyzr:2"), std::string::npos) << r.output;

  const std::string config = temp_path("bad.toml");
  std::ofstream(config) << "[insitu]\nwidth = 10\ncolour = 3\n";
  r = run_tool("--config " + config + " " + bad + " --out " + temp_path("bad.png"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("bad.toml:3"), std::string::npos) << r.output;

  r = run_tool("--set camera.fov=400 " + bad + " --out " + temp_path("bad.png"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("insitu.camera.fov"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace granray::test
