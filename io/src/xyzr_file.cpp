// Plain text: "x y z r [scalar]" per line, '#' starts a comment. One frame per file.
#include "granray/errors.h"
#include "granray/io/particle_file.h"
#include "line_reader.h"
#include "text_fields.h"

namespace granray::io {

std::vector<ParticleFrame> read_xyzr_file(const std::string& path, const std::string& scalar) {
  detail::LineReader reader(path);
  ParticleFrame frame;
  std::size_t columns = 0;  // set by the first particle line, then required of every line
  std::string_view line;
  std::vector<std::string_view> fields;
  while (reader.next(line)) {
    const std::size_t number = reader.number();
    line = line.substr(0, line.find('#'));
    detail::split_fields(line, fields);
    if (fields.empty()) continue;
    if (columns == 0) {
      if (fields.size() != 4 && fields.size() != 5) {
        detail::fail_at(path, number,
                        "expected 'x y z r' or 'x y z r scalar', got " +
                            std::to_string(fields.size()) + " fields");
      }
      columns = fields.size();
    } else if (fields.size() != columns) {
      detail::fail_at(path, number,
                      "expected " + std::to_string(columns) +
                          " fields like the lines before, got " + std::to_string(fields.size()));
    }
    const char* names[] = {"x", "y", "z", "radius", "scalar"};
    float v[5];
    for (std::size_t c = 0; c < columns; ++c) {
      v[c] = static_cast<float>(detail::parse_real(fields[c], path, number, names[c]));
    }
    frame.xyzr.push_back({v[0], v[1], v[2], v[3]});
    if (columns == 5) frame.scalar.push_back(v[4]);
  }
  if (!scalar.empty() && columns != 5) {
    throw InputError(path + ": no fifth column to colour by ('" + scalar + "' requested)");
  }
  return {std::move(frame)};
}

}  // namespace granray::io
