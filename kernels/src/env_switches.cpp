#include "env_switches.h"

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <string>

#include "granray/errors.h"

namespace granray::detail {

int env_word(const char* variable, std::initializer_list<const char*> words, int unset) {
  const char* v = std::getenv(variable);
  if (v == nullptr) return unset;
  int index = 0;
  std::string listed;
  for (const char* word : words) {
    if (std::string(v) == word) return index;
    listed += (index == 0 ? "" : index + 1 == static_cast<int>(words.size()) ? " or " : ", ");
    listed += word;
    ++index;
  }
  throw ConfigError(std::string("granray: ") + variable + " must be " + listed + ", not \"" + v +
                    "\"");
}

double env_number(const char* variable, double lo, double hi, bool whole, double unset) {
  const char* v = std::getenv(variable);
  if (v == nullptr) return unset;
  char* end = nullptr;
  const double n = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(n >= lo && n <= hi) || (whole && n != std::floor(n))) {
    std::ostringstream range;
    range << std::setprecision(12) << (whole ? "a whole number in " : "a number in ") << lo << ".."
          << hi;
    throw ConfigError(std::string("granray: ") + variable + " must be " + range.str() + ", not \"" +
                      v + "\"");
  }
  return n;
}

}  // namespace granray::detail
