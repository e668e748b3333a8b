// Reading HDF5 files back with the C API, independently of granray's writer.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <vector>

namespace granray::test {

// Reading back with the C API, independently of the writer.
struct H5File {
  hid_t id;
  explicit H5File(const std::string& path)
      : id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}
  ~H5File() {
    if (id >= 0) H5Fclose(id);
  }
};

inline std::vector<hsize_t> dims_of(hid_t file, const char* name) {
  const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) return {};
  const hid_t s = H5Dget_space(d);
  std::vector<hsize_t> dims(H5Sget_simple_extent_ndims(s));
  H5Sget_simple_extent_dims(s, dims.data(), nullptr);
  H5Sclose(s);
  H5Dclose(d);
  return dims;
}

template <class T>
std::vector<T> read_all(hid_t file, const char* name, hid_t type) {
  const auto dims = dims_of(file, name);
  std::size_t n = 1;
  for (const auto d : dims) n *= d;
  std::vector<T> out(n);
  const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  EXPECT_GE(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0) << name;
  H5Dclose(d);
  return out;
}

}  // namespace granray::test
