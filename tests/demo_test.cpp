// granray-dem end to end: the example DEM renders its pour in situ and reports each frame.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "granray/io/image_file.h"
#include "test_support.h"

namespace granray::test {
namespace {

using Result = CommandResult;

Result run_dem(const std::string& args) {
  return run_command(std::string(GRANRAY_DEM_EXE) + " " + args);
}

// The number after `key` (e.g. "composite ") on each output line that starts with `prefix`.
std::vector<double> values_on_lines(const std::string& output, const std::string& prefix,
                                    const std::string& key) {
  std::vector<double> values;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t at = line.find(key);
    if (line.rfind(prefix, 0) == 0 && at != std::string::npos) {
      values.push_back(std::stod(line.substr(at + key.size())));
    }
  }
  return values;
}

TEST(Demo, PourRendersFramesInSitu) {
  const std::string dir = temp_path("demo-" + std::to_string(fresh_seed()));
  const Result r = run_dem(
      "--set simulation.particles=300 --set simulation.steps=400 --set simulation.box=[0.1,0.1,0.2]"
      " --set 'simulation.backend=\"cpu\"' --set insitu.every=100 --set insitu.width=80"
      " --set insitu.height=60 --set 'insitu.png=\"" +
      dir + "/step_*.png\"'" + " --set 'insitu.output=\"" + dir + "/frames.h5\"'");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* step : {"00000000", "00000100", "00000200", "00000300", "00000400"}) {
    const std::string png = dir + "/step_" + step + ".png";
    ASSERT_TRUE(std::filesystem::exists(png)) << png << "\n" << r.output;
    const Image image = io::read_png(png);
    EXPECT_EQ(image.width, 80);
    EXPECT_EQ(image.height, 60);
  }
  EXPECT_NE(r.output.find("frame step 400 t=0.0032 s: 300 particles"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("400 steps in"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/frames.h5"));
  EXPECT_NE(r.output.find("5 frames on"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("5 written, 0 failed, 0 dropped, 0 lost"), std::string::npos) << r.output;
}

// contract 2g in situ: examples/dem/pour-network.toml draws the DEM's own contacts, and under
// mpirun (slabs: pairs with a ghost passed whole by one rank) the very frames of one rank.
TEST(Demo, TheNetworkExampleDrawsItsOwnContacts) {
  const std::string dir = temp_path("demo-network-" + std::to_string(fresh_seed()));
  const std::string settings =
      std::string(GRANRAY_SOURCE_DIR) +
      "/examples/dem/pour-network.toml --set simulation.particles=400 --set "
      "simulation.steps=6000 --set 'simulation.backend=\"cpu\"' --set insitu.every=3000 "
      "--set insitu.width=80 --set insitu.height=60 --set 'insitu.backend=\"cpu\"' "
      "--set insitu.shading.ao_samples=0 --set insitu.contacts.threshold=0 --set "
      "'insitu.contacts.range=\"auto\"' --set 'insitu.png=\"" +
      dir + "/net_*.png\"'";
  const Result r = run_dem(settings);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("3 written, 0 failed"), std::string::npos) << r.output;
  // The first frame, before any contact, passes an empty list: no warning that none is passed.
  EXPECT_EQ(r.output.find("passes no contact"), std::string::npos) << r.output;
  // The network alone (no grain drawn) is more than the background once the pour has landed.
  const Result alone = run_dem(settings + " --set insitu.contacts.grains=false --set " +
                               "insitu.clip=[] --set insitu.walls=[] --set 'insitu.png=\"" + dir +
                               "/alone_*.png\"'");
  ASSERT_EQ(alone.status, 0) << alone.output;
  const Image last = io::read_png(dir + "/alone_00006000.png");
  std::size_t drawn = 0;
  for (std::size_t p = 0; p < last.rgb.size(); p += 3) {
    drawn += !(last.rgb[p] == 255 && last.rgb[p + 1] == 255 && last.rgb[p + 2] == 255);
  }
  EXPECT_GT(drawn, 20u) << "the landed pour's contacts show";
#if defined(GRANRAY_MPIEXEC)
  for (const int ranks : {2, 3}) {
    const std::string out = dir + "/ranks" + std::to_string(ranks) + "_*.png";
    const Result many = run_command(mpirun_prefix(ranks) + GRANRAY_DEM_EXE + " " + settings +
                                    " --set 'insitu.png=\"" + out + "\"'");
    ASSERT_EQ(many.status, 0) << many.output;
    EXPECT_NE(many.output.find("3 written, 0 failed"), std::string::npos) << many.output;
    for (const char* step : {"00000000", "00003000", "00006000"}) {
      const Image one = io::read_png(dir + "/net_" + step + ".png");
      const Image split =
          io::read_png(dir + "/ranks" + std::to_string(ranks) + "_" + step + ".png");
      EXPECT_EQ(one.rgb, split.rgb) << ranks << " ranks, step " << step;
    }
  }
#endif
}

// The pour on 2 or 3 ranks (slabs, ghosts, migration, compositing) draws the very frames of
// one rank: the contacts are summed in the same order on any rank count.
TEST(Demo, UnderMpirunTheFramesEqualOneRanks) {
#if !defined(GRANRAY_MPIEXEC)
  GTEST_SKIP() << "built without MPI";
#else
  Rng rng(fresh_seed());
  const std::string dir = temp_path("demo-mpi-" + std::to_string(fresh_seed()));
  const std::string settings =
      " --set simulation.particles=600 --set simulation.steps=1200 --set simulation.seed=" +
      std::to_string(rng() % 100000) +
      " --set simulation.box=[0.1,0.1,0.2] --set simulation.pour_width=0.7"
      " --set 'simulation.backend=\"cpu\"' --set insitu.every=600 --set insitu.width=96"
      " --set insitu.height=72 --set 'insitu.backend=\"cpu\"'";
  const Result one = run_dem(settings + " --set 'insitu.png=\"" + dir +
                             "/one_*.png\"' --set 'insitu.output=\"" + dir + "/one.h5\"'");
  ASSERT_EQ(one.status, 0) << one.output;
  const int ranks = 2 + static_cast<int>(rng() % 2);
  const Result many =
      run_command(mpirun_prefix(ranks) + GRANRAY_DEM_EXE + settings + " --set 'insitu.png=\"" +
                  dir + "/many_*.png\"' --set 'insitu.output=\"" + dir + "/many.h5\"'");
  ASSERT_EQ(many.status, 0) << many.output;
  EXPECT_NE(many.output.find(std::to_string(ranks) + " ranks, slabs along x"), std::string::npos)
      << many.output;
  EXPECT_NE(many.output.find("3 written, 0 failed"), std::string::npos) << many.output;
  // The closing medians are those of the frames after the first, stage by stage, and the
  // fastest rank is never slower than the slowest. The first stage is named for the method that
  // ran: the CPU's tiles for a scene this small.
  EXPECT_NE(many.output.find("particles, tiles "), std::string::npos) << many.output;
  for (const char* stage : {"tiles ", ", render ", ", composite ", ", output ", ", frame "}) {
    const std::vector<double> frames = values_on_lines(many.output, "frame step", stage);
    const std::vector<double> median =
        values_on_lines(many.output, "granray-dem: per frame, median of 2 after the first", stage);
    ASSERT_EQ(frames.size(), 3u) << stage << many.output;
    ASSERT_EQ(median.size(), 1u) << stage << many.output;
    EXPECT_NEAR(median[0], 0.5 * (frames[1] + frames[2]), 0.011) << stage << many.output;
  }
  std::istringstream lines(many.output);
  int spreads = 0;
  for (std::string line; std::getline(lines, line);) {
    const std::size_t at = line.find("tiles+render over ranks ");
    if (line.rfind("frame step", 0) != 0 || at == std::string::npos) continue;
    std::size_t used = 0;
    const std::string range = line.substr(at + 24);
    const double fastest = std::stod(range, &used);
    ASSERT_EQ(range.at(used), '-') << line;
    EXPECT_LE(fastest, std::stod(range.substr(used + 1))) << line;
    const int slowest_rank = std::stoi(line.substr(line.find("(slowest rank ") + 14));
    EXPECT_TRUE(slowest_rank >= 0 && slowest_rank < ranks) << line;
    ++spreads;
  }
  EXPECT_EQ(spreads, 3) << many.output;
  EXPECT_NE(many.output.find("ms/step over ranks"), std::string::npos) << many.output;
  for (const char* step : {"00000000", "00000600", "00001200"}) {
    EXPECT_EQ(io::read_png(dir + "/many_" + step + ".png").rgb,
              io::read_png(dir + "/one_" + step + ".png").rgb)
        << "step " << step << " on " << ranks << " ranks";
  }
#endif
}

// --grains-out leaves the run's last state, which granray-render draws into the very frame the
// DEM drew in situ at that step: same grains, ids (the file is in id order) and speeds.
TEST(Demo, TheLastGrainsRenderOfflineAsTheLastFrame) {
  const std::string dir = temp_path("grains-out-" + std::to_string(fresh_seed()));
  std::filesystem::create_directories(dir);
  const std::string input = dir + "/pour.toml";
  std::ofstream(input)
      << "[simulation]\nparticles = 400\nsteps = 300\nbox = [0.1, 0.1, 0.2]\n"
         "backend = \"cpu\"\nseed = "
      << fresh_seed() % 1000 + 1
      << "\n[insitu]\nevery = 300\nwidth = 96\nheight = 72\n"
         "png = \"" +
             dir +
             "/step_*.png\"\noutput = \"\"\nbackend = \"cpu\"\n"
             "[insitu.camera]\nposition = [0.3, -0.25, 0.2]\ntarget = [0.05, 0.05, "
             "0.03]\n[insitu.shading]\nshadows = true\nao_samples = 4\n"
             "[[insitu.walls]]\ntype = \"box\"\nmin = [0.0, 0.0, 0.0]\n"
             "max = [0.1, 0.1, 0.2]\n[insitu.color]\nfield = \"speed\"\n"
             "range = [0.0, 0.5]\n";
  const std::string grains = dir + "/end.xyzr";
  Result r = run_dem(input + " --grains-out " + grains);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(grains);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("# x y z r speed", 0), 0u) << line;
  int count = 0;
  for (double x, y, z, radius, speed; in >> x >> y >> z >> radius >> speed; ++count) {
    EXPECT_TRUE(x > 0.0 && x < 0.1 && y > 0.0 && y < 0.1 && z > 0.0 && z < 0.2)
        << x << " " << y << " " << z;
    EXPECT_TRUE(radius >= 2.5e-3 && radius <= 3.0e-3) << radius;
    EXPECT_GE(speed, 0.0);
  }
  EXPECT_EQ(count, 400);

  r = run_command(std::string(GRANRAY_RENDER_EXE) + " --config " + input + " " + grains +
                  " --out " + dir + "/offline.png");
  ASSERT_EQ(r.status, 0) << r.output;
  const Image insitu = io::read_png(dir + "/step_00000300.png");
  const Image offline = io::read_png(dir + "/offline.png");
  ASSERT_EQ(offline.width, insitu.width);
  ASSERT_EQ(offline.height, insitu.height);
  EXPECT_TRUE(offline.rgb == insitu.rgb);

  r = run_dem(input + " --grains-out " + dir + "/no-such-dir/end.xyzr");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no-such-dir/end.xyzr"), std::string::npos) << r.output;
}

TEST(Demo, InputErrorsNameKeyAndLine) {
  const std::string input = temp_path("bad-pour.toml");
  std::ofstream(input) << "[simulation]\nparticles = 100\ndt = 0.5\n";
  Result r = run_dem(input);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("bad-pour.toml:3: key 'simulation.dt'"), std::string::npos) << r.output;

  r = run_dem("--set insitu.colour=1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("insitu.colour"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace granray::test
