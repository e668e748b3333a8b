// granray-render end to end: real files to PNG/PPM, patterns, and clean failures.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "contact_reference.h"
#include "granray/insitu/camera_path.h"
#include "granray/insitu/config.h"
#include "granray/io/contact_file.h"
#include "granray/io/image_file.h"
#include "granray/io/particle_file.h"
#include "granray/io/stl_file.h"
#include "test_support.h"

namespace granray::test {
namespace {

using Result = CommandResult;

Result run_tool(const std::string& args) {
  return run_command(std::string(GRANRAY_RENDER_EXE) + " " + args);
}

TEST(RenderTool, LiggghtsDumpToPngMatchesTheLibrary) {
  const std::string dump = shared_data(kLiggghtsPacking);
  if (dump.empty()) GTEST_SKIP() << "../shared/data not present";
  const std::string out = temp_path("pour_*.png");
  const Result r = run_tool("--set width=320 --set height=240 --set backend='\"cpu\"' " + dump +
                            " --out '" + out + "'");
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

// LIGGGHTS's movingMeshGran tutorial (a cut of its output in tests/data/liggghts-bucket): the
// bucket's `dump mesh/stl` files follow the `dump custom` snapshots through '*', and the frames
// equal the library's render of the same particles and mesh, on one rank and under mpirun.
TEST(RenderTool, MovingMeshFollowsTheSnapshots) {
  const std::string dir = std::string(GRANRAY_SOURCE_DIR) + "/tests/data/liggghts-bucket/";
  const std::string settings =
      " --set width=160 --set height=100 --set backend='\"cpu\"' --set shading.shadows=true "
      "--mesh '" +
      dir + "bucket_*.stl' " + dir + "particles_20000.dump " + dir + "particles_30000.dump ";
  Result r = run_tool(settings + "--out '" + temp_path("bucket_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* step : {"20000", "30000"}) {
    SCOPED_TRACE(step);
    RenderSettings s;
    s.width = 160;
    s.height = 100;
    s.shading.shadows = true;
    auto walls = std::make_shared<WallList>(1);
    (*walls)[0].triangles = io::read_stl(dir + "bucket_" + step + ".stl");
    s.walls = walls;
    const auto frames = io::read_particle_file(dir + "particles_" + step + ".dump");
    Image direct;
    const FrameStats stats = Renderer(BackendKind::cpu).render(frames[0].view(), s, direct);
    EXPECT_EQ(stats.wall_triangles, 28u);
    const Image png = io::read_png(temp_path(std::string("bucket_") + step + ".png"));
    EXPECT_EQ(png.rgb, direct.rgb);
    // The mesh is in the picture: without it the frame differs.
    s.walls.reset();
    Image bare;
    Renderer(BackendKind::cpu).render(frames[0].view(), s, bare);
    EXPECT_NE(png.rgb, bare.rgb);
  }
  EXPECT_NE(io::read_png(temp_path("bucket_20000.png")).rgb,
            io::read_png(temp_path("bucket_30000.png")).rgb);
#if defined(GRANRAY_MPIEXEC)
  r = run_command(mpirun_prefix(3) + GRANRAY_RENDER_EXE + settings + "--out '" +
                  temp_path("bucket3_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* step : {"20000", "30000"}) {
    EXPECT_EQ(io::read_png(temp_path(std::string("bucket3_") + step + ".png")).rgb,
              io::read_png(temp_path(std::string("bucket_") + step + ".png")).rgb)
        << "step " << step << " on 3 ranks";
  }
#endif
  // A mesh that is not there names the file.
  r = run_tool("--mesh '" + temp_path("no_such_*.stl") + "' " + dir +
               "particles_20000.dump --out '" + temp_path("x_*.png") + "'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("no_such_20000.stl"), std::string::npos) << r.output;
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

  r = run_tool(dump + " --set width=32 --set height=32 --out '" + temp_path("step_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(temp_path("step_1.png")));
  EXPECT_TRUE(std::filesystem::exists(temp_path("step_2.png")));
}

// A LAMMPS dump of `snapshots` random clouds with ids, in a temporary file.
std::string random_dump(Rng& rng, int snapshots, int atoms, const std::string& name) {
  const std::string dump = temp_path(name);
  std::ofstream f(dump);
  for (int s = 0; s < snapshots; ++s) {
    f << "ITEM: TIMESTEP\n"
      << 100 * (s + 1) << "\nITEM: NUMBER OF ATOMS\n"
      << atoms << "\nITEM: BOX BOUNDS ff ff ff\n0 1\n0 1\n0 1\nITEM: ATOMS id x y z radius vx\n";
    for (int i = 0; i < atoms; ++i) {
      f << 100000 - i << " " << uniform(rng, 0, 1) << " " << uniform(rng, 0, 1) << " "
        << uniform(rng, 0, 1) << " " << uniform(rng, 0.02f, 0.06f) << " " << uniform(rng, -1, 1)
        << "\n";
    }
  }
  return dump;
}

TEST(RenderTool, WritesHdf5WhenOutputIsSet) {
  Rng rng(fresh_seed());
  const std::string dump = random_dump(rng, 3, 400, "three.dump");
  const std::string h5 = temp_path("three.h5");
  std::filesystem::remove(h5);
  const Result r = run_tool(dump + " --set width=64 --set height=40 --set output='\"" + h5 +
                            "\"' --out '" + temp_path("three_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  const Result dump_h5 = run_command("h5dump -d /frames/step " + h5);
  if (dump_h5.status != 0 && run_command("command -v h5dump").output.empty()) {
    GTEST_SKIP() << "h5dump not installed";
  }
  EXPECT_NE(dump_h5.output.find("100, 200, 300"), std::string::npos) << dump_h5.output;
}

// [insitu.camera.path] over a dump's snapshots: each frame is the library's render with the
// path's camera at the snapshot's step, at the keys and between them.
TEST(RenderTool, ACameraPathFliesThroughTheSnapshots) {
  Rng rng(fresh_seed());
  const std::string dump = random_dump(rng, 3, 300, "path.dump");  // steps 100, 200, 300
  const std::string path = std::string("{keys=\"step\", at=[100, 300], interpolate=\"") +
                           (rng() % 2 == 0 ? "smooth" : "linear") + "\", theta=[" +
                           std::to_string(uniform(rng, 10, 80)) + ", " +
                           std::to_string(uniform(rng, 100, 170)) + "], phi=[" +
                           std::to_string(uniform(rng, -90, 0)) + ", " +
                           std::to_string(uniform(rng, 10, 180)) + "], zoom=[1.0, " +
                           std::to_string(uniform(rng, 1.2f, 2)) + "]}";
  const Result r =
      run_tool(dump + " --set width=56 --set height=40 --set 'backend=\"cpu\"' " +
               "--set 'camera.path=" + path + "' --out '" + temp_path("path_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  const InsituConfig config = parse_insitu_config(
      "[insitu]\nwidth = 56\nheight = 40\n[insitu.camera]\npath = " + path + "\n", "path.toml");
  ASSERT_TRUE(config.camera_path);
  const auto frames = io::read_particle_file(dump);
  ASSERT_EQ(frames.size(), 3u);
  std::vector<std::vector<std::uint8_t>> shown;
  for (int k = 0; k < 3; ++k) {
    const std::int64_t step = 100 * (k + 1);
    RenderSettings s = config.render;
    s.camera = frame_camera(config.camera_path, config.render.camera, step, 0.0);
    Image direct;
    Renderer(BackendKind::cpu).render(frames[k].view(), s, direct);
    const Image png = io::read_png(temp_path("path_" + std::to_string(step) + ".png"));
    EXPECT_EQ(png.rgb, direct.rgb) << "step " << step << ", path " << path;
    shown.push_back(direct.rgb);
  }
  // The snapshots differ anyway; the camera must differ too: the last snapshot from the first
  // key's camera is another picture.
  RenderSettings first = config.render;
  first.camera = frame_camera(config.camera_path, config.render.camera, 100, 0.0);
  Image unmoved;
  Renderer(BackendKind::cpu).render(frames[2].view(), first, unmoved);
  EXPECT_NE(unmoved.rgb, shown[2]) << "the camera did not move along the path";
}

// Under mpirun each rank renders a share; the pictures are the one-rank pictures.
TEST(RenderTool, UnderMpirunSplitsTheInputAndMatchesOneRank) {
#if !defined(GRANRAY_MPIEXEC)
  GTEST_SKIP() << "built without MPI";
#else
  Rng rng(fresh_seed());
  const std::string dump = random_dump(rng, 2, 1500, "split.dump");
  // Unlit, then lit (contract 2a: shadows, occlusion, and 1 sample per pixel, lit across the ranks'
  // spatial shares by halo, or 4, gathered).
  for (const bool lit : {false, true}) {
    SCOPED_TRACE(lit ? "lit" : "unlit");
    const std::string settings =
        std::string(" --set width=120 --set height=90 --set backend='\"cpu\"' ") +
        (lit ? "--set shading.shadows=true --set shading.ao_samples=6 --set shading.samples=" +
                   std::string(rng() % 2 == 0 ? "1" : "4") +
                   " "
                   "--set annotations.color_bar=true --set color.field=vx "
                   "--set 'annotations.label=\"step {step}\"' "
             : "");
    // Quoted: the unlit round's files would match the pattern in the shell.
    Result r = run_tool(dump + settings + "--out '" + temp_path("one_*.png") + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    const int ranks = 2 + static_cast<int>(rng() % 3);
    r = run_command(mpirun_prefix(ranks) + GRANRAY_RENDER_EXE + " " + dump + settings + "--out '" +
                    temp_path("many_*.png") + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(std::to_string(ranks) + " ranks"), std::string::npos) << r.output;
    for (const char* step : {"100", "200"}) {
      EXPECT_EQ(io::read_png(temp_path(std::string("many_") + step + ".png")).rgb,
                io::read_png(temp_path(std::string("one_") + step + ".png")).rgb)
          << "step " << step << " on " << ranks << " ranks";
    }
  }
#endif
}

// Posters (contract 3 region, contract 5): a tile budget far below the frame renders it in bands of
// rows, streamed to the PNG and to HDF5 chunks by rows, with the pixels of the frame rendered
// whole; a region gives exactly that window of the whole; under mpirun the bands composite to
// the same pixels.
TEST(RenderTool, PostersInBandsAndRegionsEqualTheWholeFrame) {
  Rng rng(fresh_seed());
  const std::string dump = random_dump(rng, 2, 1200, "poster.dump");
  const int width = std::uniform_int_distribution<int>(200, 320)(rng);
  const int height = std::uniform_int_distribution<int>(150, 240)(rng);
  const std::string settings =
      " --set width=" + std::to_string(width) + " --set height=" + std::to_string(height) +
      " --set backend='\"cpu\"' --set shading.shadows=true --set shading.ao_samples=4 "
      "--set color.field=vx --set annotations.color_bar=true "
      "--set 'annotations.label=\"step {step}\"' --set 'annotations.axes=\"bottom-left\"' ";
  Result r = run_tool(dump + settings + "--out '" + temp_path("whole_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  // 1 MiB for a frame that needs several: bands of a few rows, as the output line says.
  const std::string h5 = temp_path("poster.h5");
  std::filesystem::remove(h5);
  r = run_tool(dump + settings + "--set tile_memory=1 --set output='\"" + h5 + "\"' --out '" +
               temp_path("bands_*.ppm") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(" bands ->"), std::string::npos) << r.output;
  const int x = std::uniform_int_distribution<int>(0, width / 2)(rng);
  const int y = std::uniform_int_distribution<int>(0, height / 2)(rng);
  const int w = std::uniform_int_distribution<int>(1, width - x)(rng);
  const int h = std::uniform_int_distribution<int>(1, height - y)(rng);
  r = run_tool(dump + settings + "--set 'region=[" + std::to_string(x) + ", " + std::to_string(y) +
               ", " + std::to_string(w) + ", " + std::to_string(h) + "]' --out '" +
               temp_path("region_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* step : {"100", "200"}) {
    const Image whole = io::read_png(temp_path(std::string("whole_") + step + ".png"));
    // The PPM is the pixels after a one-line header.
    std::ifstream in(temp_path(std::string("bands_") + step + ".ppm"), std::ios::binary);
    std::string magic;
    int pw = 0, ph = 0, max = 0;
    in >> magic >> pw >> ph >> max;
    in.get();
    std::vector<std::uint8_t> bands((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    EXPECT_EQ(pw, width);
    EXPECT_EQ(ph, height);
    EXPECT_TRUE(bands == whole.rgb) << "bands differ from the whole frame at step " << step;
    const Image region = io::read_png(temp_path(std::string("region_") + step + ".png"));
    ASSERT_EQ(region.width, w);
    ASSERT_EQ(region.height, h);
    std::vector<std::uint8_t> crop;
    for (int row = y; row < y + h; ++row) {
      const auto from = whole.rgb.begin() + 3 * (std::ptrdiff_t(row) * width + x);
      crop.insert(crop.end(), from, from + 3 * w);
    }
    EXPECT_TRUE(region.rgb == crop) << "region [" << x << ", " << y << ", " << w << ", " << h
                                    << "] differs from the crop at step " << step;
  }
  const Result steps = run_command("h5dump -d /frames/step " + h5);
  if (steps.status == 0) EXPECT_NE(steps.output.find("100, 200"), std::string::npos);
#if defined(GRANRAY_MPIEXEC)
  r = run_command(mpirun_prefix(3) + GRANRAY_RENDER_EXE + " " + dump + settings +
                  "--set tile_memory=1 --out '" + temp_path("mpi_bands_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* step : {"100", "200"}) {
    EXPECT_TRUE(io::read_png(temp_path(std::string("mpi_bands_") + step + ".png")).rgb ==
                io::read_png(temp_path(std::string("whole_") + step + ".png")).rgb)
        << "3 ranks in bands differ at step " << step;
  }
#endif
}

// On a terminal, one updating progress line (frames done of all, rate, time left) instead of a
// line per frame; through a pipe, the per-frame lines.
TEST(RenderTool, ProgressLineOnATerminal) {
  if (run_command("command -v script").status != 0) GTEST_SKIP() << "no script(1) for a terminal";
  Rng rng(fresh_seed());
  const std::string dump = random_dump(rng, 3, 200, "progress.dump");
  const std::string command = std::string(GRANRAY_RENDER_EXE) + " " + dump +
                              " --set width=64 --set height=48 --out '" +
                              temp_path("progress_*.png") + "'";
  const Result piped = run_command(command);
  ASSERT_EQ(piped.status, 0) << piped.output;
  EXPECT_EQ(piped.output.find('\r'), std::string::npos) << piped.output;
  EXPECT_NE(piped.output.find("-> "), std::string::npos) << piped.output;
  const Result terminal = run_command("script -qfec \"" + command + "\" /dev/null");
  if (terminal.status != 0 && terminal.output.find("script:") != std::string::npos) {
    GTEST_SKIP() << "script(1) could not open a terminal here: " << terminal.output;
  }
  ASSERT_EQ(terminal.status, 0) << terminal.output;
  EXPECT_NE(terminal.output.find("\rgranray-render: 3/3 frames"), std::string::npos)
      << terminal.output;
  EXPECT_NE(terminal.output.find("frames/s"), std::string::npos) << terminal.output;
  EXPECT_EQ(terminal.output.find("-> "), std::string::npos) << terminal.output;
}

// Without a readable font the frames are written, without overlays, and one warning says why.
TEST(RenderTool, AMissingFontLeavesTheOverlaysOut) {
  Rng rng(fresh_seed());
  const std::string dump = random_dump(rng, 2, 200, "font.dump");
  const std::string base =
      std::string(GRANRAY_RENDER_EXE) + " " + dump + " --set width=96 --set height=64 --out '";
  const Result plain = run_command(base + temp_path("plain_*.png") + "'");
  ASSERT_EQ(plain.status, 0) << plain.output;
  const Result missing =
      run_command("GRANRAY_FONT=" + temp_path("no-such-font.ttf") + " " + base +
                  temp_path("nofont_*.png") + "' --set 'annotations.label=\"step {step}\"'");
  ASSERT_EQ(missing.status, 0) << missing.output;
  const std::string warning = "without annotations";
  const std::size_t first = missing.output.find(warning);
  EXPECT_NE(first, std::string::npos) << missing.output;
  EXPECT_EQ(missing.output.find(warning, first + 1), std::string::npos) << "warned once";
  for (const char* step : {"100", "200"}) {
    EXPECT_EQ(io::read_png(temp_path(std::string("nofont_") + step + ".png")).rgb,
              io::read_png(temp_path(std::string("plain_") + step + ".png")).rgb);
  }
  const Result labelled =
      run_command(base + temp_path("label_*.png") + "' --set 'annotations.label=\"step {step}\"'");
  ASSERT_EQ(labelled.status, 0) << labelled.output;
  EXPECT_NE(io::read_png(temp_path("label_100.png")).rgb,
            io::read_png(temp_path("plain_100.png")).rgb)
      << "with a font, the label is drawn";
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

// A LAMMPS run's dumps, written here: grains with shuffled ids (`dump custom id x y z radius`) and
// their true contacts (`compute property/local patom1 patom2` + `compute pair/local force`), both
// of step `step`.
struct ContactDumps {
  std::string grains, contacts;
  std::vector<std::uint64_t> ids;
  std::vector<Vec4> spheres;
  std::vector<RefContact> pairs;
};

ContactDumps contact_dumps(Rng& rng, const std::string& name, std::int64_t step) {
  ContactDumps d;
  d.spheres = dense_bed(rng, 300, 0.3f, 0.5f);
  d.pairs = true_contacts(rng, d.spheres, 5.0f);
  for (std::size_t k = 0; k < d.spheres.size(); ++k) d.ids.push_back(1000 + 7 * k);
  std::shuffle(d.ids.begin(), d.ids.end(), rng);
  const char* box = "ITEM: BOX BOUNDS ff ff ff\n-50 50\n-50 50\n-50 50\n";
  std::string text = "ITEM: TIMESTEP\n" + std::to_string(step) + "\nITEM: NUMBER OF ATOMS\n" +
                     std::to_string(d.spheres.size()) + "\n" + box +
                     "ITEM: ATOMS id x y z radius\n";
  char line[160];
  for (std::size_t k = 0; k < d.spheres.size(); ++k) {
    const Vec4 p = d.spheres[k];
    std::snprintf(line, sizeof line, "%llu %.9g %.9g %.9g %.9g\n",
                  static_cast<unsigned long long>(d.ids[k]), p.x, p.y, p.z, p.w);
    text += line;
  }
  d.grains = write_text(name + ".dump", text);
  text = "ITEM: TIMESTEP\n" + std::to_string(step) + "\nITEM: NUMBER OF ENTRIES\n" +
         std::to_string(d.pairs.size()) + "\n" + box + "ITEM: ENTRIES c_p[1] c_p[2] c_f\n";
  for (const RefContact& c : d.pairs) {
    std::snprintf(line, sizeof line, "%llu %llu %.9g\n",
                  static_cast<unsigned long long>(d.ids[c.first]),
                  static_cast<unsigned long long>(d.ids[c.second]), c.value);
    text += line;
  }
  d.contacts = write_text(name + ".local", text);
  return d;
}

// contract 2g offline: --contacts draws a dump local's pairs, matched to the snapshot by id, as
// the library draws the same pairs; the pattern's '*' becomes the step.
TEST(RenderTool, ContactsFromADumpLocalMatchTheLibrary) {
  Rng rng(fresh_seed());
  const ContactDumps d = contact_dumps(rng, "contacts_100", 100);
  const std::string pattern = d.contacts.substr(0, d.contacts.size() - 9) + "*.local";
  const std::string settings =
      " --set width=160 --set height=120 --set backend='\"cpu\"' --set shading.shadows=true "
      "--set contacts.threshold=0.5 --set contacts.grains=false --contact-columns 'patom1 patom2 "
      "force' ";
  const Result r = run_tool(settings + "--contacts '" + pattern + "' " + d.grains + " --out '" +
                            temp_path("contacts_*.png") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  const Image png = io::read_png(temp_path("contacts_100.png"));

  RenderSettings s;
  s.width = 160;
  s.height = 120;
  s.shading.shadows = true;
  s.contacts = ContactSettings{};
  s.contacts->threshold = 0.5f;
  s.contacts->grains = false;
  const auto frames = io::read_particle_file(d.grains);
  const io::ContactIndices pairs = io::match_contacts(
      io::read_contact_file(d.contacts, io::parse_contact_layout("patom1 patom2 force"))[0],
      frames[0], d.grains);
  ParticleView view = frames[0].view();
  view.contacts = {pairs.first.data(), pairs.second.data(), pairs.value.data(), pairs.first.size()};
  Image direct;
  const FrameStats stats = Renderer(BackendKind::cpu).render(view, s, direct);
  EXPECT_GT(stats.contacts, 0u);
  EXPECT_LT(stats.contacts, d.pairs.size()) << "threshold 0.5 leaves out the weakest pairs";
  EXPECT_EQ(png.rgb, direct.rgb);
  const std::uint8_t white = 255;
  EXPECT_NE(std::count(direct.rgb.begin(), direct.rgb.end(), white),
            std::ptrdiff_t(direct.rgb.size()))
      << "the network shows on the background";
#if defined(GRANRAY_MPIEXEC)
  // Under mpirun each rank draws a share of the grains and every rank's copy of the pairs: the
  // same frame, unlit and lit, with the grains or without, on 2 to 4 ranks.
  for (const int ranks : {2, 3, 4}) {
    for (const char* grains : {"true", "false"}) {
      const std::string name = "contacts_mpi" + std::to_string(ranks) + grains;
      const std::string overrides = std::string(" --set contacts.grains=") + grains + " ";
      Result one = run_tool(settings + overrides + "--contacts '" + pattern + "' " + d.grains +
                            " --out '" + temp_path(name + "_one_*.png") + "'");
      ASSERT_EQ(one.status, 0) << one.output;
      const Result many = run_command(mpirun_prefix(ranks) + GRANRAY_RENDER_EXE + settings +
                                      overrides + "--contacts '" + pattern + "' " + d.grains +
                                      " --out '" + temp_path(name + "_many_*.png") + "'");
      ASSERT_EQ(many.status, 0) << many.output;
      EXPECT_EQ(io::read_png(temp_path(name + "_one_100.png")).rgb,
                io::read_png(temp_path(name + "_many_100.png")).rgb)
          << ranks << " ranks, grains " << grains;
    }
  }
#endif
}

// contract 2g: a pair across a periodic boundary of the dump's box is two half capsules, each
// from a grain halfway toward its partner's nearest image, not one across the box.
TEST(RenderTool, APeriodicPairIsTwoHalfCapsulesAtTheBoxsEdges) {
  Rng rng(fresh_seed());
  const float r = uniform(rng, 0.3f, 0.4f), y = 0.5f;  // on the row the test reads
  const char* box = "ITEM: BOX BOUNDS pp ff ff\n0 10\n0 1\n0 1\n";
  const std::string grains =
      write_text("periodic.dump", std::string("ITEM: TIMESTEP\n7\nITEM: NUMBER OF ATOMS\n2\n") +
                                      box + "ITEM: ATOMS id x y z radius\n1 0.3 " +
                                      std::to_string(y) + " 0.5 " + std::to_string(r) + "\n2 9.7 " +
                                      std::to_string(y) + " 0.5 " + std::to_string(r) + "\n");
  const std::string pairs =
      write_text("periodic.local", std::string("ITEM: TIMESTEP\n7\nITEM: NUMBER OF ENTRIES\n1\n") +
                                       box + "ITEM: ENTRIES c_p[1] c_p[2] c_f\n1 2 2.5\n");
  const std::string view =
      " --set width=200 --set height=80 --set backend='\"cpu\"' --set "
      "'camera.projection=\"orthographic\"' --set camera.position=[5,0.5,20] --set "
      "camera.target=[5,0.5,0] --set camera.up=[0,1,0] --set camera.ortho_height=4 --set "
      "contacts.grains=false --contact-columns 'patom1 patom2 force' --contacts " +
      pairs + " " + grains;
  std::vector<std::string> launchers = {std::string(GRANRAY_RENDER_EXE) + " "};
#if defined(GRANRAY_MPIEXEC)
  launchers.push_back(mpirun_prefix(2) + GRANRAY_RENDER_EXE + " ");
#endif
  for (std::size_t ranks = 1; ranks <= launchers.size(); ++ranks) {
    const std::string out = temp_path("periodic" + std::to_string(ranks) + ".png");
    const Result r1 = run_command(launchers[ranks - 1] + view + " --out " + out);
    ASSERT_EQ(r1.status, 0) << r1.output;
    const Image png = io::read_png(out);
    const auto background = [&](int i) {
      std::size_t at = 3 * (std::size_t(40) * png.width + std::size_t(i));
      return png.rgb[at] == 255 && png.rgb[at + 1] == 255 && png.rgb[at + 2] == 255;
    };
    EXPECT_TRUE(background(100)) << "no capsule across the box, " << ranks << " ranks";
    EXPECT_TRUE(background(50) && background(150));
    int left = 0, right = 0;
    for (int i = 0; i < 8; ++i) left += !background(i);
    for (int i = 192; i < 200; ++i) right += !background(i);
    EXPECT_GT(left, 0) << "the half at x = 0";
    EXPECT_GT(right, 0) << "the half at x = 10";
  }
}

TEST(RenderTool, ContactMistakesNameFileAndLine) {
  Rng rng(fresh_seed());
  const ContactDumps d = contact_dumps(rng, "contact_mistakes", 100);
  const std::string base = "--set width=32 --set height=24 --set backend='\"cpu\"' " + d.grains +
                           " --out " + temp_path("contact_mistake.png") + " ";
  // [insitu.contacts] with nothing to draw it from.
  Result r = run_tool(base + "--set contacts.width=0.3");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--contacts"), std::string::npos) << r.output;
  // The default columns ("pos id force") are not this dump's three.
  r = run_tool(base + "--contacts " + d.contacts);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find(d.contacts + ":"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("describe 12"), std::string::npos) << r.output;
  const std::string lammps = base + "--contact-columns 'patom1 patom2 force' ";
  // A pair value the columns do not hold.
  r = run_tool(lammps + "--set contacts.field=delta --contacts " + d.contacts);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("insitu.contacts.field"), std::string::npos) << r.output;
  // An id the snapshot lacks, on the pair's own line.
  std::ifstream in(d.contacts);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("c_f\n") + 4;
  text.insert(at, "99999 " + std::to_string(d.ids[0]) + " 1.0\n");
  text.replace(text.find(std::to_string(d.pairs.size()) + "\nITEM: BOX"),
               std::to_string(d.pairs.size()).size(), std::to_string(d.pairs.size() + 1));
  const std::string unknown = write_text("contact_unknown.local", text);
  r = run_tool(lammps + "--contacts " + unknown);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find(unknown + ":10"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("99999"), std::string::npos) << r.output;
  // Contacts of another step.
  const ContactDumps later = contact_dumps(rng, "contact_later", 200);
  r = run_tool(lammps + "--contacts " + later.contacts);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("200"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("100"), std::string::npos) << r.output;
}

// The LIGGGHTS pour's settled bed and its 45,223 contacts (`compute pair/gran/local pos id force`),
// as LIGGGHTS wrote them: the strong network alone draws.
TEST(RenderTool, TheLiggghtsPoursForceNetwork) {
  const std::string grains = shared_data("liggghts/pour-20k.step20000.liggghts.gz");
  const std::string contacts = shared_data("liggghts/pour-20k.step20000.contacts.gz");
  if (grains.empty() || contacts.empty()) GTEST_SKIP() << "../shared/data not present";
  const std::string dump = temp_path("pour-20k.step20000.liggghts");
  const std::string local = temp_path("pour-20k.step20000.contacts");
  ASSERT_EQ(run_command("gzip -dc " + grains + " > " + dump).status, 0);
  ASSERT_EQ(run_command("gzip -dc " + contacts + " > " + local).status, 0);
  const Result r = run_tool(
      "--set width=200 --set height=150 --set backend='\"cpu\"' "
      "--set contacts.threshold=1 --set contacts.grains=false "
      "--contacts " +
      local + " " + dump + " --out " + temp_path("pour_network.png"));
  ASSERT_EQ(r.status, 0) << r.output;
  const Image png = io::read_png(temp_path("pour_network.png"));
  std::size_t drawn = 0;
  for (std::size_t p = 0; p < png.rgb.size(); p += 3) {
    drawn += !(png.rgb[p] == 255 && png.rgb[p + 1] == 255 && png.rgb[p + 2] == 255);
  }
  EXPECT_GT(drawn, png.rgb.size() / 3 / 50) << "the strong network covers part of the picture";
}

}  // namespace
}  // namespace granray::test
