#include "toml_table.h"

#include <cctype>
#include <string>

#include "toml_guard.h"

namespace granray::detail {
namespace {

// Moves every key of `from` into `into`, descending into tables present in both. Moved, not
// copied: toml++ keeps a node's source (the --set that gave it, for messages) only on a move.
void merge_into(toml::table& into, toml::table& from) {
  for (auto&& [key, node] : from) {
    toml::node* existing = into.get(key.str());
    if (node.is_table() && existing && existing->is_table()) {
      merge_into(*existing->as_table(), *node.as_table());
    } else {
      node.visit([&, k = key](auto&& value) { into.insert_or_assign(k, std::move(value)); });
    }
  }
}

// Letters, digits and _ - . / * : +, starting with a letter, and not a TOML literal.
bool is_bare_word(const std::string& value) {
  if (value.empty() || !std::isalpha(static_cast<unsigned char>(value[0]))) return false;
  for (const char c : value) {
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string("_-./*:+").find(c) == std::string::npos) {
      return false;
    }
  }
  return value != "true" && value != "false" && value != "inf" && value != "nan";
}

}  // namespace

toml::table parse_document(std::string_view text, const std::string& source_name) {
  refuse_what_trips_the_toml_parser(text, source_name);
  try {
    return toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    throw ConfigError(where(e.source()) + ": " + std::string(e.description()));
  }
}

void apply_override(toml::table& table, const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set " + assignment + ": expected key=value, e.g. camera.fov=45");
  }
  // "camera.fov=45" is itself TOML (a dotted key); parsing it gives the value and its type.
  // A bare word where TOML wants a quoted string (projection=orthographic, as a shell strips
  // the quotes of 'projection="orthographic"') is taken as that string.
  const std::string source = "--set " + assignment;
  toml::table patch;
  try {
    patch = parse_document(assignment, source);
  } catch (const ConfigError&) {
    const std::string value = assignment.substr(eq + 1);
    if (!is_bare_word(value)) throw;
    patch = parse_document(assignment.substr(0, eq + 1) + "\"" + value + "\"", source);
  }
  merge_into(table, patch);
}

}  // namespace granray::detail
