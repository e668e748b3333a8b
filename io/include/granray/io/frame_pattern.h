#pragma once

#include <cstdint>
#include <string>

namespace granray::io {

bool has_frame_placeholder(const std::string& pattern);

// Replaces every '*' with the step, zero-padded to at least min_digits.
std::string expand_frame_pattern(const std::string& pattern, std::int64_t step, int min_digits = 0);

}  // namespace granray::io
