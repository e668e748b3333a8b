#include "lammps_atom_values.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "atom.h"
#include "compute.h"
#include "fix.h"
#include "input.h"
#include "modify.h"
#include "update.h"
#include "variable.h"

namespace granray::lammps {
namespace {

// name -> (atom array, column): vectors' norms take column -1.
const std::map<std::string, std::pair<std::string, int>>& norms() {
  static const std::map<std::string, std::pair<std::string, int>> m = {
      {"speed", {"v", -1}}, {"force", {"f", -1}}, {"angular_speed", {"omega", -1}}};
  return m;
}
const std::map<std::string, std::pair<std::string, int>>& components() {
  static const std::map<std::string, std::pair<std::string, int>> m = {
      {"x", {"x", 0}},          {"y", {"x", 1}},          {"z", {"x", 2}},
      {"vx", {"v", 0}},         {"vy", {"v", 1}},         {"vz", {"v", 2}},
      {"fx", {"f", 0}},         {"fy", {"f", 1}},         {"fz", {"f", 2}},
      {"omegax", {"omega", 0}}, {"omegay", {"omega", 1}}, {"omegaz", {"omega", 2}}};
  return m;
}
const std::map<std::string, std::string>& properties() {
  static const std::map<std::string, std::string> m = {
      {"type", "type"}, {"radius", "radius"}, {"mass", "mass"}, {"id", "id"}, {"mol", "mol"}};
  return m;
}

// "c_ID[3]" -> ("ID", 2); "c_ID" -> ("ID", -1).
std::pair<std::string, int> reference(const std::string& name) {
  const std::string rest = name.substr(2);
  const auto open = rest.find('[');
  if (open == std::string::npos) return {rest, -1};
  if (rest.back() != ']' || open + 2 > rest.size() - 1) {
    throw std::invalid_argument("field \"" + name + "\": a column is written ID[k], k >= 1");
  }
  const std::string digits = rest.substr(open + 1, rest.size() - open - 2);
  if (digits.find_first_not_of("0123456789") != std::string::npos || std::stoi(digits) < 1) {
    throw std::invalid_argument("field \"" + name + "\": a column is written ID[k], k >= 1");
  }
  return {rest.substr(0, open), std::stoi(digits) - 1};
}

void check_columns(const std::string& name, const char* what, const std::string& id, int columns,
                   int column) {
  if (column < 0 && columns != 0) {
    throw std::invalid_argument("field \"" + name + "\": " + what + " \"" + id + "\" has " +
                                std::to_string(columns) + " per-atom columns; name one, " + name +
                                "[k]");
  }
  if (column >= 0 && column >= columns) {
    throw std::invalid_argument("field \"" + name + "\": " + what + " \"" + id + "\" has " +
                                (columns == 0 ? std::string("a per-atom vector, no columns")
                                              : std::to_string(columns) + " per-atom columns"));
  }
}

}  // namespace

AtomValue::AtomValue(LAMMPS_NS::LAMMPS* lmp, std::string name)
    : Pointers(lmp), name_(std::move(name)) {
  const std::string prefix = name_.substr(0, 2);
  if (const auto n = norms().find(name_); n != norms().end()) {
    kind_ = Kind::norm;
    property_ = n->second.first;
  } else if (const auto c = components().find(name_); c != components().end()) {
    kind_ = Kind::component;
    property_ = c->second.first;
    column_ = c->second.second;
  } else if (const auto p = properties().find(name_); p != properties().end()) {
    kind_ = Kind::property;
    property_ = p->second;
  } else if (name_ == "diameter") {
    kind_ = Kind::diameter;
    property_ = "radius";
  } else if (prefix == "v_") {
    kind_ = Kind::variable;
    id_ = name_.substr(2);
    const int ivar = input->variable->find(id_.c_str());
    if (ivar < 0)
      throw std::invalid_argument("field \"" + name_ + "\": no variable \"" + id_ + "\"");
    if (!input->variable->atomstyle(ivar)) {
      throw std::invalid_argument("field \"" + name_ + "\": variable \"" + id_ +
                                  "\" is not atom-style");
    }
  } else if (prefix == "c_" || prefix == "f_") {
    kind_ = prefix == "c_" ? Kind::compute : Kind::fix;
    std::tie(id_, column_) = reference(name_);
    const char* what = kind_ == Kind::compute ? "compute" : "fix";
    int peratom = 0, columns = 0;
    if (kind_ == Kind::compute) {
      if (const LAMMPS_NS::Compute* c = modify->get_compute_by_id(id_)) {
        peratom = c->peratom_flag ? 1 : 0;
        columns = c->size_peratom_cols;
      } else {
        peratom = -1;
      }
    } else if (const LAMMPS_NS::Fix* f = modify->get_fix_by_id(id_)) {
      peratom = f->peratom_flag ? 1 : 0;
      columns = f->size_peratom_cols;
    } else {
      peratom = -1;
    }
    if (peratom < 0) {
      throw std::invalid_argument("field \"" + name_ + "\": no " + what + " \"" + id_ + "\"");
    }
    if (peratom == 0) {
      throw std::invalid_argument("field \"" + name_ + "\": " + what + " \"" + id_ +
                                  (kind_ == Kind::compute ? "\" computes" : "\" keeps") +
                                  " no per-atom values");
    }
    check_columns(name_, what, id_, columns, column_);
  } else {
    throw std::invalid_argument("field \"" + name_ + "\": fix granray takes " + names_taken() +
                                ", v_NAME (an atom-style variable), c_ID or c_ID[k] (a per-atom "
                                "compute) and f_ID or f_ID[k] (a per-atom fix)");
  }
  if (kind_ == Kind::norm || kind_ == Kind::component || kind_ == Kind::diameter ||
      (kind_ == Kind::property && property_ == "radius")) {
    const bool present = property_ == "x" || property_ == "v" || property_ == "f" ||
                         (property_ == "omega" && atom->omega_flag) ||
                         (property_ == "radius" && atom->radius_flag);
    if (!present) {
      throw std::invalid_argument("field \"" + name_ + "\": this atom style has no per-atom " +
                                  property_ + " (atom_style sphere has radius and omega)");
    }
  }
  if (kind_ == Kind::property && property_ == "mol" && atom->molecule == nullptr) {
    throw std::invalid_argument("field \"" + name_ + "\": this atom style has no molecule ids");
  }
}

bool AtomValue::needs_computes() const { return kind_ == Kind::compute || kind_ == Kind::variable; }

void AtomValue::read(const std::vector<int>& atoms, int group, std::vector<float>& out) {
  out.resize(atoms.size());
  const auto fill = [&](auto&& value) {
    for (std::size_t k = 0; k < atoms.size(); ++k) out[k] = static_cast<float>(value(atoms[k]));
  };
  double** array = property_ == "x"       ? atom->x
                   : property_ == "v"     ? atom->v
                   : property_ == "f"     ? atom->f
                   : property_ == "omega" ? atom->omega
                                          : nullptr;
  switch (kind_) {
    case Kind::norm:
      fill([&](int i) {
        const double* a = array[i];
        return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      });
      return;
    case Kind::component:
      fill([&](int i) { return array[i][column_]; });
      return;
    case Kind::property:
      // Which array is chosen once a frame, not once an atom.
      if (property_ == "type") {
        fill([&](int i) { return atom->type[i]; });
      } else if (property_ == "radius") {
        fill([&](int i) { return atom->radius[i]; });
      } else if (property_ == "id") {
        fill([&](int i) { return static_cast<double>(atom->tag[i]); });
      } else if (property_ == "mol") {
        fill([&](int i) { return static_cast<double>(atom->molecule[i]); });
      } else if (atom->rmass != nullptr) {  // mass: per atom where the style has it (sphere)
        fill([&](int i) { return atom->rmass[i]; });
      } else {  // else per type
        fill([&](int i) { return atom->mass[atom->type[i]]; });
      }
      return;
    case Kind::diameter:
      fill([&](int i) { return 2.0 * atom->radius[i]; });
      return;
    case Kind::variable: {
      const int ivar = input->variable->find(id_.c_str());
      if (ivar < 0) throw std::runtime_error("field \"" + name_ + "\": variable deleted");
      scratch_.assign(static_cast<std::size_t>(atom->nmax > 0 ? atom->nmax : 1), 0.0);
      input->variable->compute_atom(ivar, group, scratch_.data(), 1, 0);
      fill([&](int i) { return scratch_[i]; });
      return;
    }
    case Kind::compute: {
      LAMMPS_NS::Compute* c = modify->get_compute_by_id(id_);
      if (c == nullptr) throw std::runtime_error("field \"" + name_ + "\": compute deleted");
      if (!(c->invoked_flag & LAMMPS_NS::Compute::INVOKED_PERATOM)) {
        c->compute_peratom();
        c->invoked_flag |= LAMMPS_NS::Compute::INVOKED_PERATOM;
      }
      if (column_ < 0) {
        fill([&](int i) { return c->vector_atom[i]; });
      } else {
        fill([&](int i) { return c->array_atom[i][column_]; });
      }
      return;
    }
    case Kind::fix: {
      LAMMPS_NS::Fix* f = modify->get_fix_by_id(id_);
      if (f == nullptr) throw std::runtime_error("field \"" + name_ + "\": fix deleted");
      if (f->peratom_freq > 0 && update->ntimestep % f->peratom_freq != 0) {
        throw std::runtime_error("field \"" + name_ + "\": fix \"" + id_ +
                                 "\" has per-atom values only every " +
                                 std::to_string(f->peratom_freq) + " steps, not at step " +
                                 std::to_string(update->ntimestep));
      }
      if (column_ < 0) {
        fill([&](int i) { return f->vector_atom[i]; });
      } else {
        fill([&](int i) { return f->array_atom[i][column_]; });
      }
      return;
    }
  }
}

std::string AtomValue::names_taken() {
  std::string list;
  const auto add = [&](const std::string& n) { list += (list.empty() ? "" : ", ") + n; };
  for (const auto& n : norms()) add(n.first);
  for (const auto& n : components()) add(n.first);
  for (const auto& n : properties()) add(n.first);
  add("diameter");
  return list;
}

}  // namespace granray::lammps
