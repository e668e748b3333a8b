#include "toml_table.h"

namespace granray::detail {
namespace {

// Copies every key of `from` into `into`, descending into tables present in both.
void merge_into(toml::table& into, const toml::table& from) {
  for (auto&& [key, node] : from) {
    toml::node* existing = into.get(key.str());
    if (node.is_table() && existing && existing->is_table()) {
      merge_into(*existing->as_table(), *node.as_table());
    } else {
      node.visit([&, k = key](auto&& value) { into.insert_or_assign(k, value); });
    }
  }
}

}  // namespace

toml::table parse_document(std::string_view text, const std::string& source_name) {
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
  const toml::table patch = parse_document(assignment, "--set " + assignment);
  merge_into(table, patch);
}

}  // namespace granray::detail
