// A guard in front of toml++ 3.3 (Debian's): some non-ASCII characters where the parser looks for
// whitespace drive it into __builtin_unreachable() (toml++ issues #190 and #295, fixed upstream
// after 3.3), which is undefined behaviour, not an error. TOML allows non-ASCII characters only
// inside strings and comments, so such input is refused here first, with its line and column.
#pragma once

#include <string>
#include <string_view>

namespace granray::detail {

// Throws ConfigError naming `source_name`, the line and the column of a non-ASCII byte outside
// strings and comments, or leading a line that a multi-line basic string continues with "\".
void refuse_non_ascii_outside_strings(std::string_view text, const std::string& source_name);

}  // namespace granray::detail
