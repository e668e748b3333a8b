#include "dem_params.h"

#include <cmath>

#include "granray/errors.h"
#include "toml_table.h"

namespace granray::dem {

using granray::detail::positive;
using granray::detail::TableReader;

DemParams parse_dem_params(const std::string& toml_text, const std::string& source,
                           const std::vector<std::string>& overrides) {
  toml::table root = granray::detail::parse_document(toml_text, source);
  for (const std::string& assignment : overrides) {
    granray::detail::apply_override(root, assignment);
  }
  TableReader(root, "").only_keys({"simulation", "insitu"});
  DemParams p;
  const toml::node* node = root.get("simulation");
  if (node == nullptr) return p;
  if (!node->is_table()) {
    throw ConfigError(granray::detail::where(node->source()) +
                      ": key 'simulation' must be a table");
  }
  const TableReader t(*node->as_table(), "simulation");
  t.only_keys({"particles", "steps", "dt", "seed", "box", "radius", "density", "stiffness",
               "restitution", "friction", "gravity", "pour_height", "pour_width", "backend"});
  if (const auto n = t.integer("particles")) {
    if (*n < 1 || *n > 500000000) t.fail("particles", "must be in 1..5e8");
    p.particles = *n;
  }
  if (const auto steps = t.integer("steps")) {
    if (*steps < 0) t.fail("steps", "must be >= 0");
    p.steps = *steps;
  }
  if (const auto dt = t.number("dt")) p.dt = positive(t, "dt", *dt);
  if (const auto seed = t.integer("seed")) p.seed = static_cast<std::uint64_t>(*seed);
  if (const auto box = t.vec3("box")) {
    if (!(box->x > 0 && box->y > 0 && box->z > 0)) t.fail("box", "must hold three sizes > 0");
    p.box = *box;
  }
  if (const auto r = t.numbers("radius", 2)) {
    if (!((*r)[0] > 0 && (*r)[0] <= (*r)[1] && std::isfinite((*r)[1]))) {
      t.fail("radius", "must be [min, max] with 0 < min <= max");
    }
    p.radius_min = static_cast<float>((*r)[0]);
    p.radius_max = static_cast<float>((*r)[1]);
  }
  if (const auto v = t.number("density")) p.density = positive(t, "density", *v);
  if (const auto v = t.number("stiffness")) p.stiffness = positive(t, "stiffness", *v);
  if (const auto v = t.number("restitution")) {
    if (!(*v > 0.0 && *v <= 1.0)) t.fail("restitution", "must be in (0, 1]");
    p.restitution = static_cast<float>(*v);
  }
  if (const auto v = t.number("friction")) p.friction = positive(t, "friction", *v, true);
  if (const auto g = t.vec3("gravity")) p.gravity = *g;
  if (const auto v = t.number("pour_height")) {
    if (!(*v >= 0.0 && *v < 1.0)) t.fail("pour_height", "must be in [0, 1)");
    p.pour_height = static_cast<float>(*v);
  }
  if (const auto v = t.number("pour_width")) {
    if (!(*v > 0.0 && *v <= 1.0)) t.fail("pour_width", "must be in (0, 1]");
    p.pour_width = static_cast<float>(*v);
  }
  if (const auto b = t.string("backend")) {
    const auto kind = backend_from_name(*b);
    if (!kind) t.fail("backend", "must be \"auto\", \"cuda\" or \"cpu\"");
    p.backend = *kind;
  }
  // The contact must be resolved in >= 10 steps or the integration is unstable.
  const double pi = 3.14159265358979323846;
  const double m_min = p.density * 4.0 / 3.0 * pi * std::pow(p.radius_min, 3);
  const double contact_time = pi * std::sqrt(0.5 * m_min / p.stiffness);
  if (p.dt > contact_time / 10.0) {
    t.fail("dt", "= " + std::to_string(p.dt) + " s is too long: contacts last " +
                     std::to_string(contact_time) +
                     " s, so dt must be <= " + std::to_string(contact_time / 10.0));
  }
  return p;
}

}  // namespace granray::dem
