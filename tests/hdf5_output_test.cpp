// HDF5 output (contract 5): frames and metadata read back through the HDF5 C API and h5dump and
// equal to the PNGs, posters chunked by rows, appending on restart, a damaged file refused.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "granray/adapters/buffers.h"
#include "granray/errors.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/frame_writer.h"
#include "granray/io/hdf5_frame_file.h"
#include "granray/io/image_file.h"
#include "h5_read.h"
#include "hdf5_output_fixture.h"
#include "test_support.h"

namespace granray::test {
namespace {

std::string string_attribute(hid_t object, const char* name) {
  const hid_t a = H5Aopen(object, name, H5P_DEFAULT);
  if (a < 0) return "";
  const hid_t t = H5Aget_type(a);
  std::string value(H5Tget_size(t), '\0');
  H5Aread(a, t, value.data());
  H5Tclose(t);
  H5Aclose(a);
  return value.c_str();
}

TEST_F(Hdf5OutputTest, FramesAndMetadataReadBackAndEqualThePngs) {
  Rng rng(fresh_seed());
  const auto grains = dense_bed(rng, 400, 0.3f, 0.5f);
  std::vector<float> speed(grains.size());
  for (auto& s : speed) s = uniform(rng, 0, 4);
  const std::string h5 = dir_ + "/frames.h5";
  std::vector<ResolvedCamera> cameras;
  {  // the writer holds HDF5's lock on the file until the renderer is gone
    InsituRenderer vis(
        parse_insitu_config("[insitu]\nevery = 3\nwidth = 80\nheight = 48\n"
                            "backend = \"cpu\"\n[insitu.color]\nfield = \"speed\"\n"
                            "range = \"auto\"\n",
                            "sim.toml", {"output=\"" + h5 + "\"", "png=\"" + dir_ + "/p_*.png\""}),
        {"speed"});
    for (int step = 0; step <= 12; ++step) {
      // The camera follows the grains as they move, so every frame differs.
      auto moved = grains;
      for (auto& g : moved) g.z += 0.1f * step;
      const auto& f = vis.render(
          step, 0.01 * step,
          adapters::host_particles(moved.data(), moved.size()).with_field("speed", speed.data()));
      if (f.rendered) cameras.push_back(f.stats.camera);
    }
    vis.finish();
    ASSERT_EQ(vis.counters().written, 5u);
  }

  H5File file(h5);
  ASSERT_GE(file.id, 0);
  EXPECT_EQ(dims_of(file.id, "/frames/rgb"), (std::vector<hsize_t>{5, 48, 80, 3}));
  const auto rgb = read_all<std::uint8_t>(file.id, "/frames/rgb", H5T_NATIVE_UINT8);
  const auto steps = read_all<std::int64_t>(file.id, "/frames/step", H5T_NATIVE_INT64);
  const auto times = read_all<double>(file.id, "/frames/time", H5T_NATIVE_DOUBLE);
  const auto eyes = read_all<float>(file.id, "/frames/camera_eye", H5T_NATIVE_FLOAT);
  const auto counts = read_all<std::uint64_t>(file.id, "/frames/particles", H5T_NATIVE_UINT64);
  const auto range = read_all<float>(file.id, "/frames/color_range", H5T_NATIVE_FLOAT);
  EXPECT_EQ(steps, (std::vector<std::int64_t>{0, 3, 6, 9, 12}));
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_DOUBLE_EQ(times[k], 0.01 * steps[k]);
    EXPECT_EQ(counts[k], grains.size());
    EXPECT_FLOAT_EQ(eyes[3 * k + 2], cameras[k].eye.z);
    EXPECT_LT(range[2 * k], range[2 * k + 1]);
    const Image png = io::read_png(io::expand_frame_pattern(dir_ + "/p_*.png", steps[k], 8));
    const std::vector<std::uint8_t> frame(rgb.begin() + k * 80 * 48 * 3,
                                          rgb.begin() + (k + 1) * 80 * 48 * 3);
    EXPECT_EQ(frame, png.rgb) << "frame " << k;
  }
  const hid_t rgb_set = H5Dopen2(file.id, "/frames/rgb", H5P_DEFAULT);
  EXPECT_EQ(string_attribute(rgb_set, "CLASS"), "IMAGE");
  EXPECT_EQ(string_attribute(rgb_set, "IMAGE_VERSION"), "1.2");
  EXPECT_EQ(string_attribute(rgb_set, "IMAGE_SUBCLASS"), "IMAGE_TRUECOLOR");
  EXPECT_EQ(string_attribute(rgb_set, "INTERLACE_MODE"), "INTERLACE_PIXEL");
  H5Dclose(rgb_set);
  EXPECT_NE(string_attribute(file.id, "insitu_config").find("every = 3"), std::string::npos);
  EXPECT_FALSE(string_attribute(file.id, "granray_version").empty());

