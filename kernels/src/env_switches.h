// The environment variables that switch how a frame is traced (docs/configuration.md,
// "Environment"): read where a frame starts, each value checked, a bad one refused by name.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace granray::detail {

// The index in `words` of the word that `variable` holds, or `unset` where it is not set; any
// other value throws ConfigError naming the variable and the words it takes.
int env_word(const char* variable, std::initializer_list<const char*> words, int unset);

// The number that `variable` holds, in [lo, hi] (whole with `whole`), or `unset` where it is not
// set; any other value throws ConfigError naming the variable and the range.
double env_number(const char* variable, double lo, double hi, bool whole, double unset);

}  // namespace granray::detail
