#include "granray/io/frame_pattern.h"

namespace granray::io {

bool has_frame_placeholder(const std::string& pattern) {
  return pattern.find('*') != std::string::npos;
}

std::string expand_frame_pattern(const std::string& pattern, std::int64_t step, int min_digits) {
  std::string digits = std::to_string(step < 0 ? -step : step);
  if (static_cast<int>(digits.size()) < min_digits) {
    digits.insert(0, static_cast<std::size_t>(min_digits) - digits.size(), '0');
  }
  if (step < 0) digits.insert(0, 1, '-');
  std::string out;
  for (const char c : pattern) {
    if (c == '*') {
      out += digits;
    } else {
      out += c;
    }
  }
  return out;
}

bool has_view_placeholder(const std::string& pattern) {
  return pattern.find(kViewPlaceholder) != std::string::npos;
}

std::string expand_view_pattern(const std::string& pattern, const std::string& view) {
  const std::string placeholder = kViewPlaceholder;
  std::string out = pattern;
  for (std::size_t at = out.find(placeholder); at != std::string::npos;
       at = out.find(placeholder, at + view.size())) {
    out.replace(at, placeholder.size(), view);
  }
  return out;
}

}  // namespace granray::io
