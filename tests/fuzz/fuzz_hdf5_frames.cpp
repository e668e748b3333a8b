// A frames file met on restart: granray opens an existing HDF5 file to append to it, checks its
// layout, trims a frame cut short and appends. A damaged file must be refused, not crash the
// simulation that is starting.
#include "fuzz_input.h"
#include "granray/io/hdf5_frame_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  granray::fuzz::InputFile file(data, size);
  granray::fuzz::refused_cleanly_or_read([&] {
    granray::io::Hdf5Options options;
    options.durable = false;
    granray::io::Hdf5FrameFile frames(file.path(), 8, 6, "", options);
    granray::Image image;
    image.width = 8;
    image.height = 6;
    image.rgb.assign(8 * 6 * 3, 200);
    granray::io::FrameMetadata meta;
    meta.step = std::int64_t(frames.frames());
    frames.append(image, meta);
  });
  return 0;
}
