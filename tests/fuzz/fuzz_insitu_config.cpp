// The [insitu] table of a TOML input and `--set` overrides: the text up to a line "#--set" is
// the TOML file, each line after it one override (table.key=value).
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "granray/insitu/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find("\n#--set\n");
  const std::string_view toml = input.substr(0, split);
  std::vector<std::string> overrides;
  if (split != std::string_view::npos) {
    std::string_view rest = input.substr(split + 8);
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      overrides.emplace_back(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
  }
  granray::fuzz::refused_cleanly_or_read(
      [&] { granray::parse_insitu_config(toml, "fuzz.toml", overrides); });
  return 0;
}
