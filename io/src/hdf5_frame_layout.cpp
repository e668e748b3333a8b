// The frames file's layout: creating it (under a temporary name, moved into place once durable),
// opening an existing one to append, and the property lists every write uses.
#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "hdf5_frame_file_impl.h"
#include "in_place_last_driver.h"

#ifndef GRANRAY_VERSION
#define GRANRAY_VERSION "unknown"
#endif

namespace granray::io {

// Chunks are indexed by version-1 B-trees, and appending splits their right-most nodes. Split
// so that every old entry stays where it was (right ratio 1): with the file driver's ordering
// no reported frame's entry is ever moved by a flush that could be cut short. The ratio is a
// transfer property, so chunks must reach the file inside our writes, not in a later flush of
// the chunk cache (which would use the defaults): no chunk cache.
void Hdf5FrameFile::Impl::set_up_lists() {
  transfer = Handle(check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"), H5Pclose);
  check(H5Pset_btree_ratios(transfer.get(), 0.1, 0.5, 1.0), "H5Pset_btree_ratios");
  access = Handle(check(H5Pcreate(H5P_DATASET_ACCESS), "H5Pcreate"), H5Pclose);
  check(H5Pset_chunk_cache(access.get(), 0, 0, 1.0), "H5Pset_chunk_cache");
}

Handle Hdf5FrameFile::Impl::file_access_list() {
  Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
  use_in_place_last_driver(fapl.get(), options.durable, dry_run);
  return fapl;
}

std::vector<Series> Hdf5FrameFile::Impl::layout() {
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
          {"rank_composite_ms", H5T_NATIVE_DOUBLE, kPerRank},
          {"rank_exchange_bytes", H5T_NATIVE_UINT64, kPerRank, true}};
}

void Hdf5FrameFile::Impl::write_string_attribute(hid_t object, const char* name,
                                                 const std::string& value) {
  Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check(H5Tset_size(type.get(), value.size() + 1), "H5Tset_size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "H5Tset_strpad");
  Handle space(check(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
  Handle attr(check(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                    "creating attribute"),
              H5Aclose);
  check(H5Awrite(attr.get(), type.get(), value.c_str()), std::string("writing attribute ") + name);
}

Handle Hdf5FrameFile::Impl::create_dataset(hid_t group, const char* name, hid_t type,
                                           const std::vector<hsize_t>& row, hsize_t chunk_frames,
                                           int deflate, hsize_t chunk_first) {
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
void Hdf5FrameFile::Impl::create(const std::string& config_text) {
  const std::string building = path + ".part";
  try {
    build(building, config_text);
    if (std::filesystem::exists(path)) {
      throw OutputError(path + ": appeared while this run was creating it; leaving it as it is");
    }
    std::error_code ec;
    std::filesystem::rename(building, path, ec);
    if (ec) throw OutputError(path + ": cannot move " + building + " into place: " + ec.message());
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

void Hdf5FrameFile::Impl::build(const std::string& building, const std::string& config_text) {
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
  mark_as_image(rgb.get());
  series = create_series(group.get(), layout());
  create_views(file.get());
  make_durable();
}

// HDFView and the HDF5 image tools show such a stack as pictures.
void Hdf5FrameFile::Impl::mark_as_image(hid_t dataset) {
  write_string_attribute(dataset, "CLASS", "IMAGE");
  write_string_attribute(dataset, "IMAGE_VERSION", "1.2");
  write_string_attribute(dataset, "IMAGE_SUBCLASS", "IMAGE_TRUECOLOR");
  write_string_attribute(dataset, "INTERLACE_MODE", "INTERLACE_PIXEL");
}

std::vector<std::pair<Series, Handle>> Hdf5FrameFile::Impl::create_series(
    hid_t group, const std::vector<Series>& kinds) {
  std::vector<std::pair<Series, Handle>> made;
  for (const Series& s : kinds) {
    std::vector<hsize_t> row;
    if (s.width > 0) row.push_back(s.width);
    made.emplace_back(s, create_dataset(group, s.name, s.type, row, 256, 0));
  }
  return made;
}

// The datasets `kinds` of `group` (named by `where` in messages); the frames they all hold are
// at most `frames` on return.
std::vector<std::pair<Series, Handle>> Hdf5FrameFile::Impl::open_series(
    const std::string& where, const std::vector<Series>& kinds) {
  std::vector<std::pair<Series, Handle>> opened;
  for (const Series& s : kinds) {
    const std::string name = where + "/" + s.name;
    Handle d(H5Dopen2(file.get(), name.c_str(), access.get()), H5Dclose);
    if (d.get() < 0) {
      H5Eclear2(H5E_DEFAULT);
      if (!s.added_later) {
        throw OutputError(path + ": has no " + name +
                          "; refusing to append to a file of another layout");
      }
      d = add_series(where, s);
    }
    frames = std::min(frames, extent_of(d.get()));
    opened.emplace_back(s, std::move(d));
  }
  return opened;
}

// A series newer than the file, made as long as the frames it holds.
Handle Hdf5FrameFile::Impl::add_series(const std::string& where, const Series& s) {
  Handle group(check(H5Gopen2(file.get(), where.c_str(), H5P_DEFAULT), "opening a frames group"),
               H5Gclose);
  std::vector<hsize_t> row;
  if (s.width > 0) row.push_back(s.width);
  Handle d = create_dataset(group.get(), s.name, s.type, row, 256, 0);
  std::vector<hsize_t> dims{frames};
  if (s.width > 0) dims.push_back(s.width == kPerRank ? 1 : s.width);
  check(H5Dset_extent(d.get(), dims.data()), "H5Dset_extent");
  return d;
}

void Hdf5FrameFile::Impl::sync_directory() const {
  const auto dir = std::filesystem::path(path).parent_path();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!synced) throw OutputError(path + ": cannot sync its directory: " + std::strerror(errno));
}

hsize_t Hdf5FrameFile::Impl::extent_of(hid_t dataset, std::vector<hsize_t>* dims_out) {
  Handle space(check(H5Dget_space(dataset), "H5Dget_space"), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(rank > 0 ? rank : 1);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  if (dims_out) *dims_out = dims;
  return dims[0];
}

void Hdf5FrameFile::Impl::open_existing() {
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
  series = open_series("/frames", layout());
  open_views();
  // A frame whose append was cut short is not one that was reported: trim to the frames that
  // every dataset holds.
  resize_all(frames);
}

void Hdf5FrameFile::Impl::reopen() {
  views.clear();
  series.clear();
  rgb.reset();
  file.reset();
  H5Eclear2(H5E_DEFAULT);
  open_existing();
  broken = false;
}

void Hdf5FrameFile::Impl::resize_all(hsize_t f) {
  auto resize = [&](hid_t dataset, const char* name) {
    std::vector<hsize_t> dims;
    extent_of(dataset, &dims);
    dims[0] = f;
    check(H5Dset_extent(dataset, dims.data()), std::string("extending /frames/") + name);
  };
  resize(rgb.get(), "rgb");
  for (auto& [s, d] : series) resize(d.get(), s.name);
  for (ViewDatasets& v : views) {
    resize(v.rgb.get(), "rgb of a view");
    for (auto& [s, d] : v.series) resize(d.get(), s.name);
  }
}

void Hdf5FrameFile::Impl::make_durable() {
  check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
  if (!options.durable) return;
  void* handle = nullptr;
  check(H5Fget_vfd_handle(file.get(), H5P_DEFAULT, &handle), "H5Fget_vfd_handle");
  if (handle != nullptr && ::fsync(*static_cast<int*>(handle)) != 0) {
    throw OutputError(path + ": fsync failed: " + std::strerror(errno));
  }
}

}  // namespace granray::io
