// The in-situ plugin: intervals, colour fields, PNG frames, and failures that never reach the
// simulation.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>

#include "granray/adapters/buffers.h"
#include "granray/errors.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/annotations.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/hdf5_frame_file.h"
#include "granray/io/image_file.h"
#include "test_support.h"

namespace granray::test {
namespace {

InsituConfig config_of(const std::string& toml, const std::vector<std::string>& overrides = {}) {
  return parse_insitu_config(toml, "sim.toml", overrides);
}

std::vector<std::int64_t> rendered_steps(InsituRenderer& vis, std::int64_t steps, double dt,
                                         const SimulationParticles& particles) {
  std::vector<std::int64_t> out;
  for (std::int64_t step = 0; step <= steps; ++step) {
    const double time = static_cast<double>(step) * dt;
    const bool due = vis.due(step, time);
    const FrameRecord& f = vis.render(step, time, particles);
    EXPECT_EQ(due, f.rendered) << "step " << step;
    if (f.rendered) out.push_back(step);
  }
  return out;
}

class InsituTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Rng rng(fresh_seed());
    grains_ = dense_bed(rng, 300, 0.3f, 0.5f);
    speed_.resize(grains_.size());
    for (auto& s : speed_) s = uniform(rng, 0.0f, 3.0f);
  }
  // The frame of `step` from these particles, written before it returns.
  const FrameRecord& written_frame(InsituRenderer& vis, std::int64_t step, double time) const {
    const FrameRecord& f = vis.render(step, time, particles());
    EXPECT_TRUE(f.rendered) << f.error;
    vis.finish();
    return f;
  }
  // The frame the renderer makes of these particles, coloured by speed, with `settings`.
  Image direct_frame(const RenderSettings& settings, FrameStats* stats = nullptr) const {
    ParticleView view = particles().view;
    view.scalar = speed_.data();
    Image image;
    const FrameStats s = Renderer(BackendKind::cpu).render(view, settings, image);
    if (stats != nullptr) *stats = s;
    return image;
  }
  SimulationParticles particles() const {
    return adapters::host_particles(grains_.data(), grains_.size())
        .with_field("speed", speed_.data());
  }
  std::vector<Vec4> grains_;
  std::vector<float> speed_;
};

TEST_F(InsituTest, EveryStepsIncludesStepZeroAndTheLast) {
  InsituRenderer vis(
      config_of("[insitu]\nevery = 100\nwidth = 32\nheight = 24\nbackend = \"cpu\"\n"), {});
  EXPECT_EQ(rendered_steps(vis, 400, 1e-3, particles()),
            (std::vector<std::int64_t>{0, 100, 200, 300, 400}));
  EXPECT_EQ(vis.counters().rendered, 5u);
}

TEST_F(InsituTest, EveryTimeRendersTheFirstStepAtOrPastEachMultiple) {
  Rng rng(fresh_seed());
  const double dt = uniform(rng, 0.003f, 0.007f);
  const double every_time = 0.05;
  InsituRenderer vis(
      config_of("[insitu]\nevery_time = 0.05\nwidth = 16\nheight = 16\nbackend = \"cpu\"\n"), {});
  const auto got = rendered_steps(vis, 100, dt, particles());
  std::vector<std::int64_t> expected;
  double mark = 0.0;
  for (std::int64_t step = 0; step <= 100; ++step) {
    if (step * dt >= mark - 1e-12) {
      expected.push_back(step);
      while (mark <= step * dt + 1e-12) mark += every_time;
    }
  }
  EXPECT_EQ(got, expected) << "dt = " << dt;
}

TEST_F(InsituTest, EveryAndEveryTimeTogether) {
  InsituRenderer vis(
      config_of(
          "[insitu]\nevery = 7\nevery_time = 0.25\nwidth = 16\nheight = 16\nbackend = \"cpu\"\n"),
      {});
  const auto got = rendered_steps(vis, 30, 0.1, particles());
  // Multiples of 7, plus the steps at t = 0.3 (first >= 0.25), 0.5, 0.8 (first >= 0.75), 1.0, ...
  EXPECT_EQ(got,
            (std::vector<std::int64_t>{0, 3, 5, 7, 8, 10, 13, 14, 15, 18, 20, 21, 23, 25, 28, 30}));
}

