#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "granray/particles.h"

namespace granray::io {

// One snapshot read from a file, owning its particles on the host.
struct ParticleFrame {
  std::vector<Vec4> xyzr;
  std::vector<float> scalar;  // empty, or one value per particle
  std::vector<float> select;  // empty, or the value [insitu.select] tests, per particle
  // Per field slot of [[insitu.materials]] (FieldNames::materials): empty, or its values
  std::array<std::vector<float>, kMaterialFields> material;
  std::vector<std::uint64_t> ids;    // empty, or one global id per particle
  std::optional<std::int64_t> step;  // the snapshot's timestep, when the file has one
  double time = 0.0;

  ParticleView view() const {
    ParticleView v;
    v.xyzr = xyzr.data();
    v.count = xyzr.size();
    v.ids = ids.empty() ? nullptr : ids.data();
    v.scalar = scalar.empty() ? nullptr : scalar.data();
    v.select_scalar = select.empty() ? nullptr : select.data();
    for (int k = 0; k < kMaterialFields; ++k) {
      v.material_values[k] = material[k].empty() ? nullptr : material[k].data();
    }
    return v;
  }
};

enum class ParticleFormat { automatic, xyzr, lammps, sphere };

// "auto", "xyzr", "lammps" or "sphere"; throws ConfigError otherwise.
ParticleFormat parse_particle_format(const std::string& name);

// Guesses the format from the file's first bytes.
ParticleFormat detect_particle_format(const std::string& path);

// The per-particle values a frame reads, each by name ("" = none): what it is coloured by
// (contract 2a), what [insitu.select] tests (2d) and what [[insitu.materials]] select by (2e),
// one name per field slot (MaterialSettings::field_slot).
struct FieldNames {
  std::string color;
  std::string select;
  std::array<std::string, kMaterialFields> materials;
};

// Every snapshot in the file. Throws InputError naming the file and line (or byte offset).
// Each named value is read as a LAMMPS column by name ("speed" is also derived from vx vy vz),
// the fifth xyzr column whatever its name, or "speed" from a sphere file's velocities; a file
// without it is an InputError. `color` fills ParticleFrame::scalar; `select` and `materials` fill
// theirs when they name another value than `color` (which then serves them too).
std::vector<ParticleFrame> read_particle_file(const std::string& path,
                                              ParticleFormat format = ParticleFormat::automatic,
                                              const FieldNames& fields = {});

std::vector<ParticleFrame> read_xyzr_file(const std::string& path, const std::string& scalar = "");
std::vector<ParticleFrame> read_lammps_dump(const std::string& path,
                                            const std::string& scalar = "");
std::vector<ParticleFrame> read_sphere_bin(const std::string& path, const std::string& scalar = "");

}  // namespace granray::io
