// The image writers pick the format by the path's ending, case-insensitively.
#pragma once

#include <cctype>
#include <cstring>
#include <string>

namespace granray::io::detail {

inline bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  }
  return true;
}

}  // namespace granray::io::detail
