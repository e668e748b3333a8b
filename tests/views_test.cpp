// contract 2f, [[insitu.views]]: further cameras of every frame. Each view is exactly what a run
// with that camera alone renders, in its PNG ({view}) and in /views/NAME of the HDF5 file; the
// views' keys are checked like every other table's.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "granray/adapters/buffers.h"
#include "granray/errors.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/image_file.h"
#include "h5_read.h"
#include "test_support.h"

namespace granray::test {
namespace {

void expect_views_error(const std::string& toml, const std::string& fragment) {
  expect_config_error(toml, {fragment, "sim.toml:"});
}

TEST(Views, TakeTheMainCamerasKeysUnderTheirOwn) {
  const InsituConfig c = parse_insitu_config(
      "[insitu]\npng = \"f/{view}_*.png\"\n[insitu.camera]\nfov = 40.0\ntheta = 20.0\n"
      "[[insitu.views]]\nname = \"side\"\ntheta = 90.0\n"
      "[[insitu.views]]\nname = \"ortho-2\"\nprojection = \"orthographic\"\nzoom = 2.0\n",
      "sim.toml");
  ASSERT_EQ(c.views.size(), 2u);
  EXPECT_EQ(c.views[0].name, "side");
  EXPECT_FLOAT_EQ(c.views[0].camera.theta, 90.0f);
  EXPECT_FLOAT_EQ(c.views[0].camera.fov, 40.0f);  // from [insitu.camera]
  EXPECT_EQ(c.views[1].camera.projection, Projection::orthographic);
  EXPECT_FLOAT_EQ(c.views[1].camera.theta, 20.0f);
  EXPECT_FLOAT_EQ(c.views[1].camera.zoom, 2.0f);
  EXPECT_FLOAT_EQ(c.render.camera.zoom, 1.0f);  // the main camera keeps its own
}

TEST(Views, MistakesNameTheKeyAndTheLine) {
  const std::string head = "[insitu]\npng = \"{view}_*.png\"\n";
  expect_views_error(head + "[[insitu.views]]\ntheta = 3.0\n", "insitu.views[0].name");
  expect_views_error(head + "[[insitu.views]]\nname = \"a\"\n[[insitu.views]]\nname = \"a\"\n",
                     "\"a\" names two views");
  expect_views_error(head + "[[insitu.views]]\nname = \"main\"\n", "[insitu.camera]'s view");
  expect_views_error(head + "[[insitu.views]]\nname = \"a/b\"\n", "letters, digits");
  expect_views_error(head + "[[insitu.views]]\nname = \"a\"\nfov = 200.0\n", "insitu.views[0].fov");
  expect_views_error(head + "[[insitu.views]]\nname = \"a\"\nlight = 1.0\n", "light");
  expect_views_error("[insitu]\npng = \"f_*.png\"\n[[insitu.views]]\nname = \"a\"\n", "{view}");
  expect_views_error("[insitu]\nviews = 3\n", "array of tables");
}

class ViewsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rng_.seed(fresh_seed());
    grains_ = dense_bed(rng_, 400, 0.3f, 0.5f);
    dir_ = temp_path("views-" + std::to_string(fresh_seed()));
    std::filesystem::create_directories(dir_);
  }
  // A random camera's keys in TOML.
  std::string random_camera_keys() {
    std::string keys = "theta = " + std::to_string(uniform(rng_, 5.0f, 175.0f)) + "\n" +
                       "phi = " + std::to_string(uniform(rng_, -180.0f, 180.0f)) + "\n" +
                       "zoom = " + std::to_string(uniform(rng_, 0.6f, 1.6f)) + "\n";
    if (rng_() % 3 == 0) keys += "projection = \"orthographic\"\n";
    return keys;
  }
  Rng rng_;
  std::vector<Vec4> grains_;
  std::string dir_;
};

