// contract 2f: the further views of every frame, each a group /views/NAME holding its rgb stack and
// camera series on the frames' axis, made with the file and written inside each frame.
#include <hdf5.h>

#include <cmath>
#include <string>
#include <vector>

#include "hdf5_frame_file_impl.h"

namespace granray::io {

std::vector<Series> Hdf5FrameFile::Impl::view_layout() {
  return {{"camera_eye", H5T_NATIVE_FLOAT, 3},
          {"camera_target", H5T_NATIVE_FLOAT, 3},
          {"camera_up", H5T_NATIVE_FLOAT, 3},
          {"camera_fov", H5T_NATIVE_FLOAT, 0},
          {"camera_ortho_height", H5T_NATIVE_FLOAT, 0}};
}

void Hdf5FrameFile::Impl::create_views(hid_t file_id) {
  if (options.views.empty()) return;
  Handle root(
      check(H5Gcreate2(file_id, "views", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating /views"),
      H5Gclose);
  for (const std::string& name : options.views) {
    Handle group(check(H5Gcreate2(root.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "creating /views/" + name),
                 H5Gclose);
    ViewDatasets view{
        name,
        create_dataset(group.get(), "rgb", H5T_NATIVE_UINT8, {hsize_t(height), hsize_t(width), 3},
                       1, options.compression, chunk_rows),
        create_series(group.get(), view_layout())};
    mark_as_image(view.rgb.get());
    views.push_back(std::move(view));
  }
}

void Hdf5FrameFile::Impl::open_views() {
  for (const std::string& name : options.views) {
    const std::string where = "/views/" + name;
    Handle image(H5Dopen2(file.get(), (where + "/rgb").c_str(), access.get()), H5Dclose);
    std::vector<hsize_t> dims;
    if (image.get() < 0 || (extent_of(image.get(), &dims), dims.size() != 4) ||
        dims[1] != hsize_t(height) || dims[2] != hsize_t(width) || dims[3] != 3) {
      H5Eclear2(H5E_DEFAULT);
      throw OutputError(path + ": has no " + where + "/rgb of " + std::to_string(height) + " x " +
                        std::to_string(width) + " x 3 frames (the views differ from [[insitu." +
                        "views]]); refusing to append to a file of another layout");
    }
    frames = std::min(frames, dims[0]);
    views.push_back({name, std::move(image), open_series(where, view_layout())});
  }
}

void Hdf5FrameFile::Impl::write_view(ViewDatasets& view, const Image& image,
                                     const ResolvedCamera& camera) {
  const float nan = std::nanf("");
  const bool ortho = camera.projection == Projection::orthographic;
  const float eye[3] = {camera.eye.x, camera.eye.y, camera.eye.z};
  const float target[3] = {camera.target.x, camera.target.y, camera.target.z};
  const float up[3] = {camera.up.x, camera.up.y, camera.up.z};
  const float fov = ortho ? nan : camera.fov;
  const float ortho_height = ortho ? camera.ortho_height : nan;
  const void* values[] = {eye, target, up, &fov, &ortho_height};
  static_assert(sizeof(values) / sizeof(values[0]) == 5, "one value per view series");
  const std::string where = "/views/" + view.name + "/";
  write_row(view.rgb.get(), H5T_NATIVE_UINT8, image.rgb.data(), (where + "rgb").c_str());
  for (std::size_t k = 0; k < view.series.size(); ++k) {
    const Series& s = view.series[k].first;
    write_row(view.series[k].second.get(), s.type, values[k], (where + s.name).c_str());
  }
}

}  // namespace granray::io
