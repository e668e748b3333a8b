// A frame's rows into the frames file: its image in chunks (deflated on every core, written
// directly), its metadata a row per series, and the check that the disk can take it.
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "hdf5_frame_file_impl.h"

namespace granray::io {

// Whole frames up to max_chunk_bytes are one chunk (as before posters); larger ones are cut
// into bands of whole rows, compressed on every core.
hsize_t Hdf5FrameFile::Impl::rows_per_chunk(int width, int height) const {
  const std::size_t row = std::size_t(width) * 3;
  if (row * std::size_t(height) <= options.max_chunk_bytes) return hsize_t(height);
  return hsize_t(std::clamp<std::size_t>(options.poster_chunk_bytes / row, 1, std::size_t(height)));
}

// Chunks [first, first + count) of the frame being written, from `rows` (count x chunk_rows
// rows, the last chunk padded to its full size), deflated in parallel as HDF5's deflate filter
// would (a zlib stream) and written directly.
void Hdf5FrameFile::Impl::write_chunks(const std::uint8_t* rows, hsize_t first, hsize_t count) {
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
    check(H5Dwrite_chunk(rgb.get(), transfer.get(), 0, offset, packed[k].size(), packed[k].data()),
          "writing a chunk of /frames/rgb");
  }
}

// Writes frame `frames`'s row; `values` entries of a per-rank series (which grows to fit).
void Hdf5FrameFile::Impl::write_row(hid_t dataset, hid_t type, const void* data, const char* name,
                                    hsize_t values) {
  std::vector<hsize_t> dims;
  extent_of(dataset, &dims);
  if (values > 0 && dims.size() == 2 && values > dims[1]) {
    dims[1] = values;
    check(H5Dset_extent(dataset, dims.data()), std::string("extending ") + name);
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
        std::string("writing ") + name);
}

// HDF5 cannot undo a flush that ran out of space halfway, and such a file may not open again.
// So a frame is only started when the space it can take is there; otherwise it is lost and the
// file stays as the last frame left it.
void Hdf5FrameFile::Impl::check_space(std::uint64_t frame_bytes) const {
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

}  // namespace granray::io
