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
#include "in_place_last_driver.h"

#ifndef GRANRAY_VERSION
#define GRANRAY_VERSION "unknown"
#endif

namespace granray::io {
namespace {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  void reset() {
    if (id_ >= 0 && close_ != nullptr) close_(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// The innermost message of HDF5's error stack, for our own messages (HDF5's printing is off).
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc != nullptr) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason.empty() ? std::string("HDF5 error") : reason;
}

// HDF5 prints its error stack by default, per thread in thread-safe builds: turn that off on
// every thread that calls it, and report errors ourselves. The library's own clean-up at exit
// would close a file whose flush failed (disk full) a second time and crash, so it is left to
// the operating system.
void silence_hdf5() {
  static const bool once = [] {
    H5dont_atexit();
    return true;
  }();
  (void)once;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

// One dataset on the frames axis: [F], [F][width] or [F][ranks], of a native type.
constexpr hsize_t kPerRank = ~hsize_t{0};
struct Series {
  const char* name;
  hid_t type;
  hsize_t width;  // 0: one value per frame; kPerRank: one per rank
};

}  // namespace

struct Hdf5FrameFile::Impl {
  std::string path;
  int width, height;
  Hdf5Options options;
  bool dry_run = false;  // a rehearsal in a child process: nothing reaches the file
  Handle file, rgb;
  Handle transfer, access;  // every write's and every dataset's property lists (set_up_lists)
  std::vector<std::pair<Series, Handle>> series;
  hsize_t frames = 0;
  bool broken = false;  // an append failed: reopen from what is on disk before the next one
  // Rows of /frames/rgb per chunk: the whole frame, or for posters (frames over kMaxChunkBytes)
  // bands of rows, written chunk by chunk as a frame's rows arrive (begin_frame .. end_frame).
  hsize_t chunk_rows = 0;
  std::vector<std::uint8_t> band;  // rows of the frame being written not yet in whole chunks
  hsize_t rows_done = 0;           // of that frame, rows already in the file
  bool in_frame = false;
  double rows_write_ms = 0.0;  // the frame's time in write_rows and end_frame

  [[noreturn]] void fail(const std::string& what) const {
    throw OutputError(path + ": " + what + ": " + hdf5_reason());
  }
  // An HDF5 id (hid_t) or status (herr_t): negative means failure. Returns the value.
  template <class Status>
  Status check(Status value, const std::string& what) const {
    if (value < 0) fail(what);
    return value;
  }