TEST_F(InsituTest, OffRendersNothing) {
  InsituRenderer vis(config_of("[insitu]\nbackend = \"cpu\"\n"), {});
  EXPECT_TRUE(rendered_steps(vis, 50, 0.1, particles()).empty());
}

TEST_F(InsituTest, PngFramesEqualTheRenderer) {
  const std::string dir = temp_path("frames-" + std::to_string(fresh_seed()));
  InsituRenderer vis(config_of("[insitu]\nevery = 5\nwidth = 48\nheight = 32\nbackend = \"cpu\"\n"
                               "[insitu.color]\nfield = \"speed\"\nrange = \"auto\"\n",
                               {"png=\"" + dir + "/step_*.png\""}),
                     {"speed"});
  const FrameRecord& f = written_frame(vis, 10, 1.0);
  EXPECT_EQ(f.png_path, dir + "/step_00000010.png");
  EXPECT_EQ(io::read_png(f.png_path).rgb, direct_frame(vis.config().render).rgb);
  EXPECT_TRUE(f.stats.colored);
}

// [insitu.annotations]: the written frame is the rendered one with the overlays drawn on it, as
// io::draw_annotations draws them with the frame's step, time, count and colour range.
TEST_F(InsituTest, WrittenFramesCarryTheirAnnotations) {
  const std::string dir = temp_path("annotated-" + std::to_string(fresh_seed()));
  InsituRenderer vis(
      config_of("[insitu]\nevery = 5\nwidth = 320\nheight = 200\nbackend = \"cpu\"\n"
                "[insitu.color]\nfield = \"speed\"\nrange = \"auto\"\n"
                "[insitu.annotations]\ncolor_bar = true\nlabel = \"step {step} t={time:.2f}\"\n",
                {"png=\"" + dir + "/step_*.png\""}),
      {"speed"});
  const FrameRecord& f = written_frame(vis, 10, 1.25);
  const Image written = io::read_png(f.png_path);
  FrameStats stats;
  Image expected = direct_frame(vis.config().render, &stats);
  const Image plain = expected;
  io::AnnotationValues v;
  v.step = 10;
  v.time = 1.25;
  v.particles = stats.particles;
  v.colored = stats.colored;
  v.lo = stats.color_lo;
  v.hi = stats.color_hi;
  v.colormap = vis.config().render.color->colormap;
  v.field = "speed";
  v.background = vis.config().render.shading.background;
  const std::string why = io::draw_annotations(expected, vis.config().annotations, v);
  if (!why.empty()) GTEST_SKIP() << why;
  EXPECT_EQ(written.rgb, expected.rgb);
  EXPECT_NE(written.rgb, plain.rgb) << "the overlays changed the frame";
}

