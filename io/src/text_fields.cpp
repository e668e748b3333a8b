#include "text_fields.h"

#include <charconv>

#include "granray/errors.h"

namespace granray::io::detail {

namespace {

// isspace in the "C" locale, inline: the readers call it for every character of a dump.
constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

void split_fields(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  const char* p = line.data();
  const char* const end = p + line.size();
  while (p < end) {
    while (p < end && is_space(*p)) ++p;
    const char* start = p;
    while (p < end && !is_space(*p)) ++p;
    if (p > start) fields.emplace_back(start, static_cast<std::size_t>(p - start));
  }
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  split_fields(line, fields);
  return fields;
}

void fail_at(const std::string& path, std::size_t line, const std::string& message) {
  throw InputError(path + ":" + std::to_string(line) + ": " + message);
}

namespace {

// The whole field as a T, or an InputError at path:line naming `what` and `expected`.
template <class T>
T parse_whole(std::string_view field, const std::string& path, std::size_t line, const char* what,
              const char* expected) {
  T value{};
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    fail_at(path, line,
            std::string("expected ") + expected + " for " + what + ", got '" + std::string(field) +
                "'");
  }
  return value;
}

}  // namespace

double parse_real(std::string_view field, const std::string& path, std::size_t line,
                  const char* what) {
  return parse_whole<double>(field, path, line, what, "a number");
}

std::int64_t parse_integer(std::string_view field, const std::string& path, std::size_t line,
                           const char* what) {
  return parse_whole<std::int64_t>(field, path, line, what, "an integer");
}

}  // namespace granray::io::detail
