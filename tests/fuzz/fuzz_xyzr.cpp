// xyzr text (x y z radius [scalar] per line, # comments). The first byte: with a scalar or not.
#include "fuzz_input.h"
#include "granray/io/particle_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const char* scalar = data[0] % 2 ? "value" : "";
  granray::fuzz::InputFile file(data + 1, size - 1);
  granray::fuzz::refused_cleanly_or_read([&] { granray::io::read_xyzr_file(file.path(), scalar); });
  return 0;
}
