// A Cinema database (spec D, contract 2f): a folder NAME.cdb holding data.csv, one row per image
// with the columns time, step, theta, phi and FILE (the image's path inside the folder), and the
// images. Appended frame by frame, readable after a kill: a frame's images are in place before
// its rows are written, in one append that is synced, and a restart drops a row cut short.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "granray/image.h"

namespace granray::io {

struct CinemaImage {
  float theta = 0.0f;  // degrees from +z
  float phi = 0.0f;    // degrees from +x about z
  const Image* image = nullptr;
};

class CinemaDatabase {
 public:
  // Creates the folder and data.csv, or opens an existing database to append (its header must
  // be spec D's columns as written here). Throws OutputError naming the path.
  explicit CinemaDatabase(std::string path, int png_compression = 1);

  // Writes the frame's images, then its rows. Throws OutputError; the database then holds the
  // frames before this one.
  void add_frame(std::int64_t step, double time, const std::vector<CinemaImage>& images);

  const std::string& path() const { return path_; }
  static const char* header();

 private:
  std::string path_;
  int png_compression_;
};

// An angle as it appears in file names and view names: "45", "22p5", "m30".
std::string angle_tag(float degrees);

}  // namespace granray::io
