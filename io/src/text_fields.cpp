#include "text_fields.h"

#include <cctype>
#include <charconv>

#include "granray/errors.h"

namespace granray::io::detail {

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

void fail_at(const std::string& path, std::size_t line, const std::string& message) {
  throw InputError(path + ":" + std::to_string(line) + ": " + message);
}

double parse_real(std::string_view field, const std::string& path, std::size_t line,
                  const char* what) {
  double value = 0.0;
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    fail_at(path, line,
            std::string("expected a number for ") + what + ", got '" + std::string(field) + "'");
  }
  return value;
}

std::int64_t parse_integer(std::string_view field, const std::string& path, std::size_t line,
                           const char* what) {
  std::int64_t value = 0;
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    fail_at(path, line,
            std::string("expected an integer for ") + what + ", got '" + std::string(field) + "'");
  }
  return value;
}

}  // namespace granray::io::detail
