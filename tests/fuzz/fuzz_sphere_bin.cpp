// sphere's binary output (.bin, versions 2.11 to 2.15), with and without velocities read.
#include "fuzz_input.h"
#include "granray/io/particle_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  granray::fuzz::InputFile file(data, size);
  for (const char* scalar : {"", "speed"}) {
    granray::fuzz::refused_cleanly_or_read(
        [&] { granray::io::read_sphere_bin(file.path(), scalar); });
  }
  return 0;
}