  // Chunks are indexed by version-1 B-trees, and appending splits their right-most nodes. Split
  // so that every old entry stays where it was (right ratio 1): with the file driver's ordering
  // no reported frame's entry is ever moved by a flush that could be cut short. The ratio is a
  // transfer property, so chunks must reach the file inside our writes, not in a later flush of
  // the chunk cache (which would use the defaults): no chunk cache.
  void set_up_lists() {
    transfer = Handle(check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"), H5Pclose);
    check(H5Pset_btree_ratios(transfer.get(), 0.1, 0.5, 1.0), "H5Pset_btree_ratios");
    access = Handle(check(H5Pcreate(H5P_DATASET_ACCESS), "H5Pcreate"), H5Pclose);
    check(H5Pset_chunk_cache(access.get(), 0, 0, 1.0), "H5Pset_chunk_cache");
  }

  Handle file_access_list() {
    Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
    use_in_place_last_driver(fapl.get(), options.durable, dry_run);
    return fapl;
  }

  static std::vector<Series> layout() {
    return {{"step", H5T_NATIVE_INT64, 0},
            {"time", H5T_NATIVE_DOUBLE, 0},
            {"particles", H5T_NATIVE_UINT64, 0},
            {"skipped", H5T_NATIVE_UINT64, 0},
            {"camera_eye", H5T_NATIVE_FLOAT, 3},
            {"camera_target", H5T_NATIVE_FLOAT, 3},
            {"camera_up", H5T_NATIVE_FLOAT, 3},
            {"camera_fov", H5T_NATIVE_FLOAT, 0},
            {"camera_ortho_height", H5T_NATIVE_FLOAT, 0},
            {"color_range", H5T_NATIVE_FLOAT, 2},
            {"ranks", H5T_NATIVE_INT32, 0},
            {"grid_ms", H5T_NATIVE_DOUBLE, 0},
            {"render_ms", H5T_NATIVE_DOUBLE, 0},
            {"frame_ms", H5T_NATIVE_DOUBLE, 0},
            {"queue_wait_ms", H5T_NATIVE_DOUBLE, 0},
            {"write_ms", H5T_NATIVE_DOUBLE, 0},
            {"composite_ms", H5T_NATIVE_DOUBLE, 0},
            {"rank_particles", H5T_NATIVE_UINT64, kPerRank},
            {"rank_grid_ms", H5T_NATIVE_DOUBLE, kPerRank},
            {"rank_render_ms", H5T_NATIVE_DOUBLE, kPerRank},
            {"rank_composite_ms", H5T_NATIVE_DOUBLE, kPerRank}};
  }

  void write_string_attribute(hid_t object, const char* name, const std::string& value) {
    Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
    check(H5Tset_size(type.get(), value.size() + 1), "H5Tset_size");
    check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "H5Tset_strpad");
    Handle space(check(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
    Handle attr(check(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                      "creating attribute"),
                H5Aclose);
    check(H5Awrite(attr.get(), type.get(), value.c_str()),
          std::string("writing attribute ") + name);
  }

  Handle create_dataset(hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row,
                        hsize_t chunk_frames, int deflate, hsize_t chunk_first = 0) {
    std::vector<hsize_t> dims{0}, max{H5S_UNLIMITED}, chunk{chunk_frames};
    for (const hsize_t d : row) {
      const bool per_rank = d == kPerRank;
      dims.push_back(per_rank ? 1 : d);
      max.push_back(per_rank ? H5S_UNLIMITED : d);
      chunk.push_back(per_rank ? 16 : d);
    }
    if (chunk_first > 0) chunk[1] = chunk_first;
    Handle space(check(H5Screate_simple(int(dims.size()), dims.data(), max.data()), "H5Screate"),
                 H5Sclose);
    Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate"), H5Pclose);
    check(H5Pset_chunk(dcpl.get(), int(chunk.size()), chunk.data()), "H5Pset_chunk");
    if (H5Tequal(type, H5T_NATIVE_DOUBLE) > 0) {  // times never measured read NaN, not 0
      const double nan = std::nan("");
      check(H5Pset_fill_value(dcpl.get(), H5T_NATIVE_DOUBLE, &nan), "H5Pset_fill_value");
    }
    if (deflate > 0) check(H5Pset_deflate(dcpl.get(), unsigned(deflate)), "H5Pset_deflate");
    return Handle(
        check(H5Dcreate2(group, name, type, space.get(), H5P_DEFAULT, dcpl.get(), access.get()),
              (std::string("creating /frames/") + name).c_str()),
        H5Dclose);
  }

  // The file is built under a temporary name and moved into place once durable: a writer killed
  // while creating it leaves no half-made file at `path`, which a restart would refuse to touch.
  void create(const std::string& config_text) {
    const std::string building = path + ".part";
    try {
      build(building, config_text);
      if (std::filesystem::exists(path)) {
        throw OutputError(path + ": appeared while this run was creating it; leaving it as it is");
      }
      std::error_code ec;
      std::filesystem::rename(building, path, ec);
      if (ec)
        throw OutputError(path + ": cannot move " + building + " into place: " + ec.message());
    } catch (...) {
      series.clear();
      rgb.reset();
      file.reset();
      std::error_code ignored;
      std::filesystem::remove(building, ignored);
      throw;
    }
    if (options.durable) sync_directory();
  }

  void build(const std::string& building, const std::string& config_text) {
    Handle fapl = file_access_list();
    // The oldest superblock carries no "open for writing" flag, so a file whose writer was
    // killed opens in every HDF5 tool as it is.
    check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_EARLIEST, H5F_LIBVER_V18),
          "H5Pset_libver_bounds");
    file = Handle(check(H5Fcreate(building.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()),
                        "cannot create the HDF5 file"),
                  H5Fclose);
    write_string_attribute(file.get(), "granray_version", GRANRAY_VERSION);
    write_string_attribute(file.get(), "insitu_config", config_text);
    Handle group(check(H5Gcreate2(file.get(), "frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "creating /frames"),
                 H5Gclose);
    chunk_rows = rows_per_chunk(width, height);
    rgb = create_dataset(group.get(), "rgb", H5T_NATIVE_UINT8, {hsize_t(height), hsize_t(width), 3},
                         1, options.compression, chunk_rows);
    write_string_attribute(rgb.get(), "CLASS", "IMAGE");
    write_string_attribute(rgb.get(), "IMAGE_VERSION", "1.2");
    write_string_attribute(rgb.get(), "IMAGE_SUBCLASS", "IMAGE_TRUECOLOR");
    write_string_attribute(rgb.get(), "INTERLACE_MODE", "INTERLACE_PIXEL");
    for (const Series& s : layout()) {
      std::vector<hsize_t> row;
      if (s.width > 0) row.push_back(s.width);
      series.emplace_back(s, create_dataset(group.get(), s.name, s.type, row, 256, 0));
    }
    make_durable();
  }

  void sync_directory() const {
    const auto dir = std::filesystem::path(path).parent_path();
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool synced = fd >= 0 && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!synced) throw OutputError(path + ": cannot sync its directory: " + std::strerror(errno));
  }

  hsize_t extent_of(hid_t dataset, std::vector<hsize_t>* dims_out = nullptr) {
    Handle space(check(H5Dget_space(dataset), "H5Dget_space"), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    std::vector<hsize_t> dims(rank > 0 ? rank : 1);
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    if (dims_out) *dims_out = dims;
    return dims[0];
  }

  void open_existing() {
    file = Handle(H5Fopen(path.c_str(), H5F_ACC_RDWR, file_access_list().get()), H5Fclose);
    if (file.get() < 0) {
      throw OutputError(path + ": exists but cannot be opened as HDF5 for appending (" +
                        hdf5_reason() + "); refusing to overwrite it");
    }
    rgb = Handle(H5Dopen2(file.get(), "/frames/rgb", access.get()), H5Dclose);
    std::vector<hsize_t> dims;
    if (rgb.get() < 0 || (extent_of(rgb.get(), &dims), dims.size() != 4) ||
        dims[1] != hsize_t(height) || dims[2] != hsize_t(width) || dims[3] != 3) {
      H5Eclear2(H5E_DEFAULT);
      throw OutputError(path + ": exists with a different layout (not /frames/rgb of " +
                        std::to_string(height) + " x " + std::to_string(width) +
                        " x 3 frames); refusing to append to or overwrite it");
    }
    frames = dims[0];
    {
      Handle dcpl(check(H5Dget_create_plist(rgb.get()), "H5Dget_create_plist"), H5Pclose);
      hsize_t chunk[4] = {};
      if (H5Pget_chunk(dcpl.get(), 4, chunk) != 4 || chunk[1] == 0) {
        H5Eclear2(H5E_DEFAULT);
        throw OutputError(path +
                          ": /frames/rgb is not chunked by frame and rows; refusing to "
                          "append to a file of another layout");
      }
      chunk_rows = chunk[1];
    }
    for (const Series& s : layout()) {
      Handle d(H5Dopen2(file.get(), (std::string("/frames/") + s.name).c_str(), access.get()),
               H5Dclose);
      if (d.get() < 0) {
        H5Eclear2(H5E_DEFAULT);
        throw OutputError(path + ": has no /frames/" + s.name +
                          "; refusing to append to a file of another layout");
      }
      frames = std::min(frames, extent_of(d.get()));
      series.emplace_back(s, std::move(d));
    }
    // A frame whose append was cut short is not one that was reported: trim to the frames that
    // every dataset holds.
    resize_all(frames);
  }

  // Whole frames up to max_chunk_bytes are one chunk (as before posters); larger ones are cut
  // into bands of whole rows, compressed on every core.
  hsize_t rows_per_chunk(int width, int height) const {
    const std::size_t row = std::size_t(width) * 3;
    if (row * std::size_t(height) <= options.max_chunk_bytes) return hsize_t(height);
    return hsize_t(
        std::clamp<std::size_t>(options.poster_chunk_bytes / row, 1, std::size_t(height)));
  }

  // Chunks [first, first + count) of the frame being written, from `rows` (count x chunk_rows
  // rows, the last chunk padded to its full size), deflated in parallel as HDF5's deflate filter
  // would (a zlib stream) and written directly.
  void write_chunks(const std::uint8_t* rows, hsize_t first, hsize_t count) {
    const std::size_t chunk_bytes = std::size_t(chunk_rows) * width * 3;
    std::vector<std::vector<std::uint8_t>> packed(count);
    std::vector<int> status(count, Z_OK);
    const int level = options.compression;
    // Not in the restart's rehearsal: a child forked from a process whose OpenMP threads ran
    // would wait for them forever (libgomp does not survive fork).
    const bool parallel = !dry_run && count > 1;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (long long k = 0; k < static_cast<long long>(count); ++k) {
      const std::uint8_t* in = rows + std::size_t(k) * chunk_bytes;
      std::vector<std::uint8_t>& out = packed[std::size_t(k)];
      if (level <= 0) {
        out.assign(in, in + chunk_bytes);
        continue;
      }
      uLongf size = compressBound(static_cast<uLong>(chunk_bytes));
      out.resize(size);
      status[std::size_t(k)] =
          compress2(out.data(), &size, in, static_cast<uLong>(chunk_bytes), level);
      out.resize(size);
    }
    for (hsize_t k = 0; k < count; ++k) {
      if (status[k] != Z_OK) throw OutputError(path + ": zlib could not compress a chunk");
      const hsize_t offset[4] = {frames, (first + k) * chunk_rows, 0, 0};
      check(
          H5Dwrite_chunk(rgb.get(), transfer.get(), 0, offset, packed[k].size(), packed[k].data()),
          "writing a chunk of /frames/rgb");
    }
  }

  void reopen() {
    series.clear();
    rgb.reset();
    file.reset();
    H5Eclear2(H5E_DEFAULT);
    open_existing();
    broken = false;
  }

  void resize_all(hsize_t f) {
    auto resize = [&](hid_t dataset, const char* name) {
      std::vector<hsize_t> dims;
      extent_of(dataset, &dims);
      dims[0] = f;
      check(H5Dset_extent(dataset, dims.data()), std::string("extending /frames/") + name);
    };
    resize(rgb.get(), "rgb");
    for (auto& [s, d] : series) resize(d.get(), s.name);
  }

  // Writes frame `frames`'s row; `values` entries of a per-rank series (which grows to fit).
  void write_row(hid_t dataset, hid_t type, const void* data, const char* name,
                 hsize_t values = 0) {
    std::vector<hsize_t> dims;
    extent_of(dataset, &dims);
    if (values > 0 && dims.size() == 2 && values > dims[1]) {
      dims[1] = values;
      check(H5Dset_extent(dataset, dims.data()), std::string("extending /frames/") + name);
    }
    Handle filespace(check(H5Dget_space(dataset), "H5Dget_space"), H5Sclose);
    std::vector<hsize_t> start(dims.size(), 0), count = dims;
    if (values > 0) count[1] = values;
    start[0] = frames;
    count[0] = 1;
    check(H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                              nullptr),
          "H5Sselect_hyperslab");
    Handle memspace(check(H5Screate_simple(int(count.size()), count.data(), nullptr), "H5Screate"),
                    H5Sclose);
    check(H5Dwrite(dataset, type, memspace.get(), filespace.get(), transfer.get(), data),
          std::string("writing /frames/") + name);
  }

  // HDF5 cannot undo a flush that ran out of space halfway, and such a file may not open again.
  // So a frame is only started when the space it can take is there; otherwise it is lost and the
  // file stays as the last frame left it.
  void check_space(std::uint64_t frame_bytes) const {
    constexpr std::uint64_t kMetadataSlack = 64 * 1024;
    const std::uint64_t needed = frame_bytes + kMetadataSlack;
    std::uint64_t available = ~std::uint64_t{0};
    const auto dir = std::filesystem::path(path).parent_path();
    struct statvfs fs {};
    if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0) {
      available = std::uint64_t{fs.f_bavail} * fs.f_frsize;
    }
    rlimit limit{};
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(path, ec);
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && !ec) {
      available =
          std::min<std::uint64_t>(available, limit.rlim_cur > size ? limit.rlim_cur - size : 0);
    }
    if (available < needed) {
      throw OutputError(path + ": no space for another frame (" + std::to_string(available >> 10) +
                        " KiB free, a frame may need " + std::to_string(needed >> 10) + " KiB)");
    }
  }

