// LAMMPS / LIGGGHTS "dump custom" text: ITEM: blocks, every snapshot a frame, columns by name.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "granray/errors.h"
#include "granray/io/particle_file.h"
#include "line_reader.h"
#include "text_fields.h"

namespace granray::io {
namespace {

using detail::fail_at;
using detail::LineReader;
using detail::parse_integer;
using detail::parse_real;
using detail::split_fields;
using detail::starts_with;

struct Box {
  double lo[3], hi[3];
  double xy = 0, xz = 0, yz = 0;
  bool triclinic = false;
};

Box read_box(LineReader& reader, std::string_view header) {
  Box box;
  box.triclinic = header.find("xy") != std::string::npos;
  double bound_lo[3], bound_hi[3];
  for (int a = 0; a < 3; ++a) {
    const std::string_view line = reader.require("a box bounds line");
    const auto f = split_fields(line);
    if (f.size() != (box.triclinic ? 3u : 2u)) {
      fail_at(reader.path(), reader.number(),
              "expected " + std::to_string(box.triclinic ? 3 : 2) + " numbers in the box bounds");
    }
    bound_lo[a] = parse_real(f[0], reader.path(), reader.number(), "box bound");
    bound_hi[a] = parse_real(f[1], reader.path(), reader.number(), "box bound");
    if (box.triclinic) {
      const double tilt = parse_real(f[2], reader.path(), reader.number(), "box tilt");
      (a == 0 ? box.xy : (a == 1 ? box.xz : box.yz)) = tilt;
    }
  }
  // Triclinic dumps give the bounding box of the tilted cell; recover the cell's own bounds.
  const double x_shift_lo = std::min({0.0, box.xy, box.xz, box.xy + box.xz});
  const double x_shift_hi = std::max({0.0, box.xy, box.xz, box.xy + box.xz});
  const double y_shift_lo = std::min(0.0, box.yz);
  const double y_shift_hi = std::max(0.0, box.yz);
  box.lo[0] = bound_lo[0] - x_shift_lo;
  box.hi[0] = bound_hi[0] - x_shift_hi;
  box.lo[1] = bound_lo[1] - y_shift_lo;
  box.hi[1] = bound_hi[1] - y_shift_hi;
  box.lo[2] = bound_lo[2];
  box.hi[2] = bound_hi[2];
  return box;
}

struct Columns {
  std::array<int, 3> position{-1, -1, -1};
  bool scaled = false;
  int radius = -1;
  bool diameter = false;
  int id = -1;
  int scalar = -1;
  std::array<int, 3> velocity{-1, -1, -1};  // for a derived "speed"
  std::size_t count = 0;
};

Columns find_columns(const std::vector<std::string_view>& names, const std::string& scalar,
                     const LineReader& reader) {
  Columns c;
  c.count = names.size();
  auto index_of = [&](const char* name) {
    const auto it = std::find(names.begin(), names.end(), std::string_view(name));
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  };
  const char* sets[4][3] = {
      {"x", "y", "z"}, {"xu", "yu", "zu"}, {"xs", "ys", "zs"}, {"xsu", "ysu", "zsu"}};
  for (int s = 0; s < 4 && c.position[0] < 0; ++s) {
    std::array<int, 3> found{index_of(sets[s][0]), index_of(sets[s][1]), index_of(sets[s][2])};
    if (found[0] >= 0 && found[1] >= 0 && found[2] >= 0) {
      c.position = found;
      c.scaled = s >= 2;
    }
  }
  if (c.position[0] < 0) {
    fail_at(reader.path(), reader.number(),
            "ITEM: ATOMS has no x y z (or xu yu zu, xs ys zs, xsu ysu zsu) columns");
  }
  c.radius = index_of("radius");
  if (c.radius < 0) {
    c.radius = index_of("diameter");
    c.diameter = true;
  }
  if (c.radius < 0) {
    fail_at(reader.path(), reader.number(), "ITEM: ATOMS has no radius or diameter column");
  }
  c.id = index_of("id");
  if (!scalar.empty()) {
    c.scalar = index_of(scalar.c_str());
    if (c.scalar < 0 && scalar == "speed") {
      c.velocity = {index_of("vx"), index_of("vy"), index_of("vz")};
    }
    if (c.scalar < 0 && (c.velocity[0] < 0 || c.velocity[1] < 0 || c.velocity[2] < 0)) {
      fail_at(reader.path(), reader.number(),
              "ITEM: ATOMS has no column '" + scalar + "' to colour by" +
                  (scalar == "speed" ? " (nor vx vy vz)" : ""));
    }
  }
  return c;
}

}  // namespace

std::vector<ParticleFrame> read_lammps_dump(const std::string& path, const std::string& scalar) {
  LineReader reader(path);
  std::vector<ParticleFrame> frames;
  std::string_view line;  // valid until the next line is read
  std::vector<std::string_view> f;
  std::optional<std::int64_t> step;
  std::optional<std::int64_t> atoms;
  std::optional<Box> box;
  double time = 0.0;
  while (reader.next(line)) {
    split_fields(line, f);
    if (f.empty()) continue;
    if (!starts_with(line, "ITEM:")) {
      fail_at(path, reader.number(),
              "expected an 'ITEM:' line, got '" + std::string(line.substr(0, 40)) + "'");
    }
    if (starts_with(line, "ITEM: TIMESTEP")) {
      split_fields(reader.require("the timestep"), f);
      if (f.size() != 1) fail_at(path, reader.number(), "expected one timestep number");
      step = parse_integer(f[0], path, reader.number(), "the timestep");
    } else if (starts_with(line, "ITEM: TIME")) {
      split_fields(reader.require("the time"), f);
      if (f.size() != 1) fail_at(path, reader.number(), "expected one time value");
      time = parse_real(f[0], path, reader.number(), "the time");
    } else if (starts_with(line, "ITEM: NUMBER OF ATOMS")) {
      split_fields(reader.require("the number of atoms"), f);
      if (f.size() != 1) fail_at(path, reader.number(), "expected one atom count");
      atoms = parse_integer(f[0], path, reader.number(), "the number of atoms");
      if (*atoms < 0) fail_at(path, reader.number(), "negative number of atoms");
    } else if (starts_with(line, "ITEM: BOX BOUNDS")) {
      box = read_box(reader, line);
    } else if (starts_with(line, "ITEM: ATOMS")) {
      if (!step || !atoms || !box) {
        fail_at(path, reader.number(),
                "ITEM: ATOMS before the TIMESTEP, NUMBER OF ATOMS and BOX BOUNDS items");
      }
      // The columns are found before the rows are read: the names are views into `line`.
      const Columns col = find_columns(split_fields(line.substr(11)), scalar, reader);
      ParticleFrame frame;
      frame.step = step;
      frame.time = time;
      // A row holds col.count numbers, each a character and a separator at least. Reserve no
      // more rows than the rest of the file can hold: a damaged count then ends in "file ends
      // after k of N atoms", not in a multi-gigabyte allocation.
      const std::uint64_t rows_that_fit = reader.bytes_left() / (2 * col.count);
      const auto reserved = static_cast<std::size_t>(
          std::min<std::uint64_t>(static_cast<std::uint64_t>(*atoms), rows_that_fit));
      frame.xyzr.reserve(reserved);
      if (col.id >= 0) frame.ids.reserve(reserved);
      for (std::int64_t k = 0; k < *atoms; ++k) {
        std::string_view row;
        if (!reader.next(row)) {
          fail_at(
              path, reader.number() + 1,
              "file ends after " + std::to_string(k) + " of " + std::to_string(*atoms) + " atoms");
        }
        split_fields(row, f);
        if (f.size() != col.count) {
          fail_at(path, reader.number(),
                  "expected " + std::to_string(col.count) + " columns, got " +
                      std::to_string(f.size()));
        }
        double p[3];
        for (int a = 0; a < 3; ++a) {
          p[a] = parse_real(f[col.position[a]], path, reader.number(), "a coordinate");
        }
        if (col.scaled) {
          const Box& b = *box;
          const double lx = b.hi[0] - b.lo[0], ly = b.hi[1] - b.lo[1], lz = b.hi[2] - b.lo[2];
          const double x = b.lo[0] + p[0] * lx + p[1] * b.xy + p[2] * b.xz;
          const double y = b.lo[1] + p[1] * ly + p[2] * b.yz;
          const double z = b.lo[2] + p[2] * lz;
          p[0] = x;
          p[1] = y;
          p[2] = z;
        }
        double r = parse_real(f[col.radius], path, reader.number(), "the radius");
        if (col.diameter) r *= 0.5;
        frame.xyzr.push_back({static_cast<float>(p[0]), static_cast<float>(p[1]),
                              static_cast<float>(p[2]), static_cast<float>(r)});
        if (col.scalar >= 0) {
          frame.scalar.push_back(static_cast<float>(
              parse_real(f[col.scalar], path, reader.number(), "the colour scalar")));
        } else if (!scalar.empty()) {
          double v2 = 0.0;
          for (const int c : col.velocity) {
            const double v = parse_real(f[c], path, reader.number(), "a velocity");
            v2 += v * v;
          }
          frame.scalar.push_back(static_cast<float>(std::sqrt(v2)));
        }
        if (col.id >= 0) {
          const std::int64_t id = parse_integer(f[col.id], path, reader.number(), "the id");
          if (id < 0) fail_at(path, reader.number(), "negative atom id");
          frame.ids.push_back(static_cast<std::uint64_t>(id));
        }
      }
      frames.push_back(std::move(frame));
      step.reset();
      atoms.reset();
      time = 0.0;
    } else {
      // Other items (UNITS, ...) carry one line of data that rendering does not need.
      reader.require("the data of " + std::string(line));
    }
  }
  if (frames.empty()) {
    throw InputError(path + ": no snapshot (ITEM: ATOMS) found in a LAMMPS dump");
  }
  if (step || atoms) {
    fail_at(path, reader.number(), "file ends inside a snapshot, before its ITEM: ATOMS");
  }
  return frames;
}

}  // namespace granray::io
