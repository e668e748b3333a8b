// LAMMPS/LIGGGHTS `dump custom` text. The first byte picks the column asked for colouring.
#include "fuzz_input.h"
#include "granray/io/particle_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kScalars[] = {"", "speed", "type", "radius", "vz", "c_stress[1]"};
  const char* scalar = kScalars[data[0] % (sizeof kScalars / sizeof kScalars[0])];
  granray::fuzz::InputFile file(data + 1, size - 1);
  granray::fuzz::refused_cleanly_or_read(
      [&] { granray::io::read_lammps_dump(file.path(), scalar); });
  return 0;
}