TEST_F(InsituTest, ConstructionRejectsBadSettings) {
  EXPECT_THROW(InsituRenderer(config_of("[insitu.color]\nfield = \"pressure\"\n"), {"speed"}),
               ConfigError);
  try {
    InsituRenderer(config_of("[insitu.color]\nfield = \"pressure\"\n"), {"speed"});
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("insitu.color.field"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("speed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(config_of("[insitu]\nevery = -5\n"), ConfigError);
  EXPECT_THROW(config_of("[insitu]\nwidth = 0\n"), ConfigError);
  EXPECT_THROW(config_of("[insitu.camera]\nfov = 190\n"), ConfigError);
  EXPECT_THROW(config_of("[insitu.color]\nfield = \"speed\"\ncolormap = \"rainbow\"\n"),
               ConfigError);
  // A PNG directory that cannot exist (its parent is a file).
  const std::string file = temp_path("plain-file");
  std::ofstream(file) << "x";
  EXPECT_THROW(InsituRenderer(config_of("", {"png=\"" + file + "/sub/f_*.png\""}), {}),
               ConfigError);
}

// [insitu.select] in situ: the field must be one the simulation offers; a range that keeps no
// grain renders background frames and warns once, not at every frame.
TEST_F(InsituTest, SelectionByASimulationField) {
  const std::string base = "[insitu]\nevery = 1\nwidth = 24\nheight = 16\nbackend = \"cpu\"\n";
  try {
    InsituRenderer(config_of(base + "[insitu.select]\nfield = \"type\"\nrange = [1, 1]\n"),
                   {"speed"});
    FAIL() << "a field the simulation does not offer";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("insitu.select.field"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("speed"), std::string::npos) << e.what();
  }
  const float top = *std::max_element(speed_.begin(), speed_.end());
  InsituRenderer vis(config_of(base + "[insitu.select]\nfield = \"speed\"\nrange = [" +
                               std::to_string(top + 1.0f) + ", 1e9]\n"),
                     {"speed"});
  std::vector<std::string> log;
  vis.set_logger([&](const std::string& line) { log.push_back(line); });
  for (int step = 0; step < 3; ++step) vis.render(step, 0.1 * step, particles());
  EXPECT_TRUE(vis.last_frame().rendered);
  EXPECT_EQ(vis.last_frame().stats.hidden, grains_.size());
  ASSERT_EQ(log.size(), 1u) << "one warning";
  EXPECT_NE(log[0].find("keeps none"), std::string::npos) << log[0];
  // A range that keeps some grains draws them and hides the rest.
  InsituRenderer some(config_of(base + "[insitu.select]\nfield = \"speed\"\nrange = [-1, " +
                                std::to_string(top / 2) + "]\n"),
                      {"speed"});
  some.render(0, 0.0, particles());
  std::size_t kept = 0;
  for (const float v : speed_) kept += v <= top / 2;
  EXPECT_EQ(some.last_frame().stats.hidden, grains_.size() - kept);
}

// [[insitu.materials]] field in situ: the grains coloured by one field of the simulation and
// made of steel by another and of glass by a third, each read from the simulation's own buffer;
// the frame is the renderer's with the three values passed. A field the simulation does not
// offer is refused up front, naming the material's key; one it stops passing skips the frame
// with the reason.
TEST_F(InsituTest, MaterialsBySimulationFieldsOfTheirOwn) {
  Rng rng(fresh_seed());
  std::vector<float> type(grains_.size()), phase(grains_.size());
  for (float& t : type) t = float(rng() % 3);
  for (float& p : phase) p = float(rng() % 3);
  const std::string dir = temp_path("materials-field-" + std::to_string(fresh_seed()));
  const std::string toml =
      "[insitu]\nevery = 1\nwidth = 40\nheight = 30\nbackend = \"cpu\"\npng = \"" + dir +
      "/f_*.png\"\n[insitu.color]\nfield = \"speed\"\n[insitu.shading]\nbounces = 2\n"
      "[[insitu.materials]]\nname = \"steel\"\ntype = \"metal\"\nreflectance = 0.8\n"
      "field = \"type\"\nrange = [1, 1]\n"
      "[[insitu.materials]]\nname = \"glass\"\ntype = \"glass\"\nfield = \"phase\"\n"
      "range = [2, 2]\n";
  for (const auto& [offered, key] :
       {std::pair<std::vector<std::string>, std::string>{{"speed", "phase"}, "materials[0].field"},
        {{"speed", "type"}, "materials[1].field"}}) {
    try {
      InsituRenderer(config_of(toml), offered);
      FAIL() << "a field the simulation does not offer";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
  InsituRenderer vis(config_of(toml), {"speed", "type", "phase"});
  const FrameRecord& f = vis.render(
      0, 0.0, particles().with_field("type", type.data()).with_field("phase", phase.data()));
  ASSERT_TRUE(f.rendered) << f.error;
  vis.finish();
  ParticleView view = view_of(grains_);
  view.scalar = speed_.data();
  view.material_values[0] = type.data();
  view.material_values[1] = phase.data();
  Renderer renderer(BackendKind::cpu);
  Image direct;
  renderer.render(view, vis.config().render, direct);
  EXPECT_EQ(io::read_png(f.png_path).rgb, direct.rgb);
  const FrameRecord& skipped = vis.render(1, 0.1, particles().with_field("phase", phase.data()));
  EXPECT_FALSE(skipped.rendered);
  EXPECT_NE(skipped.error.find("\"type\" was not passed"), std::string::npos) << skipped.error;
}

TEST_F(InsituTest, FailuresSkipTheFrameAndTheNextOneRenders) {
  const std::string dir = temp_path("vanishing-" + std::to_string(fresh_seed()));
  InsituRenderer vis(config_of("[insitu]\nevery = 1\nwidth = 16\nheight = 16\nbackend = \"cpu\"\n",
                               {"png=\"" + dir + "/f_*.png\""}),
                     {});
  std::vector<std::string> log;
  vis.set_logger([&](const std::string& line) { log.push_back(line); });

  // A broken buffer: a count without data.
  SimulationParticles broken = particles();
  broken.view.xyzr = nullptr;
  EXPECT_NO_THROW(vis.render(0, 0.0, broken));
  EXPECT_FALSE(vis.last_frame().rendered);
  // The output directory disappears (a full or unmounted disk looks the same to the writer):
  // the frame renders, but its PNG is lost on the writer thread.
  std::filesystem::remove_all(dir);
  EXPECT_NO_THROW(vis.render(1, 0.1, particles()));
  EXPECT_TRUE(vis.last_frame().rendered);
  vis.finish();
  // A frame too large to render at all, even in bands: one row needs more than the memory.
  InsituRenderer big(
      config_of("[insitu]\nevery = 1\nwidth = 65536\nheight = 65536\nbackend = \"cpu\"\n"), {});
  big.set_logger([&](const std::string& line) { log.push_back(line); });
  big.set_memory_limit(std::size_t{64} << 10);
  EXPECT_NO_THROW(big.render(0, 0.0, particles()));
  EXPECT_FALSE(big.last_frame().rendered);

  // Each failure was counted and logged with its step, and the next frame renders and is written.
  EXPECT_EQ(vis.counters().failed, 1u);
  EXPECT_EQ(vis.counters().lost, 1u);
  ASSERT_EQ(log.size(), 3u);
  EXPECT_NE(log[0].find("step 0 skipped"), std::string::npos) << log[0];
  EXPECT_NE(log[1].find("step 1 lost"), std::string::npos) << log[1];
  EXPECT_NE(log[1].find(dir), std::string::npos) << log[1];
  std::filesystem::create_directories(dir);
  const FrameRecord& ok = vis.render(2, 0.2, particles());
  EXPECT_TRUE(ok.rendered) << ok.error;
  vis.finish();
  EXPECT_TRUE(std::filesystem::exists(dir + "/f_00000002.png"));
  EXPECT_EQ(vis.counters().rendered, 2u);
  EXPECT_EQ(vis.counters().written, 1u);
}

// Moving walls (contract 2b): the simulation moves a named wall with each frame, by a rigid
// transform or by its own triangles; the frame equals the renderer's with the wall where it was
// moved, and a name no wall has skips the frame with a clear reason.
TEST_F(InsituTest, MovingWallsFollowTheSimulation) {
  InsituRenderer vis(config_of("[insitu]\nevery = 1\nwidth = 64\nheight = 48\nbackend = \"cpu\"\n"
                               "[insitu.camera]\nposition = [0, -30, 8]\ntarget = [0, 0, 0]\n"
                               "[[insitu.walls]]\ntype = \"cylinder\"\nname = \"drum\"\n"
                               "base = [0, -2, 0]\naxis = [0, 1, 0]\nradius = 6.0\nheight = 4.0\n"
                               "segments = 12\n"),
                     {});
  const RigidTransform turn = RigidTransform::rotation_about({0, 0, 0}, {0, 1, 0}, 17.0);
  SimulationParticles moved = particles();
  moved.with_wall_transform("drum", turn);
  const FrameRecord& f = vis.render(0, 0.0, moved);
  ASSERT_TRUE(f.rendered) << f.error;
  RenderSettings s = vis.config().render;
  auto walls = std::make_shared<WallList>(*s.walls);
  (*walls)[0].triangles = transformed((*walls)[0].triangles, turn);
  s.walls = walls;
  Image direct, still;
  Renderer(BackendKind::cpu).render(particles().view, s, direct);
  Renderer(BackendKind::cpu).render(particles().view, vis.config().render, still);
  EXPECT_NE(direct.rgb, still.rgb) << "the turn must show";
  // The simulation's own triangles, in host memory, read in place.
  const std::vector<Triangle> own = (*walls)[0].triangles;
  SimulationParticles given = particles();
  given.with_wall_triangles("drum", own.data(), own.size(), MemorySpace::host);
  InsituRenderer vis2(vis.config(), {});
  std::string png = temp_path("drum_" + std::to_string(fresh_seed()) + "_*.png");
  InsituConfig with_png = vis.config();
  with_png.png = png;
  InsituRenderer writes(with_png, {});
  ASSERT_TRUE(writes.render(3, 0.0, moved).rendered);
  ASSERT_TRUE(writes.render(4, 0.0, given).rendered);
  writes.finish();
  EXPECT_EQ(io::read_png(io::expand_frame_pattern(png, 3, 8)).rgb, direct.rgb);
  EXPECT_EQ(io::read_png(io::expand_frame_pattern(png, 4, 8)).rgb, direct.rgb);
  SimulationParticles unknown = particles();
  unknown.with_wall_transform("piston", turn);
  std::vector<std::string> log;
  vis2.set_logger([&](const std::string& line) { log.push_back(line); });
  EXPECT_FALSE(vis2.render(5, 0.0, unknown).rendered);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("piston"), std::string::npos) << log[0];
}

}  // namespace
}  // namespace granray::test

namespace granray::test {
namespace {

// Faults the simulation must not feel (issue "Hardening"): a full disk that later frees space, a
// frame that does not fit the memory the renderer may use, and hostile particle data. Each frame
// is skipped or lost and recorded, and the next one renders and is written.
TEST_F(InsituTest, AFullDiskLosesFramesUntilSpaceReturns) {
  const std::string dir = temp_path("full-" + std::to_string(fresh_seed()));
  std::filesystem::create_directories(dir);
  InsituRenderer vis(config_of("[insitu]\nevery = 1\nwidth = 24\nheight = 16\nbackend = \"cpu\"\n",
                               {"png=\"" + dir + "/f_*.png\"", "output=\"" + dir + "/f.h5\""}),
                     {});
  std::vector<std::string> log;
  vis.set_logger([&](const std::string& line) { log.push_back(line); });
  const auto run = [&](std::int64_t from, std::int64_t to) {
    for (std::int64_t step = from; step < to; ++step) {
      EXPECT_TRUE(vis.render(step, 0.01 * double(step), particles()).rendered);
    }
    vis.finish();
  };
  run(0, 3);
  // The disk fills up: no file of this process may grow past its size now (RLIMIT_FSIZE; writes
  // fail with EFBIG, as on a full file system with ENOSPC).
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit full = saved;
  full.rlim_cur = 64;  // bytes: no PNG fits, and the HDF5 file may not grow
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &full), 0);
  run(3, 6);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);  // space returns
  run(6, 9);

  const InsituCounters c = vis.counters();
  EXPECT_EQ(c.rendered, 9u) << "the simulation never noticed";
  EXPECT_EQ(c.written, 6u);
  EXPECT_EQ(c.lost, 3u);
  std::size_t lost_lines = 0;
  for (const auto& line : log) lost_lines += line.find(" lost") != std::string::npos;
  EXPECT_EQ(lost_lines, 3u);
  for (const std::int64_t step : {0, 1, 2, 6, 7, 8}) {
    const std::string png = io::expand_frame_pattern(dir + "/f_*.png", step, 8);
    const Image read = io::read_png(png);
    EXPECT_EQ(read.width, 24) << png;
    EXPECT_TRUE(std::any_of(read.rgb.begin(), read.rgb.end(), [](auto v) { return v != 0; }));
  }
  for (const std::int64_t step : {3, 4, 5}) {
    EXPECT_FALSE(std::filesystem::exists(io::expand_frame_pattern(dir + "/f_*.png", step, 8)))
        << "a PNG cut short was left behind at step " << step;
  }
  io::Hdf5Options options;
  options.durable = false;
  EXPECT_EQ(io::Hdf5FrameFile(dir + "/f.h5", 24, 16, "", options).frames(), 6u);
}

// A frame larger than the memory the renderer may use renders in bands of rows (the same PNG as
// without the limit); one whose single row does not fit is skipped, and the next renders.
TEST_F(InsituTest, AFrameLargerThanTheMemoryLimitRendersInBands) {
  const std::string dir = temp_path("banded-" + std::to_string(fresh_seed()));
  const auto config = [&](const std::string& name) {
    return config_of(
        "[insitu]\nevery = 1\nwidth = 400\nheight = 300\nbackend = \"cpu\"\n"
        "png = \"" +
        dir + "/" + name +
        "_*.png\"\n"
        "[insitu.shading]\nshadows = true\nao_samples = 4\nsamples = 4\n"
        "[insitu.annotations]\nlabel = \"step {step}\"\naxes = \"top-right\"\n"
        "[insitu.color]\nfield = \"speed\"\nrange = \"auto\"\n");
  };
  {
    InsituRenderer whole(config("whole"), {"speed"});
    EXPECT_TRUE(whole.render(0, 0.0, particles()).rendered);
    EXPECT_EQ(whole.counters().banded, 0u);
  }
  InsituRenderer vis(config("banded"), {"speed"});
  std::vector<std::string> log;
  vis.set_logger([&](const std::string& line) { log.push_back(line); });
  vis.set_memory_limit(std::size_t{1} << 20);
  EXPECT_TRUE(vis.render(0, 0.0, particles()).rendered) << vis.last_frame().error;
  EXPECT_EQ(vis.counters().banded, 1u);
  vis.set_memory_limit(std::size_t{16} << 10);
  EXPECT_FALSE(vis.render(1, 0.1, particles()).rendered);
  EXPECT_NE(vis.last_frame().error.find("memory"), std::string::npos) << vis.last_frame().error;
  vis.set_memory_limit(std::size_t{1} << 30);
  EXPECT_TRUE(vis.render(2, 0.2, particles()).rendered);
  vis.finish();
  EXPECT_EQ(vis.counters().failed, 1u);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("step 1 skipped"), std::string::npos) << log[0];
  const Image a = io::read_png(dir + "/whole_00000000.png");
  const Image b = io::read_png(dir + "/banded_00000000.png");
  EXPECT_EQ(a.width, b.width);
  EXPECT_TRUE(a.rgb == b.rgb) << "the frame rendered in bands differs from the whole";
  std::filesystem::remove_all(dir);
}

