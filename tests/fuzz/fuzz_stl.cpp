// STL meshes, ASCII or binary (told apart by content).
#include "fuzz_input.h"
#include "granray/io/stl_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  granray::fuzz::InputFile file(data, size);
  granray::fuzz::refused_cleanly_or_read([&] { granray::io::read_stl(file.path()); });
  return 0;
}
