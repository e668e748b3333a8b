// HDF5 output (SPEC 5) and the writer thread: read back through the HDF5 C API and h5dump,
// frames equal to the PNGs, appending on restart, crash safety under SIGKILL, a full disk,
// 10,000 frames in flat memory, back-pressure and dropping.
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

std::string run_command(const std::string& command, int* status = nullptr) {
  const CommandResult r = granray::test::run_command(command);
  if (status) *status = r.status;
  return r.output;
}

class Hdf5OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_path("h5-" + std::to_string(fresh_seed()));
    std::filesystem::create_directories(dir_);
  }
  std::string dir_;
};

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

  if (!run_command("command -v h5dump").empty()) {
    int status = 0;
    const std::string dump = run_command("h5dump -A " + h5, &status);
    EXPECT_EQ(status, 0) << dump;
    EXPECT_NE(dump.find("IMAGE_TRUECOLOR"), std::string::npos);
    EXPECT_NE(dump.find("( 5, 48, 80, 3 )"), std::string::npos) << dump;
  }
}

// Posters (SPEC 5): a frame larger than max_chunk_bytes is chunked in bands of rows, written as
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
  run(30, 2, 3);
  {
    H5File file(h5);
    EXPECT_EQ(read_all<std::int64_t>(file.id, "/frames/step", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
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
                              uniform(rng, 0.1f, 9.0f)});
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
  for (std::size_t f = 0; f < 3; ++f) {
    for (int r = 0; r < more_ranks; ++r) {
      const std::size_t at = f * more_ranks + r;
      if (r < static_cast<int>(written[f].size())) {
        EXPECT_EQ(particles[at], written[f][r].particles);
        EXPECT_DOUBLE_EQ(grid[at], written[f][r].grid_ms);
        EXPECT_DOUBLE_EQ(composite[at], written[f][r].composite_ms);
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

// The last "written N" line of a writer_probe's output: the frames it reported durable.
unsigned long long reported_frames(const std::string& printed) {
  const std::size_t at = printed.rfind("written ");
  return at == std::string::npos ? 0 : std::stoull(printed.substr(at + 8));
}

// A file left by a writer that died after reporting `reported` frames: it opens, its steps count
// up from 0, every reported frame reads back and equals the first (the probe draws the same
// grains every frame), and h5ls reads the whole file. A file is only there once created whole.
void expect_every_reported_frame(const std::string& h5, unsigned long long reported) {
  if (reported == 0 && !std::filesystem::exists(h5)) return;  // cut while creating it
  H5File file(h5);
  ASSERT_GE(file.id, 0) << "the file does not open";
  const auto steps = read_all<std::int64_t>(file.id, "/frames/step", H5T_NATIVE_INT64);
  ASSERT_GE(steps.size(), reported);
  for (std::size_t k = 0; k < steps.size(); ++k) ASSERT_EQ(steps[k], std::int64_t(k));
  const auto rgb = read_all<std::uint8_t>(file.id, "/frames/rgb", H5T_NATIVE_UINT8);
  const std::size_t frame = 96 * 64 * 3;
  ASSERT_GE(rgb.size(), reported * frame);
  for (std::size_t k = 1; k < reported; ++k) {
    ASSERT_TRUE(std::equal(rgb.begin(), rgb.begin() + frame, rgb.begin() + k * frame)) << k;
  }
  static const bool have_h5ls = !run_command("command -v h5ls").empty();
  if (have_h5ls) {
    int status = 0;
    const std::string ls = run_command("h5ls -r " + h5, &status);
    EXPECT_EQ(status, 0) << ls;
  }
}

TEST_F(Hdf5OutputTest, KilledWriterLeavesAReadableFileWithEveryReportedFrame) {
  Rng rng(fresh_seed());
  // The issue asks for at least 30 kills in one test run. Delays spread from before the file is
  // made to a few hundred frames in.
  for (int trial = 0; trial < 32; ++trial) {
    const std::string h5 = dir_ + "/kill" + std::to_string(trial) + ".h5";
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t child = fork();
    if (child == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      execl(GRANRAY_WRITER_PROBE, GRANRAY_WRITER_PROBE, "kill", h5.c_str(), nullptr);
      _exit(127);
    }
    close(out[1]);
    const auto delay = std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 700)(rng));
    std::this_thread::sleep_for(delay);
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    std::string printed;
    char buf[4096];
    for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) printed.append(buf, std::size_t(n));
    close(out[0]);
    const unsigned long long reported = reported_frames(printed);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " killed after " << delay.count()
                                      << " ms, " << reported << " frames reported");
    ASSERT_NO_FATAL_FAILURE(expect_every_reported_frame(h5, reported));
  }
}