TEST_F(InsituTest, HostileParticleDataIsCountedNeverACrash) {
  Rng rng(fresh_seed());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* name;
    std::vector<Vec4> grains;
    std::uint64_t broken;  // grains the frame must report skipped
  };
  std::vector<Case> cases;
  auto bed = dense_bed(rng, 200, 0.3f, 0.5f);
  auto hostile = bed;
  hostile[3].x = nan;
  hostile[7].w = nan;
  hostile[11].y = inf;
  hostile[13].z = -inf;
  hostile[17].w = -0.2f;
  hostile[19].w = 0.0f;
  hostile[23].w = inf;
  cases.push_back({"NaN, Inf, negative and zero radii", hostile, 7});
  auto huge = bed;
  huge[5].w = 1e30f;
  cases.push_back({"a grain of radius 1e30", huge, 0});
  std::vector<Vec4> one_point(500, Vec4{0.25f, -0.5f, 1.0f, 0.01f});
  cases.push_back({"every grain at one point", one_point, 0});
  cases.push_back({"no grain", {}, 0});
  cases.push_back({"one grain", {Vec4{1.0f, 2.0f, 3.0f, 0.5f}}, 0});
  std::vector<Vec4> all_broken(50, Vec4{nan, 0.0f, 0.0f, 1.0f});
  cases.push_back({"only broken grains", all_broken, 50});

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    InsituRenderer vis(
        config_of("[insitu]\nevery = 1\nwidth = 32\nheight = 24\nbackend = \"cpu\"\n"), {});
    std::vector<std::string> log;
    vis.set_logger([&](const std::string& line) { log.push_back(line); });
    const FrameRecord& f =
        vis.render(0, 0.0, adapters::host_particles(c.grains.data(), c.grains.size()));
    if (f.rendered) {
      EXPECT_EQ(f.stats.particles, c.grains.size());
      EXPECT_EQ(f.stats.skipped, c.broken);
    } else {
      EXPECT_FALSE(f.error.empty());
      EXPECT_EQ(log.size(), 1u);
    }
    // Whatever that frame was, the next one, of a sound bed, renders.
    EXPECT_TRUE(vis.render(1, 0.1, particles()).rendered) << vis.last_frame().error;
  }
}

}  // namespace
}  // namespace granray::test
