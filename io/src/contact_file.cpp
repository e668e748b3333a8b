#include "granray/io/contact_file.h"

#include <cmath>
#include <sstream>
#include <unordered_map>

#include "granray/errors.h"
#include "line_reader.h"
#include "text_fields.h"

namespace granray::io {
namespace {

using namespace detail;  // the text readers' line reader and strict fields

// LIGGGHTS compute pair/gran/local's keywords and the columns each writes.
int liggghts_width(const std::string& keyword) {
  if (keyword == "pos" || keyword == "vel") return 6;
  if (keyword == "id" || keyword == "force" || keyword == "force_normal" ||
      keyword == "force_tangential" || keyword == "torque" || keyword == "torque_normal" ||
      keyword == "torque_tangential") {
    return 3;
  }
  if (keyword == "contactArea" || keyword == "delta" || keyword == "heatFlux") return 1;
  return 0;
}

}  // namespace

ContactLayout parse_contact_layout(const std::string& keywords, const std::string& field) {
  std::istringstream words(keywords);
  std::vector<std::string> list;
  for (std::string w; words >> w;) list.push_back(w);
  if (list.empty()) throw ConfigError("contact columns: none named");
  const bool lammps = list[0] == "patom1" || list[0] == "patom2";
  ContactLayout layout;
  int column = 0;
  int fx = -1, fy = -1, fz = -1, first_scalar = -1, force_like = -1, named = -1, named_width = 1;
  std::string first_scalar_name, force_like_name;
  for (const std::string& w : list) {
    if (w == "history") {
      throw ConfigError(
          "contact columns: \"history\" writes as many columns as the contact "
          "model keeps; name the columns of a dump without it");
    }
    const int width = lammps ? 1 : liggghts_width(w);
    if (width == 0) {
      throw ConfigError("contact columns: unknown keyword \"" + w +
                        "\" (LIGGGHTS pair/gran/local: pos vel id force force_normal "
                        "force_tangential torque torque_normal torque_tangential contactArea "
                        "delta heatFlux; LAMMPS: patom1 patom2 then pair/local's values)");
    }
    if (!field.empty() && w == field && (width == 1 || width == 3)) {
      named = column, named_width = width;
    }
    if (w == "id") {
      layout.first = column, layout.second = column + 1, layout.periodic = column + 2;
    } else if (w == "patom1") {
      layout.first = column;
    } else if (w == "patom2") {
      layout.second = column;
    } else if (w == "force" && width == 3) {
      layout.value = column, layout.value_width = 3, layout.value_name = w;
    } else if (width == 3 && starts_with(w, "force") && force_like < 0) {
      force_like = column, force_like_name = w;
    } else if (w == "fx") {
      fx = column;
    } else if (w == "fy") {
      fy = column;
    } else if (w == "fz") {
      fz = column;
    } else if (width == 1 && first_scalar < 0) {
      first_scalar = column, first_scalar_name = w;
    }
    column += width;
  }
  layout.columns = static_cast<std::size_t>(column);
  if (layout.first < 0 || layout.second < 0) {
    throw ConfigError("contact columns \"" + keywords +
                      "\": no grain ids (LIGGGHTS: id; LAMMPS: patom1 patom2)");
  }
  const bool force_triple = fx >= 0 && fy == fx + 1 && fz == fx + 2;
  if (!field.empty()) {  // the value the configuration names, and no other
    if (named >= 0) {
      layout.value = named, layout.value_width = named_width, layout.value_name = field;
    } else if (field == "force" && force_triple) {
      layout.value = fx, layout.value_width = 3, layout.value_name = field;
    } else {
      throw ConfigError("contact columns \"" + keywords + "\" hold no pair value \"" + field +
                        "\" (the key insitu.contacts.field)");
    }
    return layout;
  }
  if (layout.value < 0 && force_triple) {
    layout.value = fx, layout.value_width = 3, layout.value_name = "force";
  }
  if (layout.value < 0 && force_like >= 0) {
    layout.value = force_like, layout.value_width = 3, layout.value_name = force_like_name;
  }
  if (layout.value < 0 && first_scalar >= 0) {
    layout.value = first_scalar, layout.value_width = 1, layout.value_name = first_scalar_name;
  }
  if (layout.value < 0) {
    throw ConfigError("contact columns \"" + keywords +
                      "\": no value per pair (force, fx fy fz, "
                      "or a column of pair/local)");
  }
  return layout;
}

std::vector<ContactFrame> read_contact_file(const std::string& path, const ContactLayout& layout) {
  LineReader reader(path);
  std::vector<ContactFrame> frames;
  std::vector<std::string_view> f;
  std::string_view line;
  while (reader.next(line)) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (!starts_with(line, "ITEM: TIMESTEP")) {
      fail_at(path, reader.number(), "expected ITEM: TIMESTEP (a LAMMPS or LIGGGHTS dump local)");
    }
    ContactFrame frame;
    frame.path = path;
    frame.step = parse_integer(reader.require("the timestep"), path, reader.number(), "timestep");
    if (!starts_with(reader.require("ITEM: NUMBER OF ENTRIES"), "ITEM: NUMBER OF ENTRIES")) {
      fail_at(path, reader.number(), "expected ITEM: NUMBER OF ENTRIES");
    }
    const std::int64_t count =
        parse_integer(reader.require("the number of entries"), path, reader.number(), "count");
    if (count < 0) fail_at(path, reader.number(), "a negative number of entries");
    std::string_view header = reader.require("ITEM: BOX BOUNDS or ITEM: ENTRIES");
    if (starts_with(header, "ITEM: BOX BOUNDS")) {
      // The last three words are the axes' boundary flags (after a triclinic box's "xy xz yz").
      const std::vector<std::string_view> flags = split_fields(header.substr(16));
      const bool triclinic = flags.size() > 3;
      for (int a = 0; a < 3; ++a) {
        const std::string_view bounds = reader.require("a box bounds line");
        split_fields(bounds, f);
        if (f.size() < 2) fail_at(path, reader.number(), "a box bounds line needs lo and hi");
        frame.box.lo[a] = parse_real(f[0], path, reader.number(), "box bound");
        frame.box.hi[a] = parse_real(f[1], path, reader.number(), "box bound");
        const std::size_t flag = flags.size() >= 3 ? flags.size() - 3 + std::size_t(a) : 0;
        frame.box.periodic[a] =
            !triclinic && flags.size() >= 3 && !flags[flag].empty() && flags[flag][0] == 'p';
      }
      header = reader.require("ITEM: ENTRIES");
    }
    if (!starts_with(header, "ITEM: ENTRIES"))
      fail_at(path, reader.number(), "expected ITEM: ENTRIES");
    const std::size_t named = split_fields(header.substr(13)).size();
    if (named != layout.columns) {
      fail_at(path, reader.number(),
              "ITEM: ENTRIES names " + std::to_string(named) +
                  " columns; the contact columns "
                  "describe " +
                  std::to_string(layout.columns));
    }
    frame.first_line = reader.number() + 1;
    const auto n = static_cast<std::size_t>(count);
    frame.first.reserve(n), frame.second.reserve(n), frame.value.reserve(n);
    for (std::size_t k = 0; k < n; ++k) {
      split_fields(reader.require("a contact"), f);
      const std::size_t at = reader.number();
      if (f.size() != layout.columns) {
        fail_at(path, at,
                std::to_string(f.size()) + " columns, expected " + std::to_string(layout.columns));
      }
      const auto id = [&](int column) {
        const std::int64_t v = parse_integer(f[column], path, at, "grain id");
        if (v <= 0) {
          fail_at(path, at,
                  "column " + std::to_string(column + 1) + ": grain id " + std::to_string(v) +
                      " is not positive");
        }
        return static_cast<std::uint64_t>(v);
      };
      frame.first.push_back(id(layout.first));
      frame.second.push_back(id(layout.second));
      double value = 0.0;
      if (layout.value_width == 3) {
        double sum = 0.0;
        for (int c = 0; c < 3; ++c) {
          const double v = parse_real(f[layout.value + c], path, at, "pair value");
          sum += v * v;
        }
        value = std::sqrt(sum);
      } else {
        value = parse_real(f[layout.value], path, at, "pair value");
        // LAMMPS pair/local's force is signed (negative: the pair attracts); 2g's value is the
        // force's magnitude.
        if (layout.value_name == "force") value = std::fabs(value);
      }
      if (!std::isfinite(value) || value < 0.0) {
        fail_at(path, at,
                "column " + std::to_string(layout.value + 1) + ": the pair's " + layout.value_name +
                    " must be finite and >= 0");
      }
      frame.value.push_back(static_cast<float>(value));
      if (layout.periodic >= 0) {
        frame.periodic.push_back(
            parse_real(f[layout.periodic], path, at, "periodic flag") != 0.0 ? 1 : 0);
      }
    }
    frames.push_back(std::move(frame));
  }
  if (frames.empty()) throw InputError(path + ": no contacts (an empty file)");
  return frames;
}