// A timed kill rarely lands inside a flush; here the writer is cut just before one chosen write
// to the file: at every write of the 65th frame, which splits the root of /frames/rgb's chunk
// index (a node holds 64 entries: the old entries move to a new node and the root is rewritten
// to point there), and of the 128th, which splits a full leaf under it, and at random writes.
TEST_F(Hdf5OutputTest, WriterCutAtAnyWriteKeepsEveryReportedFrame) {
  Rng rng(fresh_seed());
  const std::string preload = std::string("LD_PRELOAD=") + GRANRAY_CRASH_AT_WRITE_LIB + " ";
  const std::string probe = std::string(GRANRAY_WRITER_PROBE) + " frames ";
  const std::string log = dir_ + "/writes.txt";
  int status = -1;
  const std::string whole = run_command(
      "GRANRAY_WRITE_LOG=" + log + " " + preload + probe + dir_ + "/whole.h5 130", &status);
  ASSERT_EQ(status, 0) << whole;
  std::vector<long> durable;  // the write count at each frame's fsync
  std::ifstream in(log);
  for (long n; in >> n;) durable.push_back(n);
  ASSERT_EQ(durable.size(), 130u) << "one fsync per frame";
  std::vector<long> cuts;
  for (const int frame : {64, 127}) {
    for (long n = durable[frame - 1] + 1; n <= durable[frame]; ++n) cuts.push_back(n);
  }
  std::uniform_int_distribution<long> anywhere(1, durable.back());
  for (int k = 0; k < 6; ++k) cuts.push_back(anywhere(rng));
  for (const long cut : cuts) {
    const std::string h5 = dir_ + "/cut" + std::to_string(cut) + ".h5";
    const std::string printed = run_command(
        "GRANRAY_CRASH_AT_WRITE=" + std::to_string(cut) + " " + preload + probe + h5 + " 130",
        &status);
    ASSERT_NE(status, 0) << "the writer was not cut at write " << cut;
    const unsigned long long reported = reported_frames(printed);
    SCOPED_TRACE(::testing::Message()
                 << "cut before write " << cut << ", " << reported << " frames reported");
    ASSERT_NO_FATAL_FAILURE(expect_every_reported_frame(h5, reported));
    std::filesystem::remove(h5);
  }
}

TEST_F(Hdf5OutputTest, FullDiskLosesFramesNotTheSimulation) {
  const std::string h5 = dir_ + "/full.h5";
  int status = -1;
  const std::string out =
      run_command(std::string(GRANRAY_WRITER_PROBE) + " full " + h5 + " 300000", &status);
  ASSERT_EQ(status, 0) << out;
  unsigned long long rendered = 0, written = 0, lost = 0, failed = 0;
  ASSERT_EQ(std::sscanf(out.substr(out.rfind("rendered")).c_str(),
                        "rendered %llu written %llu lost %llu failed %llu", &rendered, &written,
                        &lost, &failed),
            4)
      << out;
  EXPECT_EQ(rendered, 20u) << "every frame was rendered: the simulation went on";
  EXPECT_GE(written, 1u);
  EXPECT_GE(lost, 1u) << "the size limit was never reached";
  EXPECT_EQ(written + lost, 20u);
  EXPECT_NE(out.find("lost"), std::string::npos);
  H5File file(h5);
  ASSERT_GE(file.id, 0);
  EXPECT_EQ(dims_of(file.id, "/frames/step")[0], written) << "the file holds the written frames";
}

