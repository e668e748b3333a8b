// A per-atom value that a granray configuration names (the colour, the selection or a
// material's field), found where LAMMPS keeps it: atom properties by the names `dump custom`
// uses, v_NAME (an atom-style variable), c_ID / c_ID[k] (a per-atom compute) and f_ID / f_ID[k]
// (a per-atom fix). The same names granray.lammps takes, with the same arithmetic (speed is the
// norm of v summed in double as granray-render sums a dump's vx vy vz).
#pragma once

#include <string>
#include <vector>

#include "pointers.h"

namespace granray::lammps {

class AtomValue : protected LAMMPS_NS::Pointers {
 public:
  // Finds `name`; throws std::invalid_argument saying what LAMMPS lacks when it has no such
  // value. Call it after the styles it may name are defined (a fix's init()).
  AtomValue(LAMMPS_NS::LAMMPS* lmp, std::string name);

  const std::string& name() const { return name_; }
  // Whether the value comes from a compute or a variable, which LAMMPS must be told to keep
  // current on the steps a frame reads it (Modify::addstep_compute).
  bool needs_computes() const;

  // The values of atoms `atoms` (local indices) on this step, as floats. Throws
  // std::runtime_error when LAMMPS cannot give them now (a fix whose values are not current).
  void read(const std::vector<int>& atoms, int group, std::vector<float>& out);

  // Every name granray takes besides v_, c_ and f_ references, for messages and docs.
  static std::string names_taken();

 private:
  enum class Kind { norm, component, property, diameter, variable, compute, fix };

  std::string name_;
  Kind kind_ = Kind::property;
  std::string property_;  // atom array, for norm, component and property
  int column_ = -1;       // component or c_/f_ column (0-based); -1 for a vector
  std::string id_;        // compute, fix or variable name
  std::vector<double> scratch_;
};

}  // namespace granray::lammps
