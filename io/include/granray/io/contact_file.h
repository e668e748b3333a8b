// Contact networks read from files (contract 2g): a `dump local` of a contact compute, one
// snapshot per step, each pair of grains by id with the pair's value; and the pairs matched to
// the grains of the particle snapshot of the same step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "granray/io/particle_file.h"

namespace granray::io {

// What the columns of a contact dump hold, in the words of the computes that wrote them:
//   LIGGGHTS `compute pair/gran/local` keywords, in the compute's order: pos (6 columns: both
//     centres), vel (6), id (3: id1 id2 periodic), force, force_normal, force_tangential, torque,
//     torque_normal, torque_tangential (3 each), contactArea, delta, heatFlux (1 each);
//   LAMMPS `compute property/local patom1 patom2` and `compute pair/local` values: patom1,
//     patom2, and one name per further column (force, fx, fy, fz, p1, ...).
// The pair's value is the length of `force` (or of `fx fy fz`; LAMMPS pair/local's signed
// `force` taken as its magnitude) where the columns have it, else
// of the first force-like triple, else the first named column that is not an id.
struct ContactLayout {
  std::size_t columns = 0;
  int first = -1, second = -1;  // the ids' columns
  int periodic = -1;            // LIGGGHTS' flag, or -1
  int value = -1;               // first column of the value
  int value_width = 1;          // 3: the value is a vector's length
  std::string value_name;
};

// "pos id force" or "patom1 patom2 force"; ConfigError naming an unknown or width-less keyword.
// `field` (contract 2g's insitu.contacts.field): the value is that keyword's column (a vector's
// length), or for "force" the columns fx fy fz; ConfigError when the columns lack it.
ContactLayout parse_contact_layout(const std::string& keywords, const std::string& field = "");

// The simulation box a dump writes, and which axes are periodic ("pp"); a triclinic box is
// taken as not periodic.
struct DumpBox {
  double lo[3] = {0.0, 0.0, 0.0};
  double hi[3] = {0.0, 0.0, 0.0};
  bool periodic[3] = {false, false, false};
};

struct ContactFrame {
  std::string path;
  DumpBox box;
  std::optional<std::int64_t> step;
  std::vector<std::uint64_t> first, second;  // the grains of each pair, by id
  std::vector<float> value;
  std::vector<std::uint8_t> periodic;  // 1: across a periodic boundary; empty without the flag
  std::size_t first_line = 0;          // pair k is on line first_line + k of the file
};

// Every snapshot of the file. InputError naming the file and line (and the column) for a missing
// header, a column count the layout does not have, or a field that is not a number or an id.
std::vector<ContactFrame> read_contact_file(const std::string& path, const ContactLayout& layout);

// The pairs of `contacts` as indices into `particles` (the snapshot of the same step, with ids).
// InputError naming the contact file's line and column for an id the snapshot does not hold, and
// naming both steps when the snapshots' steps differ: nothing renders half.
struct ContactIndices {
  std::vector<std::uint32_t> first, second;
  std::vector<float> value;
};
ContactIndices match_contacts(const ContactFrame& contacts, const ParticleFrame& particles,
                              const std::string& particle_path);

}  // namespace granray::io