ContactIndices match_contacts(const ContactFrame& contacts, const ParticleFrame& particles,
                              const std::string& particle_path) {
  if (contacts.step && particles.step && *contacts.step != *particles.step) {
    throw InputError(contacts.path + ": contacts of step " + std::to_string(*contacts.step) +
                     ", but " + particle_path + " holds step " + std::to_string(*particles.step));
  }
  if (particles.ids.empty() && !contacts.first.empty()) {
    throw InputError(particle_path + ": the particles have no ids to match the contacts to");
  }
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  index.reserve(particles.ids.size());
  for (std::size_t i = 0; i < particles.ids.size(); ++i) {
    index.emplace(particles.ids[i], static_cast<std::uint32_t>(i));
  }
  ContactIndices out;
  out.first.reserve(contacts.first.size());
  out.second.reserve(contacts.first.size());
  out.value = contacts.value;
  for (std::size_t k = 0; k < contacts.first.size(); ++k) {
    for (const bool second : {false, true}) {
      const std::uint64_t id = second ? contacts.second[k] : contacts.first[k];
      const auto it = index.find(id);
      if (it == index.end()) {
        throw InputError(contacts.path + ":" + std::to_string(contacts.first_line + k) +
                         ": grain id " + std::to_string(id) + " (the pair's " +
                         (second ? "second" : "first") + " grain) is not in " + particle_path);
      }
      (second ? out.second : out.first).push_back(it->second);
    }
  }
  return out;
}

}  // namespace granray::io
