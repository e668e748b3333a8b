#pragma once

#include <string>
#include <utility>
#include <vector>

#include "granray/particles.h"

namespace granray {

// One frame of a simulation's particles: views into the simulation's own buffers, never copies.
// The adapters (granray/adapters/) build these from raw device pointers, host arrays or a
// simulation's own state.
struct SimulationParticles {
  struct Field {
    std::string name;
    const float* values;  // one per particle, in the same memory space as the positions
  };

  ParticleView view;
  std::vector<Field> fields;

  SimulationParticles& with_field(std::string name, const float* values) {
    fields.push_back({std::move(name), values});
    return *this;
  }
  SimulationParticles& with_ids(const std::uint64_t* ids) {
    view.ids = ids;
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