long resident_kib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// Every frame adds nodes to the chunk indices; HDF5's adaptive metadata cache used to keep them
// all (resident memory grew by 1.4 MiB from frame 5,000 to 10,000 here). Bounded, memory stops
// growing once the cache is full.
TEST_F(Hdf5OutputTest, TenThousandFramesInFlatMemory) {
  io::WriterOptions o;
  o.hdf5_path = dir_ + "/many.h5";
  o.width = 16;
  o.height = 12;
  o.hdf5.durable = false;  // the memory, not the disk, is under test here
  o.queue = 8;
  io::FrameWriter writer(o);
  Image image;
  image.width = 16;
  image.height = 12;
  image.rgb.assign(16 * 12 * 3, 7);
  long at_1000 = 0, at_5000 = 0;
  for (int k = 0; k < 10000; ++k) {
    io::FrameJob job;
    job.image = image;
    job.meta.step = k;
    writer.submit(std::move(job));
    if (k == 999 || k == 4999) {
      writer.drain();
      (k == 999 ? at_1000 : at_5000) = resident_kib();
    }
  }
  writer.drain();
  const long at_10000 = resident_kib();
  std::printf("[ memory   ] resident after 1,000 / 5,000 / 10,000 frames: %ld / %ld / %ld KiB\n",
              at_1000, at_5000, at_10000);
  EXPECT_EQ(writer.counters().written, 10000u);
  EXPECT_LT(at_10000 - at_1000, 4 * 1024);
  EXPECT_LT(at_10000 - at_5000, 512);
}

