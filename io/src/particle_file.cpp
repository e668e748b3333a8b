#include "granray/io/particle_file.h"

#include <cctype>
#include <cstring>
#include <fstream>

#include "granray/errors.h"

namespace granray::io {

ParticleFormat parse_particle_format(const std::string& name) {
  if (name == "auto") return ParticleFormat::automatic;
  if (name == "xyzr") return ParticleFormat::xyzr;
  if (name == "lammps") return ParticleFormat::lammps;
  if (name == "sphere") return ParticleFormat::sphere;
  throw ConfigError("unknown particle format '" + name + "' (auto, xyzr, lammps or sphere)");
}

ParticleFormat detect_particle_format(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open for reading");
  char head[16] = {};
  in.read(head, sizeof head);
  const std::streamsize got = in.gcount();
  if (got == static_cast<std::streamsize>(sizeof head)) {
    double version;
    std::uint32_t nd;
    std::memcpy(&version, head, sizeof version);
    std::memcpy(&nd, head + 8, sizeof nd);
    if (version >= 2.0 && version < 3.0 && nd == 3) return ParticleFormat::sphere;
  }
  std::size_t i = 0;
  while (i < static_cast<std::size_t>(got) && std::isspace(static_cast<unsigned char>(head[i]))) {
    ++i;
  }
  if (static_cast<std::size_t>(got) - i >= 5 && std::memcmp(head + i, "ITEM:", 5) == 0) {
    return ParticleFormat::lammps;
  }
  return ParticleFormat::xyzr;
}

namespace {

std::vector<ParticleFrame> read_with_scalar(const std::string& path, ParticleFormat format,
                                            const std::string& scalar) {
  switch (format) {
    case ParticleFormat::xyzr:
      return read_xyzr_file(path, scalar);
    case ParticleFormat::lammps:
      return read_lammps_dump(path, scalar);
    case ParticleFormat::sphere:
      return read_sphere_bin(path, scalar);
    case ParticleFormat::automatic:
      break;
  }
  throw InputError(path + ": unknown particle format");
}

}  // namespace

std::vector<ParticleFrame> read_particle_file(const std::string& path, ParticleFormat format,
                                              const FieldNames& fields) {
  if (format == ParticleFormat::automatic) format = detect_particle_format(path);
  std::vector<ParticleFrame> frames = read_with_scalar(path, format, fields.color);
  // Another value: read again for it (text dumps name their columns; a second pass is simpler
  // than every reader carrying several).
  const auto read_also = [&](const std::string& name, auto&& into) {
    if (name.empty() || name == fields.color) return;
    std::vector<ParticleFrame> again = read_with_scalar(path, format, name);
    for (std::size_t k = 0; k < frames.size() && k < again.size(); ++k) {
      into(frames[k]) = std::move(again[k].scalar);
    }
  };
  read_also(fields.select, [](ParticleFrame& f) -> std::vector<float>& { return f.select; });
  for (int slot = 0; slot < kMaterialFields; ++slot) {
    read_also(fields.materials[slot],
              [slot](ParticleFrame& f) -> std::vector<float>& { return f.material[slot]; });
  }
  return frames;
}

}  // namespace granray::io
