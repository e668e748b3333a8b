#include "granray/io/hdf5_frame_file.h"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <vector>

#include "child_check.h"
#include "granray/errors.h"
#include "hdf5_frame_file_impl.h"
#include "in_place_last_driver.h"

#ifndef GRANRAY_VERSION
#define GRANRAY_VERSION "unknown"
#endif

namespace granray::io {

FrameMetadata frame_metadata(const FrameStats& stats, std::int64_t step, double time) {
  FrameMetadata meta;
  meta.step = step;
  meta.time = time;
  meta.particles = stats.particles;
  meta.skipped = stats.skipped;
  meta.camera = stats.camera;
  meta.colored = stats.colored;
  meta.color_lo = stats.color_lo;
  meta.color_hi = stats.color_hi;
  meta.grid_ms = stats.grid_ms;
  meta.render_ms = stats.render_ms;
  meta.frame_ms = stats.total_ms;
  meta.composite_ms = stats.composite_ms;
  meta.ranks = stats.ranks;
  if (meta.ranks.empty())
    meta.ranks.push_back({stats.particles, stats.grid_ms, stats.render_ms, 0.0});
  return meta;
}

Hdf5FrameFile::Hdf5FrameFile(const std::string& path, int width, int height,
                             const std::string& config_text, const Hdf5Options& options)
    : impl_(std::make_unique<Impl>()) {
  silence_hdf5();
  impl_->path = path;
  impl_->width = width;
  impl_->height = height;
  impl_->options = options;
  impl_->set_up_lists();
  if (std::filesystem::exists(path)) {
    rehearse_restart();
    impl_->open_existing();
  } else {
    const auto dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    impl_->create(config_text);
  }
}

// HDF5 trusts the sizes and addresses a file holds: some damage makes it allocate without end or
// crash (found by fuzzing). So a restart is first rehearsed in a child process, where the driver
// keeps every write in memory: open, check, trim, append a blank frame, close. Only a file the
// child came through is opened here.
void Hdf5FrameFile::rehearse_restart() {
  Impl& f = *impl_;
  const auto failure = failure_in_child([&] {
    f.dry_run = true;
    f.options.durable = false;
    f.open_existing();
    Image blank;
    blank.width = f.width;
    blank.height = f.height;
    blank.rgb.assign(std::size_t(f.width) * f.height * 3, 0);
    append_frame(blank, FrameMetadata{});
    f.series.clear();
    f.rgb.reset();
    f.file.reset();
  });
  if (!failure) return;
  if (failure->rfind(f.path + ": ", 0) == 0) throw OutputError(*failure);  // a clean refusal
  throw OutputError(f.path + ": exists but HDF5 cannot open it (trying in a separate process, it " +
                    *failure + "); refusing to append to or overwrite it");
}

Hdf5FrameFile::~Hdf5FrameFile() = default;

std::uint64_t Hdf5FrameFile::frames() const { return impl_->frames; }
const std::string& Hdf5FrameFile::path() const { return impl_->path; }

// A failed write or flush (disk full, say) leaves HDF5's in-memory state unreliable: the next
// frame starts from what the last successful flush put on disk.
template <class Step>
static void or_broken(Hdf5FrameFile::Impl& f, Step&& step) {
  try {
    step();
  } catch (...) {
    f.broken = true;
    f.in_frame = false;
    f.band.clear();
    throw;
  }
}

namespace {

void check_fits(const Hdf5FrameFile::Impl& f, const Image& image, const std::string& what) {
  if (image.width != f.width || image.height != f.height) {
    throw OutputError(f.path + ": " + what + " of " + std::to_string(image.width) + " x " +
                      std::to_string(image.height) + " does not fit the file's " +
                      std::to_string(f.width) + " x " + std::to_string(f.height));
  }
}

}  // namespace

void Hdf5FrameFile::append(const Image& image, const FrameMetadata& m,
                           const std::vector<ViewImage>& views) {
  check_fits(*impl_, image, "frame");
  begin_frame();
  write_rows(image.rgb.data(), image.height);
  for (const ViewImage& view : views) write_view(view);
  end_frame(m);
}

void Hdf5FrameFile::write_view(const ViewImage& view) {
  Impl& f = *impl_;
  if (!f.in_frame) throw OutputError(f.path + ": a view written outside a frame");
  if (view.image == nullptr)
    throw OutputError(f.path + ": view \"" + view.name + "\" has no image");
  check_fits(f, *view.image, "view \"" + view.name + "\"");
  const auto found = std::find_if(f.views.begin(), f.views.end(),
                                  [&](const ViewDatasets& v) { return v.name == view.name; });
  if (found == f.views.end()) {
    throw OutputError(f.path + ": has no view \"" + view.name + "\" (Hdf5Options::views)");
  }
  silence_hdf5();
  or_broken(f, [&] {
    const auto start = std::chrono::steady_clock::now();
    f.write_view(*found, *view.image, view.camera);
    f.rows_write_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
}

void Hdf5FrameFile::begin_frame() {
  Impl& f = *impl_;
  silence_hdf5();
  if (f.in_frame) throw OutputError(f.path + ": a frame was begun before the last one ended");
  if (f.broken) f.reopen();
  f.check_space(std::uint64_t(f.width) * f.height * 3 * (1 + f.views.size()));
  or_broken(f, [&] {
    f.resize_all(f.frames + 1);
    f.in_frame = true;
    f.rows_done = 0;
    f.rows_write_ms = 0.0;
    f.band.clear();
  });
}

int Hdf5FrameFile::chunk_rows() const { return static_cast<int>(impl_->chunk_rows); }

void Hdf5FrameFile::write_rows(const std::uint8_t* rgb, int rows) {
  Impl& f = *impl_;
  if (!f.in_frame) throw OutputError(f.path + ": rows written outside a frame");
  const std::size_t row_bytes = std::size_t(f.width) * 3;
  const hsize_t held = f.band.size() / row_bytes;
  if (rows < 0 || f.rows_done + held + hsize_t(rows) > hsize_t(f.height)) {
    throw OutputError(f.path + ": a frame of " + std::to_string(f.height) + " rows given " +
                      std::to_string(f.rows_done + held + hsize_t(rows)));
  }
  silence_hdf5();
  or_broken(f, [&] {
    const auto start = std::chrono::steady_clock::now();
    put_rows(rgb, std::size_t(rows));
    f.rows_write_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
}

// Rows into the frame being written: whole chunks straight from `rgb` while nothing is held (an
// in-situ frame is one chunk: no copy), the rest through the band until its chunks are whole.
void Hdf5FrameFile::put_rows(const std::uint8_t* rgb, std::size_t rows) {
  Impl& f = *impl_;
  const std::size_t chunk_bytes = std::size_t(f.chunk_rows) * f.width * 3;
  // Whole chunks go out in groups of about max_chunk_bytes, one chunk per core at a time.
  const std::size_t group = std::max<std::size_t>(1, f.options.max_chunk_bytes / chunk_bytes);
  std::size_t bytes = rows * std::size_t(f.width) * 3;
  if (f.band.empty()) {
    const std::size_t whole = bytes / chunk_bytes;
    for (std::size_t done = 0; done < whole; done += group) {
      write_whole_chunks(rgb + done * chunk_bytes, std::min(group, whole - done));
    }
    rgb += whole * chunk_bytes;
    bytes -= whole * chunk_bytes;
  }
  f.band.insert(f.band.end(), rgb, rgb + bytes);
  while (f.band.size() >= group * chunk_bytes) {
    write_whole_chunks(f.band.data(), group);
    f.band.erase(f.band.begin(), f.band.begin() + std::ptrdiff_t(group * chunk_bytes));
  }
}

// The band's last rows, padded to whole chunks (HDF5 keeps edge chunks whole), into the file.
void Hdf5FrameFile::put_last_chunks() {
  Impl& f = *impl_;
  if (f.band.empty()) return;
  const std::size_t chunk_bytes = std::size_t(f.chunk_rows) * f.width * 3;
  const std::size_t count = (f.band.size() + chunk_bytes - 1) / chunk_bytes;
  f.band.resize(count * chunk_bytes, 0);
  write_whole_chunks(f.band.data(), count);
  f.band.clear();
}

// `count` chunks' rows, from the frame's next chunk on, into the file.
void Hdf5FrameFile::write_whole_chunks(const std::uint8_t* rows, std::size_t count) {
  Impl& f = *impl_;
  if (f.chunk_rows == hsize_t(f.height)) {
    // One chunk per frame: HDF5's own filter, as every frame before posters.
    f.write_row(f.rgb.get(), H5T_NATIVE_UINT8, rows, "/frames/rgb");
  } else {
    f.write_chunks(rows, f.rows_done / f.chunk_rows, count);
  }
  f.rows_done += count * f.chunk_rows;
}

void Hdf5FrameFile::end_frame(const FrameMetadata& m) {
  Impl& f = *impl_;
  if (!f.in_frame) throw OutputError(f.path + ": a frame ended that was never begun");
  const std::size_t row_bytes = std::size_t(f.width) * 3;
  if (f.rows_done + f.band.size() / row_bytes != hsize_t(f.height)) {
    const std::string given = std::to_string(f.rows_done + f.band.size() / row_bytes);
    or_broken(f, [&] {
      // The frame is dropped: its rows and extents go, so that no later close keeps them.
      f.in_frame = false;
      f.band.clear();
      f.resize_all(f.frames);
      throw OutputError(f.path + ": frame ended after " + given + " of its " +
                        std::to_string(f.height) + " rows; the frame is not kept");
    });
  }
  silence_hdf5();
  or_broken(f, [&] {
    const auto start = std::chrono::steady_clock::now();
    put_last_chunks();
    f.rows_write_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    f.in_frame = false;
    write_metadata(m, f.rows_write_ms);
  });
}

void Hdf5FrameFile::append_frame(const Image& image, const FrameMetadata& m) {
  Impl& f = *impl_;
  const auto start = std::chrono::steady_clock::now();
  f.resize_all(f.frames + 1);
  f.rows_done = 0;
  f.band.clear();
  put_rows(image.rgb.data(), std::size_t(image.height));
  put_last_chunks();
  const double write_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  write_metadata(m, write_ms);
}

void Hdf5FrameFile::write_metadata(const FrameMetadata& m, double write_ms) {
  Impl& f = *impl_;
  const float nan = std::nanf("");
  const bool ortho = m.camera.projection == Projection::orthographic;
  const float eye[3] = {m.camera.eye.x, m.camera.eye.y, m.camera.eye.z};
  const float target[3] = {m.camera.target.x, m.camera.target.y, m.camera.target.z};
  const float up[3] = {m.camera.up.x, m.camera.up.y, m.camera.up.z};
  const float fov = ortho ? nan : m.camera.fov;
  const float ortho_height = ortho ? m.camera.ortho_height : nan;
  const float range[2] = {m.colored ? m.color_lo : nan, m.colored ? m.color_hi : nan};
  std::vector<RankStats> shares = m.ranks;
  if (shares.empty()) shares.push_back({});
  const auto ranks = static_cast<std::int32_t>(shares.size());
  std::vector<std::uint64_t> rank_particles;
  std::vector<double> rank_grid, rank_render, rank_composite;
  std::vector<std::uint64_t> rank_exchange;
  for (const RankStats& r : shares) {
    rank_particles.push_back(r.particles);
    rank_grid.push_back(r.grid_ms);
    rank_render.push_back(r.render_ms);
    rank_composite.push_back(r.composite_ms);
    rank_exchange.push_back(static_cast<std::uint64_t>(r.exchange_bytes));
  }
  const void* values[] = {&m.step,
                          &m.time,
                          &m.particles,
                          &m.skipped,
                          eye,
                          target,
                          up,
                          &fov,
                          &ortho_height,
                          range,
                          &ranks,
                          &m.grid_ms,
                          &m.render_ms,
                          &m.frame_ms,
                          &m.queue_wait_ms,
                          &write_ms,
                          &m.composite_ms,
                          rank_particles.data(),
                          rank_grid.data(),
                          rank_render.data(),
                          rank_composite.data(),
                          rank_exchange.data()};
  static_assert(sizeof(values) / sizeof(values[0]) == 22, "one value per series");
  for (std::size_t k = 0; k < f.series.size(); ++k) {
    const Series& s = f.series[k].first;
    f.write_row(f.series[k].second.get(), s.type, values[k],
                (std::string("/frames/") + s.name).c_str(),
                s.width == kPerRank ? shares.size() : 0);
  }
  f.make_durable();
  ++f.frames;
  // Every frame adds chunk-index (B-tree) nodes, and HDF5's metadata cache keeps them: a week-long
  // run's memory would creep up with its frame count (1.4 MiB from frame 5,000 to 10,000 here).
  // Closing the file now and then, when the flush above has left nothing dirty, lets it all go;
  // a cache kept small instead would write nodes out in the middle of a frame.
  constexpr hsize_t kFramesBetweenReopens = 1024;
  if (f.frames % kFramesBetweenReopens == 0) {
    try {
      f.reopen();
    } catch (const OutputError&) {
      f.broken = true;  // this frame is durable; the next append tries to reopen again
    }
  }
}

}  // namespace granray::io