TEST_F(Hdf5OutputTest, FullQueueMakesTheCallerWaitOrDrops) {
  for (const bool drop : {false, true}) {
    std::promise<void> entered, release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> first{true};
    io::WriterOptions o;
    o.queue = 2;
    o.drop = drop;
    o.before_write = [&](std::int64_t) {
      if (first.exchange(false)) {
        entered.set_value();
        released.wait();
      }
    };
    io::FrameWriter writer(o);
    auto job = [](std::int64_t step) {
      io::FrameJob j;
      j.meta.step = step;
      return j;
    };
    EXPECT_TRUE(writer.submit(job(0)));
    entered.get_future().wait();  // the writer holds frame 0
    EXPECT_TRUE(writer.submit(job(1)));
    EXPECT_TRUE(writer.submit(job(2)));  // the queue (2) is now full
    std::atomic<bool> returned{false};
    bool accepted = true;
    std::thread producer([&] {
      accepted = writer.submit(job(3));
      returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(returned.load(), drop) << (drop ? "drop mode must not wait" : "must wait for room");
    release.set_value();
    producer.join();
    writer.drain();
    EXPECT_EQ(accepted, !drop);
    EXPECT_EQ(writer.counters().written, drop ? 3u : 4u);
    EXPECT_EQ(writer.counters().dropped, drop ? 1u : 0u);
  }
}

TEST_F(Hdf5OutputTest, ImagesToRenderIntoAreReadyFromTheStartAndComeBack) {
  Rng rng(fresh_seed());
  io::WriterOptions o;
  o.queue = std::uniform_int_distribution<std::size_t>(1, 5)(rng);
  o.width = std::uniform_int_distribution<int>(1, 300)(rng);
  o.height = std::uniform_int_distribution<int>(1, 200)(rng);
  o.drop = true;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  o.before_write = [&](std::int64_t) { released.wait(); };
  io::FrameWriter writer(o);
  // Queue + 2 images, full size, before any frame: the time loop never renders into fresh memory.
  std::vector<Image> pool;
  for (std::size_t k = 0; k < o.queue + 2; ++k) {
    pool.push_back(writer.recycled_image());
    ASSERT_EQ(pool.back().rgb.size(), std::size_t(o.width) * o.height * 3) << k;
  }
  EXPECT_TRUE(writer.recycled_image().rgb.empty()) << "no more than queue + 2";
  // Written and dropped frames both give their image back.
  std::size_t submitted = 0;
  for (Image& image : pool) {
    io::FrameJob job;
    job.meta.step = std::int64_t(submitted++);
    job.image = std::move(image);
    writer.submit(std::move(job));
  }
  release.set_value();
  writer.drain();
  EXPECT_GE(writer.counters().dropped, 1u) << "the queue of " << o.queue << " overflowed";
  EXPECT_EQ(writer.counters().written + writer.counters().dropped, submitted);
  for (std::size_t k = 0; k < o.queue + 2; ++k) {
    EXPECT_EQ(writer.recycled_image().rgb.size(), std::size_t(o.width) * o.height * 3) << k;
  }
}

// Pixels a renderer would still be copying: complete() fills the image with this frame's pattern
// (or fails, as a lost GPU copy would), and the counters say who was completed and released.
struct PatternPending final : PendingPixels {
  std::vector<std::uint8_t> pattern;
  bool fails = false;
  std::atomic<int>* completed;
  std::atomic<int>* released;
  PatternPending(std::vector<std::uint8_t> p, bool f, std::atomic<int>* c, std::atomic<int>* r)
      : pattern(std::move(p)), fails(f), completed(c), released(r) {}
  ~PatternPending() override { ++*released; }
  void complete(Image& image) override {
    ++*completed;
    if (fails) throw DeviceError("test: the copy of this frame failed");
    ASSERT_EQ(image.rgb.size(), pattern.size());
    image.rgb = pattern;
  }
};

TEST_F(Hdf5OutputTest, PendingPixelsAreSettledBeforeWritingAndDroppedWithTheirFrame) {
  Rng rng(fresh_seed());
  const int width = std::uniform_int_distribution<int>(1, 90)(rng);
  const int height = std::uniform_int_distribution<int>(1, 60)(rng);
  const int frames = std::uniform_int_distribution<int>(4, 9)(rng);
  const int failing = std::uniform_int_distribution<int>(0, frames - 1)(rng);
  std::atomic<int> completed{0}, released{0};
  std::vector<std::string> log;
  std::mutex log_mutex;
  std::vector<std::vector<std::uint8_t>> written;
  const std::string h5 = dir_ + "/pending.h5";
  {
    io::WriterOptions o;
    o.hdf5_path = h5;
    o.width = width;
    o.height = height;
    o.log = [&](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mutex);
      log.push_back(line);
    };
    io::FrameWriter writer(o);
    for (int k = 0; k < frames; ++k) {
      io::FrameJob job;
      job.meta.step = k;
      job.png_path = io::expand_frame_pattern(dir_ + "/p_*.png", k, 8);
      job.image = writer.recycled_image();
      std::vector<std::uint8_t> pattern(job.image.rgb.size());
      for (auto& b : pattern) b = static_cast<std::uint8_t>(rng());
      job.image.pending =
          std::make_shared<PatternPending>(pattern, k == failing, &completed, &released);
      if (k != failing) written.push_back(pattern);
      EXPECT_TRUE(writer.submit(std::move(job)));
    }
    writer.drain();
    EXPECT_EQ(completed.load(), frames);
    EXPECT_EQ(released.load(), frames) << "every pending part is let go once settled";
    EXPECT_EQ(writer.counters().written, std::uint64_t(frames - 1));
    EXPECT_EQ(writer.counters().lost, 1u);
  }
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("step " + std::to_string(failing)), std::string::npos) << log[0];
  EXPECT_NE(log[0].find("the copy of this frame failed"), std::string::npos) << log[0];
  EXPECT_FALSE(std::filesystem::exists(io::expand_frame_pattern(dir_ + "/p_*.png", failing, 8)));
  H5File file(h5);
  ASSERT_GE(file.id, 0);
  const auto rgb = read_all<std::uint8_t>(file.id, "/frames/rgb", H5T_NATIVE_UINT8);
  const std::size_t size = std::size_t(width) * height * 3;
  ASSERT_EQ(rgb.size(), written.size() * size);
  for (std::size_t k = 0; k < written.size(); ++k) {
    EXPECT_TRUE(std::equal(written[k].begin(), written[k].end(), rgb.begin() + k * size)) << k;
  }

  // A dropped frame's pending pixels are let go unread, and its image comes back clean.
  completed = released = 0;
  io::WriterOptions o;
  o.queue = 1;
  o.drop = true;
  o.width = width;
  o.height = height;
  std::promise<void> entered, release;
  std::shared_future<void> released_writer = release.get_future().share();
  std::atomic<bool> first{true};
  o.before_write = [&](std::int64_t) {
    if (first.exchange(false)) {
      entered.set_value();
      released_writer.wait();
    }
  };
  io::FrameWriter writer(o);
  for (int k = 0; k < 3; ++k) {
    io::FrameJob job;
    job.meta.step = k;
    job.image = writer.recycled_image();
    job.image.pending = std::make_shared<PatternPending>(
        std::vector<std::uint8_t>(job.image.rgb.size(), 7), false, &completed, &released);
    writer.submit(std::move(job));
    if (k == 0) entered.get_future().wait();  // the writer holds frame 0; 1 queues, 2 drops
  }
  EXPECT_EQ(writer.counters().dropped, 1u);
  EXPECT_EQ(released.load(), 1) << "the dropped frame's pending part";
  EXPECT_EQ(completed.load(), 0);
  release.set_value();
  writer.drain();
  EXPECT_EQ(completed.load(), 2);
  EXPECT_EQ(released.load(), 3);
  for (int k = 0; k < 3; ++k) EXPECT_FALSE(writer.recycled_image().pending) << k;
}

}  // namespace
}  // namespace granray::test