  void make_durable() {
    check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
    if (!options.durable) return;
    void* handle = nullptr;
    check(H5Fget_vfd_handle(file.get(), H5P_DEFAULT, &handle), "H5Fget_vfd_handle");
    if (handle != nullptr && ::fsync(*static_cast<int*>(handle)) != 0) {
      throw OutputError(path + ": fsync failed: " + std::strerror(errno));
    }
  }
};

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

void Hdf5FrameFile::append(const Image& image, const FrameMetadata& m) {
  Impl& f = *impl_;
  if (image.width != f.width || image.height != f.height) {
    throw OutputError(f.path + ": frame of " + std::to_string(image.width) + " x " +
                      std::to_string(image.height) + " does not fit the file's " +
                      std::to_string(f.width) + " x " + std::to_string(f.height));
  }
  begin_frame();
  write_rows(image.rgb.data(), image.height);
  end_frame(m);
}

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

void Hdf5FrameFile::begin_frame() {
  Impl& f = *impl_;
  silence_hdf5();
  if (f.in_frame) throw OutputError(f.path + ": a frame was begun before the last one ended");
  if (f.broken) f.reopen();
  f.check_space(std::uint64_t(f.width) * f.height * 3);
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
    f.write_row(f.rgb.get(), H5T_NATIVE_UINT8, rows, "rgb");
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
  for (const RankStats& r : shares) {
    rank_particles.push_back(r.particles);
    rank_grid.push_back(r.grid_ms);
    rank_render.push_back(r.render_ms);
    rank_composite.push_back(r.composite_ms);
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
                          rank_composite.data()};
  static_assert(sizeof(values) / sizeof(values[0]) == 21, "one value per series");
  for (std::size_t k = 0; k < f.series.size(); ++k) {
    const Series& s = f.series[k].first;
    f.write_row(f.series[k].second.get(), s.type, values[k], s.name,
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
