// The HDF5 frames file's state (Hdf5FrameFile::Impl), shared by the files that make or open its
// layout (hdf5_frame_layout.cpp), write a frame's rows and metadata rows (hdf5_frame_rows.cpp)
// and drive both (hdf5_frame_file.cpp).
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "granray/errors.h"
#include "granray/io/hdf5_frame_file.h"
#include "hdf5_handle.h"

namespace granray::io {

// One dataset on the frames axis: [F], [F][width] or [F][ranks], of a native type.
constexpr hsize_t kPerRank = ~hsize_t{0};
struct Series {
  const char* name;
  hid_t type;
  hsize_t width;  // 0: one value per frame; kPerRank: one per rank
  // Newer than the layout's first version: a file without it gets it on appending, with the
  // frames before reading 0 (counts) or NaN (times).
  bool added_later = false;
};

// A further view's datasets (contract 2f): /views/NAME/rgb and its camera series.
struct ViewDatasets {
  std::string name;
  Handle rgb;
  std::vector<std::pair<Series, Handle>> series;
};

struct Hdf5FrameFile::Impl {
  std::string path;
  int width, height;
  Hdf5Options options;
  bool dry_run = false;  // a rehearsal in a child process: nothing reaches the file
  Handle file, rgb;
  Handle transfer, access;  // every write's and every dataset's property lists (set_up_lists)
  std::vector<std::pair<Series, Handle>> series;
  std::vector<ViewDatasets> views;  // options.views, in order
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
  void set_up_lists();

  Handle file_access_list();

  static std::vector<Series> layout();
  // The camera series of each further view.
  static std::vector<Series> view_layout();
  void mark_as_image(hid_t dataset);
  std::vector<std::pair<Series, Handle>> create_series(hid_t group,
                                                       const std::vector<Series>& kinds);
  std::vector<std::pair<Series, Handle>> open_series(const std::string& where,
                                                     const std::vector<Series>& kinds);
  Handle add_series(const std::string& where, const Series& s);
  void create_views(hid_t file);
  void open_views();
  // The view's rows of the frame being written.
  void write_view(ViewDatasets& view, const Image& image, const ResolvedCamera& camera);

  void write_string_attribute(hid_t object, const char* name, const std::string& value);

  Handle create_dataset(hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row,
                        hsize_t chunk_frames, int deflate, hsize_t chunk_first = 0);

  // The file is built under a temporary name and moved into place once durable: a writer killed
  // while creating it leaves no half-made file at `path`, which a restart would refuse to touch.
  void create(const std::string& config_text);

  void build(const std::string& building, const std::string& config_text);

  void sync_directory() const;

  hsize_t extent_of(hid_t dataset, std::vector<hsize_t>* dims_out = nullptr);

  void open_existing();

  // Whole frames up to max_chunk_bytes are one chunk (as before posters); larger ones are cut
  // into bands of whole rows, compressed on every core.
  hsize_t rows_per_chunk(int width, int height) const;

  // Chunks [first, first + count) of the frame being written, from `rows` (count x chunk_rows
  // rows, the last chunk padded to its full size), deflated in parallel as HDF5's deflate filter
  // would (a zlib stream) and written directly.
  void write_chunks(const std::uint8_t* rows, hsize_t first, hsize_t count);

  void reopen();

  void resize_all(hsize_t f);

  // Writes frame `frames`'s row of the dataset at `name` (its path, for messages); `values` entries
  // of a per-rank series (which grows to fit).
  void write_row(hid_t dataset, hid_t type, const void* data, const char* name, hsize_t values = 0);

  // HDF5 cannot undo a flush that ran out of space halfway, and such a file may not open again.
  // So a frame is only started when the space it can take is there; otherwise it is lost and the
  // file stays as the last frame left it.
  void check_space(std::uint64_t frame_bytes) const;

  void make_durable();
};

}  // namespace granray::io
