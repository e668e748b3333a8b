// Readers: xyzr text, LAMMPS/LIGGGHTS dumps, sphere .bin; real files from ../shared/data when
// present; malformed input names the file and the line or byte offset.
#include <gtest/gtest.h>

#include <sstream>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>

#include "granray/errors.h"
#include "granray/io/particle_file.h"
#include "granray/io/stl_file.h"
#include "test_support.h"

namespace granray::test {
namespace {

using io::ParticleFormat;

TEST(Xyzr, ReadsRandomParticlesWithCommentsAndScalars) {
  Rng rng(fresh_seed());
  std::vector<Vec4> expected;
  std::string text = "# x y z r speed\n\n";
  for (int i = 0; i < 200; ++i) {
    const Vec4 s{uniform(rng, -9, 9), uniform(rng, -9, 9), uniform(rng, -9, 9),
                 uniform(rng, 0.01f, 1)};
    expected.push_back(s);
    char line[200];
    std::snprintf(line, sizeof line, "%.9g %.9g\t%.9g %.9g %d  # grain\n", s.x, s.y, s.z, s.w, i);
    text += line;
  }
  const auto frames = io::read_particle_file(write_text("random.xyzr", text));
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_EQ(frames[0].xyzr.size(), expected.size());
  EXPECT_FALSE(frames[0].step.has_value());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(frames[0].xyzr[i].x, expected[i].x);
    EXPECT_EQ(frames[0].xyzr[i].w, expected[i].w);
    EXPECT_EQ(frames[0].scalar[i], float(i));
  }
}

TEST(Xyzr, MalformedLinesNameFileAndLine) {
  expect_input_error([] { io::read_xyzr_file(write_text("bad1.xyzr", "1 2 3 4\n1 2 x 4\n")); },
                     {"bad1.xyzr:2", "'x'"});
  expect_input_error([] { io::read_xyzr_file(write_text("bad2.xyzr", "# c\n1 2 3\n")); },
                     {"bad2.xyzr:2", "fields"});
  expect_input_error([] { io::read_xyzr_file(write_text("bad3.xyzr", "1 2 3 4\n1 2 3 4 5\n")); },
                     {"bad3.xyzr:2"});
  expect_input_error([] { io::read_xyzr_file(temp_path("does-not-exist.xyzr")); }, {"cannot open"});
}

std::string lammps_snapshot(
    std::int64_t step, const std::string& columns, const std::vector<std::string>& rows,
    const std::string& bounds = "ITEM: BOX BOUNDS pp pp ff\n0 10\n-5 5\n0 2\n") {
  std::string s = "ITEM: TIMESTEP\n" + std::to_string(step) + "\nITEM: NUMBER OF ATOMS\n" +
                  std::to_string(rows.size()) + "\n" + bounds + "ITEM: ATOMS " + columns + "\n";
  for (const auto& r : rows) s += r + "\n";
  return s;
}

TEST(Lammps, ColumnsByNameAndEverySnapshot) {
  const std::string text =
      lammps_snapshot(100, "id type x y z radius", {"7 1 1 2 0.5 0.25", "3 1 4 -1 1.5 0.5"}) +
      lammps_snapshot(200, "diameter id zs ys xs", {"1.0 9 0.5 0.5 0.25"});
  const auto frames = io::read_particle_file(write_text("two.dump", text));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(*frames[0].step, 100);
  EXPECT_EQ(*frames[1].step, 200);
  EXPECT_EQ(frames[0].ids, (std::vector<std::uint64_t>{7, 3}));
  EXPECT_FLOAT_EQ(frames[0].xyzr[1].x, 4.0f);
  EXPECT_FLOAT_EQ(frames[0].xyzr[1].w, 0.5f);
  // Scaled coordinates: x = 0 + 0.25 * 10, y = -5 + 0.5 * 10, z = 0 + 0.5 * 2; radius = d / 2.
  EXPECT_FLOAT_EQ(frames[1].xyzr[0].x, 2.5f);
  EXPECT_FLOAT_EQ(frames[1].xyzr[0].y, 0.0f);
  EXPECT_FLOAT_EQ(frames[1].xyzr[0].z, 1.0f);
  EXPECT_FLOAT_EQ(frames[1].xyzr[0].w, 0.5f);
  EXPECT_EQ(frames[1].ids, (std::vector<std::uint64_t>{9}));
}

TEST(Lammps, MalformedDumpsNameFileAndLine) {
  const auto good = lammps_snapshot(5, "id x y z radius", {"1 0 0 0 1", "2 1 1 1 1"});
  expect_input_error(
      [&] { io::read_lammps_dump(write_text("trunc.dump", good.substr(0, good.size() - 10))); },
      {"trunc.dump:", "ends after 1 of 2 atoms"});
  expect_input_error(
      [] {
        io::read_lammps_dump(write_text("nor.dump", lammps_snapshot(1, "id x y z", {"1 0 0 0"})));
      },
      {"nor.dump:9", "radius or diameter"});
  expect_input_error(
      [] {
        io::read_lammps_dump(
            write_text("noxyz.dump", lammps_snapshot(1, "id x y radius", {"1 0 0 1"})));
      },
      {"noxyz.dump:9", "x y z"});
  expect_input_error(
      [] {
        io::read_lammps_dump(
            write_text("nan.dump", lammps_snapshot(1, "id x y z radius", {"1 0 0 zero 1"})));
      },
      {"nan.dump:10", "'zero'"});
  expect_input_error(
      [] {
        io::read_lammps_dump(
            write_text("cols.dump", lammps_snapshot(1, "id x y z radius", {"1 0 0 1"})));
      },
      {"cols.dump:10", "expected 5 columns"});
  expect_input_error([] { io::read_lammps_dump(write_text("junk.dump", "hello\n")); },
                     {"junk.dump:1", "ITEM:"});
}

// Found by fuzzing: a damaged count made the reader reserve for it before reading a row.
TEST(Lammps, AnAtomCountLargerThanTheFileIsAnErrorNotAnAllocation) {
  std::string text = lammps_snapshot(5, "id x y z radius", {"1 0 0 0 1"});
  const std::string one = "NUMBER OF ATOMS\n1\n";
  text.replace(text.find(one), one.size(), "NUMBER OF ATOMS\n1000000000000000\n");
  expect_input_error([&] { io::read_lammps_dump(write_text("huge.dump", text)); },
                     {"huge.dump:", "ends after 1 of 1000000000000000 atoms"});
}

// [insitu.select] and [[insitu.materials]] by other columns than the colour's: each read into its
// own vector; a name the colour has too is read once.
TEST(Lammps, OtherValuesForTheSelectionAndTheMaterials) {
  const std::string path =
      write_text("two-values.dump",
                 lammps_snapshot(5, "id type x y z radius vx vy vz",
                                 {"1 2 0 0 0 1 3 4 0", "2 1 1 1 1 1 0 0 1", "3 2 2 2 2 1 1 0 0"}));
  const auto frames = io::read_particle_file(path, io::ParticleFormat::automatic,
                                             {"speed", "type", {"id", "type", "speed", ""}});
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].scalar, (std::vector<float>{5, 1, 1}));
  EXPECT_EQ(frames[0].select, (std::vector<float>{2, 1, 2}));
  EXPECT_EQ(frames[0].material[0], (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(frames[0].material[1], (std::vector<float>{2, 1, 2})) << "a field of each material";
  EXPECT_TRUE(frames[0].material[2].empty()) << "the colour field serves where it is named";
  EXPECT_TRUE(frames[0].material[3].empty());
  EXPECT_EQ(frames[0].view().select_scalar, frames[0].select.data());
  EXPECT_EQ(frames[0].view().material_values[0], frames[0].material[0].data());
  EXPECT_EQ(frames[0].view().material_values[1], frames[0].material[1].data());
  EXPECT_EQ(frames[0].view().material_values[2], nullptr);
  const auto same =
      io::read_particle_file(path, io::ParticleFormat::automatic, {"type", "type", {"type"}});
  EXPECT_TRUE(same[0].select.empty() && same[0].material[0].empty()) << "one value serves all";
  expect_input_error(
      [&] {
        io::read_particle_file(path, io::ParticleFormat::automatic, {"speed", "species"});
      },
      {"two-values.dump:", "'species'"});
  expect_input_error(
      [&] {
        io::read_particle_file(path, io::ParticleFormat::automatic, {"speed", "", "kind"});
      },
      {"two-values.dump:", "'kind'"});
}

// The readers take the file in blocks of 1 MiB: rows, numbers and a 2.5 MiB line straddle the
// blocks' ends; padding, tabs and CRLF endings vary; the last line has no '\n'; a FIFO (no size to
// reserve by) reads the same; an error deep in the file names its line.
TEST(Lammps, LargeDumpsReadInBlocksLikeSmallOnes) {
  Rng rng(fresh_seed());
  std::vector<std::vector<Vec4>> expected(3);
  std::vector<std::vector<float>> speeds(3);
  std::string text;
  std::size_t bad_line = 0, lines = 0;
  for (int snapshot = 0; snapshot < 3; ++snapshot) {
    const int n = 20000 + static_cast<int>(rng() % 5000);
    std::vector<std::string> rows;
    for (int i = 0; i < n; ++i) {
      const Vec4 s{uniform(rng, -9, 9), uniform(rng, -9, 9), uniform(rng, -9, 9),
                   uniform(rng, 0.01f, 1)};
      const float v = uniform(rng, 0, 5);
      expected[snapshot].push_back(s);
      speeds[snapshot].push_back(v);
      const char* gaps[] = {" ", "  ", "\t", " \t "};
      const char* gap = gaps[rng() % 4];
      char row[256];
      std::snprintf(row, sizeof row, "%s%d%s%.9g%s%.9g%s%.9g%s%.9g%s%.9g%s", rng() % 3 ? "" : " ",
                    i + 1, gap, s.x, gap, s.y, gap, s.z, gap, s.w, gap, v, rng() % 2 ? "\r" : "");
      rows.emplace_back(row);
    }
    std::string snap = lammps_snapshot(snapshot, "id x y z radius speed", rows);
    if (snapshot == 1) {
      // An item the renderer skips, whose one line of data is longer than a block.
      snap = "ITEM: UNITS\n" + std::string(5 << 19, 'u') + "\n" + snap;
    }
    text += snap;
  }
  text.pop_back();  // no '\n' after the last row
  for (const char c : text) lines += c == '\n';
  ASSERT_GT(text.size(), std::size_t{3} << 20);

  const auto check = [&](const std::vector<io::ParticleFrame>& frames) {
    ASSERT_EQ(frames.size(), expected.size());
    for (std::size_t f = 0; f < frames.size(); ++f) {
      ASSERT_EQ(frames[f].xyzr.size(), expected[f].size());
      EXPECT_EQ(*frames[f].step, static_cast<std::int64_t>(f));
      for (std::size_t i = 0; i < expected[f].size(); ++i) {
        const Vec4 a = frames[f].xyzr[i], b = expected[f][i];
        ASSERT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w) << f << " " << i;
        ASSERT_EQ(frames[f].scalar[i], speeds[f][i]);
        ASSERT_EQ(frames[f].ids[i], i + 1);
      }
    }
  };
  const std::string path = write_text("blocks.dump", text);
  check(io::read_lammps_dump(path, "speed"));

  const std::string fifo = temp_path("blocks.fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  std::vector<io::ParticleFrame> piped;
  try {
    piped = io::read_lammps_dump(fifo, "speed");
  } catch (...) {
    writer.join();
    throw;
  }
  writer.join();
  check(piped);

  // A damaged number on a line in the file's last megabyte.
  std::string damaged = text;
  const std::size_t at = damaged.rfind('\n', damaged.size() - 1000 - rng() % 100000);
  const std::size_t row_end = damaged.find('\n', at + 1);
  bad_line =
      static_cast<std::size_t>(std::count(damaged.begin(), damaged.begin() + at + 1, '\n')) + 1;
  damaged.replace(damaged.find_last_of("0123456789", row_end), 1, "q");
  expect_input_error([&] { io::read_lammps_dump(write_text("damaged.dump", damaged), "speed"); },
                     {"damaged.dump:" + std::to_string(bad_line) + ":", "q"});
  EXPECT_GT(lines, bad_line);
}

TEST(Lammps, RealLiggghtsPacking) {
  const std::string path = shared_data(kLiggghtsPacking);
  if (path.empty()) GTEST_SKIP() << "../shared/data not present";
  EXPECT_EQ(io::detect_particle_format(path), ParticleFormat::lammps);
  const auto frames = io::read_particle_file(path);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(*frames[0].step, 10000);
  ASSERT_EQ(frames[0].xyzr.size(), 20000u);
  ASSERT_EQ(frames[0].ids.size(), 20000u);
  // Glass beads of 1.5 and 2 mm radius in a 0.1 m box.
  for (const Vec4& s : frames[0].xyzr) {
    ASSERT_TRUE(s.w == 0.0015f || s.w == 0.002f) << s.w;
    ASSERT_LE(std::fabs(s.x), 0.05f);
    ASSERT_LE(std::fabs(s.y), 0.05f);
  }
}

// Writes a sphere .bin file of the given version with n random particles.
std::string write_sphere_bin(const std::string& name, double version, std::uint32_t np, Rng& rng,
                             std::vector<Vec4>& spheres, std::size_t cut = 0) {
  std::string bytes;
  auto put = [&](auto v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(version);
  put(std::uint32_t{3});
  put(np);
  put(1e-5);
  put(0.25);  // current time
  put(1.0);
  put(0.01);
  put(std::uint32_t{4242});
  for (int i = 0; i < 6; ++i) put(1.0);
  for (int i = 0; i < 3; ++i) put(std::uint32_t{10});
  put(std::int32_t{0});
  if (version >= 2.14) put(std::int32_t{0});
  spheres.clear();
  for (std::uint32_t i = 0; i < np; ++i) {
    const Vec4 s{uniform(rng, 0, 1), uniform(rng, 0, 1), uniform(rng, 0, 1),
                 uniform(rng, 0.01f, 0.05f)};
    spheres.push_back(s);
    put(double(s.x));
    put(double(s.y));
    put(double(s.z));
    put(double(s.w));
  }
  for (std::uint32_t i = 0; i < np * 24; ++i) put(0.0);
  for (int i = 0; i < 6 + (version >= 2.13 ? 1 : 0) + 11; ++i) put(0.0);
  put(std::uint32_t{0});
  for (int i = 0; i < 3; ++i) put(0.0);
  put(std::uint32_t{1});  // one wall
  put(std::int32_t{0});
  for (int i = 0; i < 8; ++i) put(0.0);
  for (int i = 0; i < 3 + 1; ++i) put(0.0);
  put(std::uint32_t{0});  // no bonds
  put(0.0);
  put(0.0);
  for (std::uint32_t i = 0; i < np; ++i) put(std::int32_t{0});
  if (cut > 0) bytes.resize(bytes.size() - cut);
  return write_text(name, bytes);
}

TEST(Sphere, EveryVersionFrom211To215) {
  Rng rng(fresh_seed());
  for (const double version : {2.11, 2.12, 2.13, 2.14, 2.15}) {
    std::vector<Vec4> spheres;
    const auto path = write_sphere_bin("v.bin", version, 37, rng, spheres);
    EXPECT_EQ(io::detect_particle_format(path), ParticleFormat::sphere);
    const auto frames = io::read_particle_file(path);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(*frames[0].step, 4242);
    EXPECT_DOUBLE_EQ(frames[0].time, 0.25);
    ASSERT_EQ(frames[0].xyzr.size(), spheres.size());
    for (std::size_t i = 0; i < spheres.size(); ++i) {
      EXPECT_EQ(frames[0].xyzr[i].y, spheres[i].y);
      EXPECT_EQ(frames[0].xyzr[i].w, spheres[i].w);
    }
  }
}

TEST(Sphere, TruncatedAndWrongVersionNameTheByteOffset) {
  Rng rng(fresh_seed());
  std::vector<Vec4> spheres;
  const auto cut = write_sphere_bin("cut.bin", 2.15, 20, rng, spheres, 3);
  expect_input_error([&] { io::read_sphere_bin(cut); }, {"cut.bin: byte offset", "truncated"});
  const auto half = write_sphere_bin("half.bin", 2.12, 20, rng, spheres, 3000);
  expect_input_error([&] { io::read_sphere_bin(half); }, {"half.bin: byte offset", "truncated"});
  const auto old = write_sphere_bin("old.bin", 2.05, 20, rng, spheres);
  expect_input_error([&] { io::read_sphere_bin(old); }, {"old.bin: byte offset 0", "version"});
}

// A corrupted particle count (its high byte set, as random header mutations found) is checked
// against the file's size before anything is sized by it: an error naming the file, not an
// allocation of tens of gigabytes.
TEST(Sphere, ACorruptedParticleCountIsAnError) {
  Rng rng(fresh_seed());
  std::vector<Vec4> spheres;
  const auto good = write_sphere_bin("count.bin", 2.15, 20, rng, spheres);
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::size_t count_at = sizeof(double) + sizeof(std::uint32_t);
  for (const std::uint32_t count : {0xff000014u, 0x80000000u, 0xffffffffu, 21u}) {
    std::memcpy(&bytes[count_at], &count, sizeof count);
    const auto bad = write_text("count-bad.bin", bytes);
    expect_input_error([&] { io::read_sphere_bin(bad); },
                       {"count-bad.bin: byte offset", "truncated"});
  }
}

TEST(Sphere, RealOutputFiles) {
  for (const auto& [name, count] :
       {std::pair<const char*, std::size_t>{"sphere/cube-init.output00029.bin", 1000},
        {"sphere/init-1e4.output00199.bin", 10000}}) {
    const std::string path = shared_data(name);
    if (path.empty()) GTEST_SKIP() << "../shared/data not present";
    const auto frames = io::read_particle_file(path);
    ASSERT_EQ(frames.size(), 1u);
    ASSERT_EQ(frames[0].xyzr.size(), count);
    for (const Vec4& s : frames[0].xyzr) ASSERT_TRUE(is_renderable(s));
  }
}

// STL (contract 2b walls): ASCII and binary read alike, bad files name the file and line.

std::string ascii_stl(const std::vector<Triangle>& triangles) {
  std::ostringstream out;
  out.precision(9);
  out << "solid test\n";
  for (const Triangle& t : triangles) {
    out << "  facet normal 0 0 1\n    outer loop\n";
    for (const Vec3& v : {t.a, t.b, t.c})
      out << "      vertex " << v.x << " " << v.y << " " << v.z << "\n";
    out << "    endloop\n  endfacet\n";
  }
  out << "endsolid test\n";
  return out.str();
}

std::string binary_stl(const std::vector<Triangle>& triangles) {
  std::string out = "solid but binary: exporters write this too";
  out.resize(80, ' ');
  const auto n = static_cast<std::uint32_t>(triangles.size());
  out.append(reinterpret_cast<const char*>(&n), 4);
  for (const Triangle& t : triangles) {
    const float normal[3] = {0, 0, 0};
    out.append(reinterpret_cast<const char*>(normal), 12);
    out.append(reinterpret_cast<const char*>(&t), 36);
    out.append(2, '\0');
  }
  return out;
}

TEST(Stl, AsciiAndBinaryReadTheSameTriangles) {
  Rng rng(fresh_seed());
  std::vector<Triangle> triangles;
  for (int k = 0; k < 50; ++k) {
    const auto p = [&] {
      return Vec3{uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5)};
    };
    triangles.push_back({p(), p(), p()});
  }
  const auto same = [&](const std::vector<Triangle>& got) {
    ASSERT_EQ(got.size(), triangles.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].a.x, triangles[k].a.x);
      EXPECT_EQ(got[k].b.y, triangles[k].b.y);
      EXPECT_EQ(got[k].c.z, triangles[k].c.z);
    }
  };
  same(io::read_stl(write_text("mesh_ascii.stl", ascii_stl(triangles))));
  same(io::read_stl(write_text("mesh_binary.stl", binary_stl(triangles))));
  // The LIGGGHTS output kept in the tests: 28 triangles of the bucket.
  EXPECT_EQ(
      io::read_stl(std::string(GRANRAY_SOURCE_DIR) + "/tests/data/liggghts-bucket/bucket_20000.stl")
          .size(),
      28u);
}

TEST(Stl, BadFilesNameTheFileAndLine) {
  const std::vector<Triangle> one = {{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}};
  const std::string text = ascii_stl(one);
  const auto fails_with = [](const std::string& path, const std::string& expected) {
    SCOPED_TRACE(path);
    expect_input_error([&] { io::read_stl(path); }, {path, expected});
  };
  fails_with(write_text("cut.stl", text.substr(0, text.size() / 2)), "truncated");
  fails_with(write_text("noend.stl", text.substr(0, text.find("endsolid"))), "endsolid");
  std::string bad = text;
  bad.replace(bad.find("vertex 1"), 8, "vertex x");
  fails_with(write_text("word.stl", bad), ":5:");
  std::string nan = text;
  nan.replace(nan.find("vertex 1"), 8, "vertex nan");
  fails_with(write_text("nan.stl", nan), "not finite");
  const std::string binary = binary_stl(one);
  fails_with(write_text("short.stl", binary.substr(0, binary.size() - 7)), "truncated");
  fails_with(write_text("nothing.stl", "hello"), "not an STL file");
  fails_with(temp_path("missing.stl"), "cannot open");
}

}  // namespace
}  // namespace granray::test