// Each view is the frame a renderer draws with that camera; the main view is unchanged; the
// HDF5 file holds every view's image and camera on the frames' axis, and a restart appends only
// to a file with the same views.
TEST_F(ViewsTest, EachViewIsARunWithItsCamera) {
  const bool lit = rng_() % 2 == 0;
  std::string toml = "[insitu]\nevery = 1\nwidth = " + std::to_string(40 + rng_() % 40) +
                     "\nheight = " + std::to_string(30 + rng_() % 30) +
                     "\nbackend = \"cpu\"\npng = \"" + dir_ + "/{view}_*.png\"\noutput = \"" +
                     dir_ + "/frames.h5\"\n";
  if (lit) toml += "[insitu.shading]\nshadows = true\nao_samples = 3\nsamples = 4\n";
  const int view_count = 1 + static_cast<int>(rng_() % 3);
  for (int k = 0; k < view_count; ++k) {
    toml += "[[insitu.views]]\nname = \"v" + std::to_string(k) + "\"\n" + random_camera_keys();
  }
  const InsituConfig config = parse_insitu_config(toml, "sim.toml");
  ASSERT_EQ(config.views.size(), std::size_t(view_count));
  {
    InsituRenderer vis(config, {});
    for (int step = 0; step < 2; ++step) {
      const FrameRecord& f =
          vis.render(step, 0.1 * step, adapters::host_particles(grains_.data(), grains_.size()));
      ASSERT_TRUE(f.rendered) << f.error;
    }
    vis.finish();
    EXPECT_EQ(vis.counters().written, 2u);
  }
  ParticleView view;
  view.xyzr = grains_.data();
  view.count = grains_.size();
  Renderer renderer(BackendKind::cpu);
  H5File h5(dir_ + "/frames.h5");
  ASSERT_GE(h5.id, 0);
  for (int k = -1; k < view_count; ++k) {
    const std::string name = k < 0 ? "main" : "v" + std::to_string(k);
    RenderSettings settings = config.render;
    if (k >= 0) settings.camera = config.views[std::size_t(k)].camera;
    Image direct;
    const FrameStats stats = renderer.render(view, settings, direct);
    const Image png = io::read_png(dir_ + "/" + name + "_00000001.png");
    EXPECT_EQ(png.rgb, direct.rgb) << name << (lit ? ", lit" : ", unlit");
    if (k < 0) continue;
    const std::string group = "/views/" + name;
    EXPECT_EQ(dims_of(h5.id, (group + "/rgb").c_str()),
              (std::vector<hsize_t>{2, hsize_t(direct.height), hsize_t(direct.width), 3}));
    const auto rgb = read_all<std::uint8_t>(h5.id, (group + "/rgb").c_str(), H5T_NATIVE_UINT8);
    EXPECT_TRUE(std::equal(direct.rgb.begin(), direct.rgb.end(), rgb.begin() + direct.rgb.size()))
        << name << ": the second frame in /views differs from the PNG";
    const auto eye = read_all<float>(h5.id, (group + "/camera_eye").c_str(), H5T_NATIVE_FLOAT);
    ASSERT_EQ(eye.size(), 6u);
    EXPECT_EQ(eye[3], stats.camera.eye.x);
    EXPECT_EQ(eye[4], stats.camera.eye.y);
    EXPECT_EQ(eye[5], stats.camera.eye.z);
  }
  H5Fclose(h5.id);
  h5.id = -1;
  {
    InsituRenderer again(config, {});  // the same views: appends
    ASSERT_TRUE(
        again.render(2, 0.2, adapters::host_particles(grains_.data(), grains_.size())).rendered);
  }
  H5File appended(dir_ + "/frames.h5");
  EXPECT_EQ(dims_of(appended.id, "/views/v0/rgb")[0], 3u);
  H5Fclose(appended.id);
  appended.id = -1;
  InsituConfig other = config;
  other.views.back().name = "elsewhere";
  EXPECT_THROW(InsituRenderer(other, {}), ConfigError);
}

