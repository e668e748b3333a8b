// Reading TOML tables with messages that name the key, the file and the line (toml++ keeps the
// source region of every value). Shared by the [insitu] reader and the example DEM's [simulation].
#pragma once

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "granray/errors.h"
#include "granray/kernels/vec.h"

namespace granray::detail {

inline std::string where(const toml::source_region& src) {
  const std::string file = src.path ? *src.path : std::string("<config>");
  return file + ":" + std::to_string(src.begin.line);
}

// Reads and checks the keys of one table; every message names the key and where it was set.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string prefix)
      : table_(table), prefix_(std::move(prefix)) {}

  void only_keys(std::initializer_list<const char*> allowed) const {
    only_keys(std::vector<const char*>(allowed));
  }

  // An unknown key names the known ones, and the nearest of them when it looks misspelt.
  void only_keys(const std::vector<const char*>& allowed) const {
    for (auto&& [key, node] : table_) {
      const std::string_view given = key.str();  // C++17 lambdas cannot capture a binding
      const bool known =
          std::any_of(allowed.begin(), allowed.end(), [&](const char* k) { return given == k; });
      if (!known) {
        std::string list;
        for (const char* k : allowed) list += std::string(list.empty() ? "" : ", ") + k;
        const std::string nearest = nearest_key(key.str(), allowed);
        throw ConfigError(where(node.source()) + ": unknown key '" + name(key.str()) + "'" +
                          (nearest.empty() ? "" : "; did you mean '" + name(nearest) + "'?") +
                          " (known keys: " + list + ")");
      }
    }
  }

  // The allowed key within an edit distance of a third of the word (at least 2), or "".
  static std::string nearest_key(std::string_view word, const std::vector<const char*>& allowed) {
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const char* k : allowed) {
      const std::size_t d = edit_distance(word, k);
      if (d < best_distance) {
        best_distance = d;
        best = k;
      }
    }
    return best;
  }

  // Levenshtein distance, a transposition of neighbours counting once.
  static std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      for (std::size_t j = 1; j <= b.size(); ++j) {
        d[i][j] = std::min(
            {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.size()][b.size()];
  }

  const toml::node* find(const char* key) const { return table_.get(key); }

  [[noreturn]] void fail(const char* key, const std::string& message) const {
    const toml::node* node = find(key);
    // A missing key: where its table is.
    const toml::source_region& src = node ? node->source() : table_.source();
    throw ConfigError((src.path || node ? where(src) : std::string("<config>")) + ": key '" +
                      name(key) + "' " + message);
  }

  std::optional<double> number(const char* key) const {
    return typed<double>(key, &toml::node::is_number, "must be a number");
  }
  std::optional<std::int64_t> integer(const char* key) const {
    return typed<std::int64_t>(key, &toml::node::is_integer, "must be an integer");
  }
  std::optional<bool> boolean(const char* key) const {
    return typed<bool>(key, &toml::node::is_boolean, "must be true or false");
  }
  std::optional<std::string> string(const char* key) const {
    return typed<std::string>(key, &toml::node::is_string, "must be a string");
  }

  // A string that must be one of `allowed`; anything else fails naming them and what was given.
  std::optional<std::string> one_of(const char* key,
                                    std::initializer_list<const char*> allowed) const {
    return one_of(key, allowed.begin(), allowed.size());
  }
  // The same for an array of names (kMaterialTypeNames).
  template <std::size_t N>
  std::optional<std::string> one_of(const char* key, const char* const (&allowed)[N]) const {
    return one_of(key, allowed, N);
  }

  std::optional<std::string> one_of(const char* key, const char* const* allowed,
                                    std::size_t count) const {
    const auto value = string(key);
    if (!value) return value;
    std::string list;
    for (std::size_t k = 0; k < count; ++k) {
      if (*value == allowed[k]) return value;
      list += std::string(k == 0 ? "" : k + 1 == count ? " or " : ", ") + "\"" + allowed[k] + "\"";
    }
    fail(key, "must be " + list + ", got \"" + *value + "\"");
  }

  std::optional<std::vector<double>> numbers(const char* key, std::size_t count) const {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const toml::array* array = node->as_array();
    const std::string expected = "must be an array of " + std::to_string(count) + " numbers";
    if (!array || array->size() != count) fail(key, expected);
    std::vector<double> values;
    for (const toml::node& item : *array) {
      if (!item.is_number()) fail(key, expected);
      values.push_back(*item.value<double>());
    }
    return values;
  }

  std::optional<Vec3> vec3(const char* key) const {
    const auto v = numbers(key, 3);
    if (!v) return std::nullopt;
    for (const double x : *v) {
      if (!std::isfinite(x)) fail(key, "must hold finite numbers");
    }
    return Vec3{static_cast<float>((*v)[0]), static_cast<float>((*v)[1]),
                static_cast<float>((*v)[2])};
  }

  std::optional<Vec3> color(const char* key) const {
    const auto c = vec3(key);
    if (c && (std::min({c->x, c->y, c->z}) < 0.0f || std::max({c->x, c->y, c->z}) > 1.0f)) {
      fail(key, "must hold three values in [0, 1]");
    }
    return c;
  }

  const toml::table* subtable(const char* key) const {
    const toml::node* node = find(key);
    if (!node) return nullptr;
    if (!node->is_table()) fail(key, "must be a table");
    return node->as_table();
  }

  std::string name(std::string_view key) const { return prefix_ + "." + std::string(key); }

 private:
  // The value of `key` when the table has it and it is of the kind `is` tests; else fails with
  // `expected`.
  template <class T>
  std::optional<T> typed(const char* key, bool (toml::node::*is)() const noexcept,
                         const char* expected) const {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    if (!(node->*is)()) fail(key, expected);
    return node->value<T>();
  }

  const toml::table& table_;
  std::string prefix_;
};

// Positive finite number check shared by sizes, intervals and camera extents.
inline float positive(const TableReader& t, const char* key, double value,
                      bool allow_zero = false) {
  if (!std::isfinite(value) || value < 0.0 || (!allow_zero && value == 0.0)) {
    t.fail(key, allow_zero ? "must be >= 0" : "must be > 0");
  }
  return static_cast<float>(value);
}

// Parses TOML text; a syntax error becomes a ConfigError naming the source and line.
toml::table parse_document(std::string_view text, const std::string& source_name);

// Applies "dotted.key=value" (value in TOML) to `table`, creating tables on the way; the
// assignment names itself as the source of what it sets.
void apply_override(toml::table& table, const std::string& assignment);

}  // namespace granray::detail
