// Strict number parsing for the text readers: a field is a number in full or an error that
// names the file and line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace granray::io::detail {

// The whitespace-separated fields of a line, as views into it. The second form refills
// `fields`, so that a reader splitting millions of rows allocates once.
std::vector<std::string_view> split_fields(std::string_view line);
void split_fields(std::string_view line, std::vector<std::string_view>& fields);

inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

[[noreturn]] void fail_at(const std::string& path, std::size_t line, const std::string& message);

double parse_real(std::string_view field, const std::string& path, std::size_t line,
                  const char* what);
std::int64_t parse_integer(std::string_view field, const std::string& path, std::size_t line,
                           const char* what);

}  // namespace granray::io::detail
