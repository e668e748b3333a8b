#pragma once

#include <string>
#include <utility>
#include <vector>

#include "granray/particles.h"
#include "granray/walls.h"

namespace granray {

// One frame of a simulation's particles: views into the simulation's own buffers, never copies.
// The adapters (granray/adapters/) build these from raw device pointers, host arrays or a
// simulation's own state.
struct SimulationParticles {
  struct Field {
    std::string name;
    const float* values;  // one per particle, in the same memory space as the positions
  };

  // Where a named wall of the configuration ([[insitu.walls]] name = "...") is this frame.
  struct WallMotion {
    std::string name;
    RigidTransform transform;             // applied to the configured triangles, or
    const Triangle* triangles = nullptr;  // the simulation's own, read in place
    std::size_t count = 0;
    MemorySpace space = MemorySpace::host;
  };

  ParticleView view;
  // contract 2g: the simulation passes its contact pairs (with_contacts or with_contact_grains),
  // this frame perhaps none: an empty list's pointers may be null.
  bool passes_contacts = false;
  std::vector<Field> fields;
  std::vector<WallMotion> walls;
  // Why this rank's data cannot be drawn this frame, set by an adapter that could not make views
  // of it (an array of the wrong shape, a NaN position): the frame is skipped on every rank with
  // this reason, so that no rank is left waiting in a collective. Empty: usable.
  std::string unusable;

  SimulationParticles& with_field(std::string name, const float* values) {
    fields.push_back({std::move(name), values});
    return *this;
  }
  SimulationParticles& with_ids(const std::uint64_t* ids) {
    view.ids = ids;
    return *this;
  }
  // contract 2g: the frame's contact pairs, drawn by [insitu.contacts]: `count` pairs of particle
  // indices (first[k], second[k]) and a value f >= 0 each (the contact force), in the same memory
  // space as the positions.
  SimulationParticles& with_contacts(const std::uint32_t* first, const std::uint32_t* second,
                                     const float* value, std::size_t count) {
    view.contacts = {first, second, value, count};
    passes_contacts = true;
    return *this;
  }
  // The same with each pair's grains given whole: `spheres` and `ids` two entries a pair, each
  // grain's (x, y, z, r) and global id, so that a pair with another rank's grain (a ghost) is
  // passed by the rank that owns the other. Across ranks, pass each pair once. Each sphere is
  // taken for the grain as its rank draws it (the capsule's part inside it is then never drawn);
  // where one may stand for no drawn grain (a periodic image, or the midpoint of a periodic pair's
  // half, contract 2g), pass `ends_are_grains` false.
  SimulationParticles& with_contact_grains(const Vec4* spheres, const std::uint64_t* ids,
                                           const float* value, std::size_t count,
                                           bool ends_are_grains = true) {
    view.contacts = {};
    view.contacts.spheres = spheres;
    view.contacts.ids = ids;
    view.contacts.value = value;
    view.contacts.count = count;
    view.contacts.ends_are_grains = ends_are_grains;
    passes_contacts = true;
    return *this;
  }
  // A moving wall: the configured wall `name` moved rigidly (a drum's rotation, a piston).
  SimulationParticles& with_wall_transform(std::string name, const RigidTransform& transform) {
    walls.push_back({std::move(name), transform, nullptr, 0, MemorySpace::host});
    return *this;
  }
  // Or the wall's triangles as the simulation holds them this frame: `count` triangles of nine
  // floats in host memory, or in CUDA device memory (read in place, no host copy).
  SimulationParticles& with_wall_triangles(std::string name, const Triangle* triangles,
                                           std::size_t count,
                                           MemorySpace space = MemorySpace::device) {
    walls.push_back({std::move(name), RigidTransform{}, triangles, count, space});
    return *this;
  }
  // The values of a field, or nullptr when it was not passed (or there are no particles).
  const float* field(const std::string& name) const {
    for (const Field& f : fields) {
      if (f.name == name) return f.values;
    }
    return nullptr;
  }
  bool has_field(const std::string& name) const {
    for (const Field& f : fields) {
      if (f.name == name) return true;
    }
    return false;
  }
};

}  // namespace granray
