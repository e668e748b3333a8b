#pragma once

#include <cstdint>
#include <string>

namespace granray::io {

bool has_frame_placeholder(const std::string& pattern);

// Replaces every '*' with the step, zero-padded to at least min_digits.
std::string expand_frame_pattern(const std::string& pattern, std::int64_t step, int min_digits = 0);

// contract 2f: "{view}" in a file pattern, which each view of a frame replaces with its name
// (kMainView for [insitu.camera]).
constexpr const char* kViewPlaceholder = "{view}";
constexpr const char* kMainView = "main";
bool has_view_placeholder(const std::string& pattern);
std::string expand_view_pattern(const std::string& pattern, const std::string& view);

}  // namespace granray::io
