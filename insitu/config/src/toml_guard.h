// A guard in front of toml++ up to 3.4 (Debian ships 3.3): for some non-ASCII characters its
// whitespace test reaches __builtin_unreachable() (toml++ issues #190 and #295, fixed upstream in
// 2026), which is undefined behaviour, not an error; fuzzing found it. Such characters are refused
// before the parser sees them, with their line and column; they can still be written as \uXXXX
// escapes inside "strings".
#pragma once

#include <string>
#include <string_view>

namespace granray::detail {

// Throws ConfigError naming `source_name`, the line, the column and the character.
void refuse_what_trips_the_toml_parser(std::string_view text, const std::string& source_name);

}  // namespace granray::detail