// granray-render: each snapshot's views are the files that runs with their cameras alone write,
// on one rank and composited over two.
TEST_F(ViewsTest, RenderToolWritesEachViewAsARunWithItsCamera) {
  const std::string dump = dir_ + "/bed.xyzr";
  {
    std::ofstream out(dump);
    for (const Vec4& g : grains_) out << g.x << " " << g.y << " " << g.z << " " << g.w << "\n";
  }
  const std::string keys = random_camera_keys();
  std::string view_keys;  // the same keys as --set view overrides: "theta=..., phi=..."
  for (std::size_t at = 0; at < keys.size();) {
    const std::size_t end = keys.find('\n', at);
    view_keys += ", " + keys.substr(at, end - at);
    at = end + 1;
  }
  const std::string settings = " --set width=" + std::to_string(40 + rng_() % 40) +
                               " --set height=" + std::to_string(30 + rng_() % 30) +
                               " --set 'backend=\"cpu\"' --set shading.shadows=true ";
  const std::string tool = std::string(GRANRAY_RENDER_EXE) + " " + dump + settings;
  CommandResult r = run_command(tool + "--set 'views=[{name=\"v\"" + view_keys + "}]' --out '" +
                                dir_ + "/{view}_*.ppm'");
  ASSERT_EQ(r.status, 0) << r.output;
  std::string alone_keys;
  for (std::size_t at = 0; at < keys.size();) {
    const std::size_t end = keys.find('\n', at);
    alone_keys += " --set 'camera." + keys.substr(at, end - at) + "'";
    at = end + 1;
  }
  r = run_command(tool + alone_keys + " --out '" + dir_ + "/alone_*.ppm'");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_FALSE(bytes(dir_ + "/v_0.ppm").empty());
  EXPECT_EQ(bytes(dir_ + "/v_0.ppm"), bytes(dir_ + "/alone_0.ppm")) << keys;
  EXPECT_NE(bytes(dir_ + "/main_0.ppm"), bytes(dir_ + "/v_0.ppm"));
#if defined(GRANRAY_MPIEXEC)
  r = run_command(mpirun_prefix(2) + tool + "--set 'views=[{name=\"v\"" + view_keys +
                  "}]' --out '" + dir_ + "/two_{view}_*.ppm'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(bytes(dir_ + "/two_v_0.ppm"), bytes(dir_ + "/alone_0.ppm")) << keys;
  EXPECT_EQ(bytes(dir_ + "/two_main_0.ppm"), bytes(dir_ + "/main_0.ppm"));
#endif
}

TEST(Views, AnOrbitIsARingOfNamedViews) {
  const InsituConfig c = parse_insitu_config(
      "[insitu]\n[insitu.camera]\nfov = 25.0\nposition = [1, 2, 3]\n"
      "[insitu.orbit]\ntheta = [45.0, 90.0, 22.5]\nphi_count = 4\ncinema = \"run.cdb\"\n",
      "sim.toml");
  ASSERT_TRUE(c.orbit);
  ASSERT_EQ(c.views.size(), 12u);
  EXPECT_EQ(c.views[0].name, "orbit_t45_p0");
  EXPECT_EQ(c.views[11].name, "orbit_t22p5_p270");
  for (const ViewSettings& v : c.views) {
    EXPECT_TRUE(v.orbit);
    EXPECT_FALSE(v.camera.position) << "an orbit looks from a direction (the auto camera)";
    EXPECT_FLOAT_EQ(v.camera.fov, 25.0f);
  }
  EXPECT_FLOAT_EQ(c.views[5].camera.theta, 90.0f);
  EXPECT_FLOAT_EQ(c.views[5].camera.phi, 90.0f);
  expect_views_error("[insitu]\n[insitu.orbit]\nphi_count = 4\n", "insitu.orbit.theta");
  expect_views_error("[insitu]\n[insitu.orbit]\ntheta = [1.0]\nphi_count = 0\n", "1..360");
  expect_views_error("[insitu]\n[insitu.orbit]\ntheta = [1.0]\nphi_count = 2\ncinema = \"x\"\n",
                     ".cdb");
  expect_views_error("[insitu]\n[insitu.orbit]\ntheta = [1.0]\nphi_count = 2\nradius = 2\n",
                     "radius");
}

// A Cinema database (spec D): data.csv's columns, a row per frame and angle, every FILE there and
// the image a renderer draws from that angle; a row cut short by a kill is dropped on restart.
TEST_F(ViewsTest, TheOrbitsCinemaDatabaseHoldsEveryFrameAndAngle) {
  const std::string cdb = dir_ + "/run.cdb";
  const int phi_count = 2 + static_cast<int>(rng_() % 3);
  const InsituConfig config = parse_insitu_config(
      "[insitu]\nevery = 1\nwidth = 40\nheight = 30\nbackend = \"cpu\"\n[insitu.orbit]\n"
      "theta = [" +
          std::to_string(uniform(rng_, 10.0f, 80.0f)) +
          ", 100.0]\nphi_count = " + std::to_string(phi_count) + "\ncinema = \"" + cdb + "\"\n",
      "sim.toml");
  const auto render_frames = [&](std::initializer_list<std::int64_t> steps) {
    InsituRenderer vis(config, {});
    for (const std::int64_t step : steps) {
      ASSERT_TRUE(vis.render(step, 0.5 * static_cast<double>(step),
                             adapters::host_particles(grains_.data(), grains_.size()))
                      .rendered);
    }
  };
  render_frames({0, 7});
  {
    std::ofstream cut(cdb + "/data.csv", std::ios::app);
    cut << "3.5,7,10";  // a row a kill cut short
  }
  render_frames({9});
  std::ifstream csv(cdb + "/data.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_EQ(line, "time,step,theta,phi,FILE");
  ParticleView view;
  view.xyzr = grains_.data();
  view.count = grains_.size();
  Renderer renderer(BackendKind::cpu);
  int rows = 0;
  std::vector<std::int64_t> steps;
  while (std::getline(csv, line)) {
    std::istringstream row(line);
    std::string time, step, theta, phi, file;
    ASSERT_TRUE(std::getline(row, time, ',') && std::getline(row, step, ',') &&
                std::getline(row, theta, ',') && std::getline(row, phi, ',') &&
                std::getline(row, file))
        << line;
    EXPECT_DOUBLE_EQ(std::stod(time), 0.5 * std::stod(step)) << line;
    RenderSettings settings = config.render;
    settings.camera.theta = std::stof(theta);
    settings.camera.phi = std::stof(phi);
    Image direct;
    renderer.render(view, settings, direct);
    ASSERT_TRUE(std::filesystem::exists(cdb + "/" + file)) << line;
    EXPECT_EQ(io::read_png(cdb + "/" + file).rgb, direct.rgb) << line;
    steps.push_back(std::stoll(step));
    ++rows;
  }
  EXPECT_EQ(rows, 3 * 2 * phi_count);
  std::size_t on_disk = 0;  // the rows list exactly the images there
  for (const auto& entry : std::filesystem::directory_iterator(cdb + "/images")) {
    on_disk += entry.path().extension() == ".png";
  }
  EXPECT_EQ(on_disk, std::size_t(rows)) << "images without rows, or rows without images";
  EXPECT_EQ(std::count(steps.begin(), steps.end(), 7), 2 * phi_count);
  EXPECT_EQ(std::count(steps.begin(), steps.end(), 9), 2 * phi_count);
}

// A run killed at a random moment (SIGKILL, in the middle of frames) leaves a database that opens
// as it is: every row whole, every image it names there and whole.
TEST_F(ViewsTest, AKilledRunLeavesAValidCinemaDatabase) {
  const std::string cdb = dir_ + "/killed.cdb";
  const double seconds = uniform(rng_, 1.0f, 2.0f);
  const std::string command =
      "cd '" + dir_ + "' && timeout -s KILL " + std::to_string(seconds) + " " + GRANRAY_DEM_EXE +
      " --set simulation.particles=300 --set simulation.steps=100000 --set insitu.every=10"
      " --set insitu.width=48 --set insitu.height=36 --set 'insitu.png=\"\"'"
      " --set 'insitu.output=\"\"' --set 'insitu.backend=\"cpu\"'"
      " --set 'insitu.orbit={theta=[60.0], phi_count=3, cinema=\"" +
      cdb + "\"}' > /dev/null 2>&1";
  const CommandResult r = run_command(command);
  ASSERT_NE(r.status, 0) << "the run ended before the kill: " << r.output;
  std::ifstream in(cdb + "/data.csv", std::ios::binary);
  ASSERT_TRUE(in) << "no database after the kill";
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n') << "a row cut short";
  std::istringstream rows(text);
  std::string line;
  std::getline(rows, line);
  EXPECT_EQ(line, "time,step,theta,phi,FILE");
  int count = 0;
  while (std::getline(rows, line)) {
    const std::string file = line.substr(line.rfind(',') + 1);
    EXPECT_NO_THROW(io::read_png(cdb + "/" + file)) << line;
    ++count;
  }
  EXPECT_EQ(count % 3, 0) << "a frame's rows are appended together";
  std::cout << count / 3 << " frames in the database after " << seconds << " s\n";
}

}  // namespace
}  // namespace granray::test