  if (!command_output("command -v h5dump").empty()) {
    int status = 0;
    const std::string dump = command_output("h5dump -A " + h5, &status);
    EXPECT_EQ(status, 0) << dump;
    EXPECT_NE(dump.find("IMAGE_TRUECOLOR"), std::string::npos);
    EXPECT_NE(dump.find("( 5, 48, 80, 3 )"), std::string::npos) << dump;
  }
}

// Posters (contract 5): a frame larger than max_chunk_bytes is chunked in bands of rows, written as
// its rows arrive in bands of any height, deflated in parallel; it reads back exactly, through
// HDF5's own filter, beside ordinary appends to the same file and after a restart.
TEST_F(Hdf5OutputTest, PosterFramesAreChunkedByRowsAndReadBackExactly) {
  Rng rng(fresh_seed());
  for (int level : {0, 1, 6}) {
    const std::string h5 = dir_ + "/poster" + std::to_string(level) + ".h5";
    const int width = std::uniform_int_distribution<int>(50, 300)(rng);
    const int height = std::uniform_int_distribution<int>(40, 250)(rng);
    io::Hdf5Options options;
    options.compression = level;
    options.durable = false;
    options.max_chunk_bytes = std::size_t(width) * 3 * 16;  // 16 rows: every frame is a poster
    options.poster_chunk_bytes =
        std::size_t(width) * 3 * std::uniform_int_distribution<int>(1, 7)(rng);
    std::vector<Image> frames;
    for (int k = 0; k < 3; ++k) {
      Image image;
      image.width = width;
      image.height = height;
      image.rgb.resize(std::size_t(width) * height * 3);
      for (std::size_t p = 0; p < image.rgb.size(); ++p) {
        image.rgb[p] = static_cast<std::uint8_t>(p % 7 == 0 ? rng() : (p / 97) % 256);
      }
      frames.push_back(std::move(image));
    }
    int chunk_rows = 0;
    for (int k = 0; k < 3; ++k) {
      // A restart before the last frame: the chunking is read from the file.
      io::Hdf5FrameFile file(h5, width, height, "[insitu]", options);
      chunk_rows = file.chunk_rows();
      EXPECT_EQ(file.frames(), std::uint64_t(k));
      io::FrameMetadata meta;
      meta.step = 100 + k;
      if (k == 1) {
        file.append(frames[std::size_t(k)], meta);
        continue;
      }
      file.begin_frame();
      int row = 0;
      while (row < height) {
        const int rows =
            std::min(height - row, std::uniform_int_distribution<int>(0, 2 * chunk_rows + 3)(rng));
        file.write_rows(frames[std::size_t(k)].rgb.data() + std::size_t(row) * width * 3, rows);
        row += rows;
      }
      file.end_frame(meta);
      if (k == 0) {
        // Too few rows is an error, and the file keeps the frames it had.
        file.begin_frame();
        file.write_rows(frames[0].rgb.data(), height - 1);
        EXPECT_THROW(file.end_frame(meta), OutputError);
        EXPECT_EQ(file.frames(), 1u);
      }
    }
    EXPECT_EQ(chunk_rows, std::max<int>(1, int(options.poster_chunk_bytes / (width * 3))));
    H5File file(h5);
    EXPECT_EQ(dims_of(file.id, "/frames/rgb"),
              (std::vector<hsize_t>{3, hsize_t(height), hsize_t(width), 3}));
    const auto rgb = read_all<std::uint8_t>(file.id, "/frames/rgb", H5T_NATIVE_UINT8);
    for (int k = 0; k < 3; ++k) {
      const std::size_t bytes = std::size_t(width) * height * 3;
      EXPECT_TRUE(std::equal(frames[std::size_t(k)].rgb.begin(), frames[std::size_t(k)].rgb.end(),
                             rgb.begin() + std::ptrdiff_t(k * bytes)))
          << "frame " << k << ", level " << level << ", " << width << " x " << height << ", "
          << chunk_rows << " rows a chunk";
    }
    EXPECT_EQ(read_all<std::int64_t>(file.id, "/frames/step", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{100, 101, 102}));
  }
}

TEST_F(Hdf5OutputTest, RestartAppendsWhenTheLayoutMatchesAndRefusesOtherwise) {
  const std::string h5 = dir_ + "/run.h5";
  const std::vector<Vec4> grains = {{0, 0, 0, 1}, {2, 1, 0, 0.5f}};
  auto run = [&](int width, int first, int count) {
    InsituRenderer vis(
        parse_insitu_config("[insitu]\nevery = 1\nheight = 20\nbackend = \"cpu\"\n", "sim.toml",
                            {"width=" + std::to_string(width), "output=\"" + h5 + "\""}),
        {});
    for (int s = first; s < first + count; ++s)
      vis.render(s, s, adapters::host_particles(grains.data(), 2));
  };
  run(30, 0, 2);
  {  // A file of an earlier version: no exchange bytes per rank yet.
    const hid_t file = H5Fopen(h5.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    ASSERT_GE(H5Ldelete(file, "/frames/rank_exchange_bytes", H5P_DEFAULT), 0);
    H5Fclose(file);
  }
  run(30, 2, 3);
  {
    H5File file(h5);
    EXPECT_EQ(read_all<std::int64_t>(file.id, "/frames/step", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    // Added on appending, as long as the frames: the earlier frames read 0.
    EXPECT_EQ(dims_of(file.id, "/frames/rank_exchange_bytes"), (std::vector<hsize_t>{5, 1}));
  }
  const auto size_before = std::filesystem::file_size(h5);
  EXPECT_THROW(run(31, 5, 1), ConfigError) << "a different frame size must be refused";
  EXPECT_EQ(std::filesystem::file_size(h5), size_before);

  const std::string text = dir_ + "/notes.h5";
  std::ofstream(text) << "not an HDF5 file";
  try {
    InsituRenderer(parse_insitu_config("", "sim.toml", {"output=\"" + text + "\""}), {});
    FAIL() << "a non-HDF5 file was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("refusing"), std::string::npos) << e.what();
  }
  std::ifstream in(text);
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "not an HDF5 file");
}

TEST_F(Hdf5OutputTest, PerRankValuesGrowWithTheRankCount) {
  Rng rng(fresh_seed());
  const std::string h5 = dir_ + "/ranks.h5";
  const int first_ranks = 1 + static_cast<int>(rng() % 3), more_ranks = first_ranks + 2;
  std::vector<std::vector<RankStats>> written;
  {
    io::Hdf5FrameFile file(h5, 8, 6, "[insitu]\n");
    Image image;
    image.width = 8;
    image.height = 6;
    image.rgb.assign(8 * 6 * 3, 7);
    for (const int ranks : {first_ranks, more_ranks, first_ranks}) {
      io::FrameMetadata meta;
      for (int r = 0; r < ranks; ++r) {
        meta.ranks.push_back({rng() % 1000, uniform(rng, 0.1f, 9.0f), uniform(rng, 0.1f, 9.0f),
                              uniform(rng, 0.1f, 9.0f), double(rng() % 100000000)});
      }
      meta.composite_ms = meta.ranks[0].composite_ms;
      file.append(image, meta);
      written.push_back(meta.ranks);
    }
  }
  H5File file(h5);
  EXPECT_EQ(dims_of(file.id, "/frames/rank_particles"),
            (std::vector<hsize_t>{3, hsize_t(more_ranks)}));
  EXPECT_EQ(read_all<std::int32_t>(file.id, "/frames/ranks", H5T_NATIVE_INT32),
            (std::vector<std::int32_t>{first_ranks, more_ranks, first_ranks}));
  const auto particles =
      read_all<std::uint64_t>(file.id, "/frames/rank_particles", H5T_NATIVE_UINT64);
  const auto grid = read_all<double>(file.id, "/frames/rank_grid_ms", H5T_NATIVE_DOUBLE);
  const auto composite = read_all<double>(file.id, "/frames/rank_composite_ms", H5T_NATIVE_DOUBLE);
  const auto sent =
      read_all<std::uint64_t>(file.id, "/frames/rank_exchange_bytes", H5T_NATIVE_UINT64);
  for (std::size_t f = 0; f < 3; ++f) {
    for (int r = 0; r < more_ranks; ++r) {
      const std::size_t at = f * more_ranks + r;
      if (r < static_cast<int>(written[f].size())) {
        EXPECT_EQ(particles[at], written[f][r].particles);
        EXPECT_DOUBLE_EQ(grid[at], written[f][r].grid_ms);
        EXPECT_DOUBLE_EQ(composite[at], written[f][r].composite_ms);
        EXPECT_EQ(double(sent[at]), written[f][r].exchange_bytes);
      } else {
        EXPECT_EQ(particles[at], 0u) << "frame " << f << " had no rank " << r;
        EXPECT_TRUE(std::isnan(grid[at])) << "frame " << f << " had no rank " << r;
      }
    }
  }
}

TEST_F(Hdf5OutputTest, UnwritablePathIsAnErrorAtStart) {
  const std::string file = dir_ + "/plain";
  std::ofstream(file) << "x";
  EXPECT_THROW(
      InsituRenderer(parse_insitu_config("", "sim.toml", {"output=\"" + file + "/sub/f.h5\""}), {}),
      ConfigError);
}

// A damaged frames file met on restart (a local heap whose size fuzzing corrupted: HDF5 allocated
// without end opening it). The open is rehearsed in a child process first: refused with the path,
// the file left byte for byte as it was, and a frames file that is fine still appends.
TEST_F(Hdf5OutputTest, ADamagedFileOnRestartIsRefusedAndLeftAsItWas) {
  const std::string damaged = dir_ + "/damaged.h5";
  std::filesystem::copy_file(std::string(GRANRAY_SOURCE_DIR) +
                                 "/tests/fuzz/regressions/hdf5_frames/"
                                 "local-heap-size-exhausts-memory.h5",
                             damaged);
  const auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string before = bytes(damaged);
  try {
    io::Hdf5FrameFile frames(damaged, 8, 6, "");
    FAIL() << "a damaged file was opened";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find(damaged + ": "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("refusing"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bytes(damaged), before);

  // The undamaged original of that file (the fuzzers' seed) takes a fourth frame.
  const std::string fine = dir_ + "/fine.h5";
  std::filesystem::copy_file(
      std::string(GRANRAY_SOURCE_DIR) + "/tests/fuzz/corpus/hdf5_frames/dem-8x6-3frames.h5", fine);
  {
    io::Hdf5Options options;
    options.durable = false;
    io::Hdf5FrameFile frames(fine, 8, 6, "", options);
    ASSERT_EQ(frames.frames(), 3u);
    Image image;
    image.width = 8;
    image.height = 6;
    image.rgb.assign(8 * 6 * 3, 99);
    io::FrameMetadata meta;
    meta.step = 3;
    frames.append(image, meta);
  }
  H5File file(fine);
  const auto steps = read_all<std::int64_t>(file.id, "/frames/step", H5T_NATIVE_INT64);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[3], 3);
}

}  // namespace
}  // namespace granray::test
