// The example DEM's per-particle kernels, written once for CUDA and the CPU (GRANRAY_HD).
// Soft spheres: linear spring-dashpot normal force, Coulomb-capped viscous tangential friction,
// planar walls, gravity; velocity Verlet (kick-drift-kick) for translation and rotation.
#pragma once

#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray::dem {

// Contact search grid over the box: cells of at least one largest diameter, so contacts are
// only ever between a cell and its 26 neighbours. Under a slab decomposition each rank holds the
// cells of its slab and one layer beyond: `first` is its first cell in the global grid, `dims`
// its extent, `global_dims` the whole box's (positions outside the box clamp to its edge cells,
// the same cells whatever the decomposition).
struct ContactGrid {
  Vec3 box;
  float inv_cell;
  int dims[3];
  int first[3];
  int global_dims[3];

  GRANRAY_HD int global_coord(float x, int axis) const {
    const float c =
        fminf(fmaxf(floorf(x * inv_cell), 0.0f), static_cast<float>(global_dims[axis] - 1));
    return static_cast<int>(c);
  }
  GRANRAY_HD int coord(float x, int axis) const { return global_coord(x, axis) - first[axis]; }
  GRANRAY_HD std::uint32_t index(int x, int y, int z) const {
    return (static_cast<std::uint32_t>(z) * dims[1] + y) * dims[0] + x;
  }
  GRANRAY_HD std::uint32_t key(Vec4 p) const {
    return index(coord(p.x, 0), coord(p.y, 1), coord(p.z, 2));
  }
};

struct ContactLaw {
  float stiffness;
  float damping_factor;  // -2 ln(e) / sqrt(ln(e)^2 + pi^2): damping = factor * sqrt(m_eff k)
  float friction;
};

// Read-only state for the force pass. pos: (x, y, z, r); vel: (v, 1/m); spin: (omega, 1/I).
struct DemState {
  const Vec4* pos;
  const Vec4* vel;
  const Vec4* spin;
  const std::uint32_t* sorted;  // particle indices ordered by cell
  const std::uint32_t* cell_start;
  const std::uint32_t* cell_end;
  ContactGrid grid;
  ContactLaw law;
  Vec3 gravity;
};

// Sort key: the cell above, the grain's global id below. Contacts are then summed in id order
// within each cell, so a grain's force is the same sum in the same order on any number of ranks.
struct CellKey {
  const Vec4* pos;
  const std::uint64_t* id;
  ContactGrid grid;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t i) const {
    return (static_cast<std::uint64_t>(grid.key(pos[i])) << 32) | id[i];
  }
};

struct MarkCells {
  const std::uint64_t* keys;
  std::uint32_t count;
  std::uint32_t* start;
  std::uint32_t* end;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const auto cell = static_cast<std::uint32_t>(keys[k] >> 32);
    if (k == 0 || (keys[k - 1] >> 32) != cell) start[cell] = k;
    if (k + 1 == count || (keys[k + 1] >> 32) != cell) end[cell] = k + 1;
  }
};

// Slab bookkeeping, one bit per direction: a grain's cell column against its rank's slab
// [slab_first, slab_end) of global columns.
enum SlabBits : std::uint8_t { kToLower = 1, kToUpper = 2, kBeyond = 4 };

// Where an owned grain must go after a drift: 0 (stays), kToLower, kToUpper, or kBeyond (past a
// neighbouring slab in one step: the integration has blown up).
struct MigrationSide {
  const Vec4* pos;
  ContactGrid grid;
  int slab_first, slab_end, lower_first, upper_end;
  GRANRAY_HD std::uint8_t operator()(std::uint32_t i) const {
    const int c = grid.global_coord(pos[i].x, 0);
    if (c >= slab_first && c < slab_end) return 0;
    if (c < slab_first) return c >= lower_first ? kToLower : kBeyond;
    return c < upper_end ? kToUpper : kBeyond;
  }
};

// Which neighbours need an owned grain as a ghost: those whose slab touches its cell column.
struct GhostSides {
  const Vec4* pos;
  ContactGrid grid;
  int slab_first, slab_end;
  bool has_lower, has_upper;
  GRANRAY_HD std::uint8_t operator()(std::uint32_t i) const {
    const int c = grid.global_coord(pos[i].x, 0);
    std::uint8_t bits = 0;
    if (has_lower && c == slab_first) bits |= kToLower;
    if (has_upper && c == slab_end - 1) bits |= kToUpper;
    return bits;
  }
};

struct HasBits {
  std::uint8_t mask;
  GRANRAY_HD bool operator()(std::uint8_t bits) const { return (bits & mask) != 0; }
};

// One grain as it travels between ranks.
struct Grain {
  Vec4 pos, vel, spin;
  std::uint64_t id;
  std::uint64_t unused;  // keeps the record a multiple of 16 bytes
};

struct PackGrain {
  const Vec4* pos;
  const Vec4* vel;
  const Vec4* spin;
  const std::uint64_t* id;
  GRANRAY_HD Grain operator()(std::uint32_t i) const { return {pos[i], vel[i], spin[i], id[i], 0}; }
};

struct UnpackGrain {
  const Grain* grains;
  std::uint32_t offset;
  Vec4* pos;
  Vec4* vel;
  Vec4* spin;
  std::uint64_t* id;
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const Grain g = grains[k];
    pos[offset + k] = g.pos;
    vel[offset + k] = g.vel;
    spin[offset + k] = g.spin;
    id[offset + k] = g.id;
  }
};

// Force and torque on one sphere from a contact with normal n (pointing into the sphere),
// overlap delta, relative velocity of the contact point v_rel and effective mass m_eff.
// The normal force's magnitude: the spring on the overlap less the dashpot, never pulling.
GRANRAY_HD_INLINE float normal_force(const ContactLaw& law, Vec3 n, float delta, Vec3 v_rel,
                                     float m_eff) {
  const float damping = law.damping_factor * sqrtf(m_eff * law.stiffness);
  return fmaxf(0.0f, law.stiffness * delta - damping * dot(v_rel, n));
}

GRANRAY_HD_INLINE void add_contact(const ContactLaw& law, Vec3 n, float delta, Vec3 v_rel,
                                   float m_eff, float radius, Vec3& force, Vec3& torque) {
  const float vn = dot(v_rel, n);
  const float damping = law.damping_factor * sqrtf(m_eff * law.stiffness);
  const float fn = fmaxf(0.0f, law.stiffness * delta - damping * vn);
  force = force + n * fn;
  const Vec3 vt = v_rel - n * vn;
  const float vt_len = sqrtf(dot(vt, vt));
  if (vt_len > 0.0f) {
    const float ft = fminf(damping * vt_len, law.friction * fn);
    const Vec3 f_t = vt * (-ft / vt_len);
    force = force + f_t;
    torque = torque + cross(n * -radius, f_t);
  }
}

// Every grain j in contact with grain i (its neighbour cells' grains that overlap it), handed to
// visit(j, n, delta, v_rel, m_eff): the pair's normal n (pointing into i), overlap, the relative
// velocity of i's contact point to j's, and the effective mass.
// Grain i as the contact laws read it: its sphere, centre, velocity and spin, and its inverse
// mass (the velocity's w).
struct GrainMotion {
  Vec4 sphere;
  Vec3 x, v, w;
  float inverse_mass;
};

GRANRAY_HD_INLINE GrainMotion grain_motion(const DemState& s, std::uint32_t i) {
  const Vec4 p = s.pos[i], v = s.vel[i], w = s.spin[i];
  return {p, center_of(p), {v.x, v.y, v.z}, {w.x, w.y, w.z}, v.w};
}

template <class Visit>
GRANRAY_HD_INLINE void for_each_contact(const DemState& s, std::uint32_t i, Visit&& visit) {
  const GrainMotion g = grain_motion(s, i);
  const Vec4 pi = g.sphere;
  const Vec3 xi = g.x, v_i = g.v, w_i = g.w;
  const int cx = s.grid.coord(pi.x, 0), cy = s.grid.coord(pi.y, 1), cz = s.grid.coord(pi.z, 2);
  for (int z = cz - 1; z <= cz + 1; ++z) {
    if (z < 0 || z >= s.grid.dims[2]) continue;
    for (int y = cy - 1; y <= cy + 1; ++y) {
      if (y < 0 || y >= s.grid.dims[1]) continue;
      for (int x = cx - 1; x <= cx + 1; ++x) {
        if (x < 0 || x >= s.grid.dims[0]) continue;
        const std::uint32_t cell = s.grid.index(x, y, z);
        for (std::uint32_t k = s.cell_start[cell]; k < s.cell_end[cell]; ++k) {
          const std::uint32_t j = s.sorted[k];
          if (j == i) continue;
          const Vec4 pj = s.pos[j];
          const Vec3 d = xi - center_of(pj);
          const float dist2 = dot(d, d);
          const float reach = pi.w + pj.w;
          if (dist2 >= reach * reach || dist2 == 0.0f) continue;
          const float dist = sqrtf(dist2);
          const Vec3 n = d * (1.0f / dist);
          const Vec4 vj = s.vel[j];
          const Vec4 wj = s.spin[j];
          // Velocity of i's contact point relative to j's.
          const Vec3 v_rel = (v_i + cross(w_i, n * -pi.w)) -
                             (Vec3{vj.x, vj.y, vj.z} + cross(Vec3{wj.x, wj.y, wj.z}, n * pj.w));
          const float m_eff = 1.0f / (g.inverse_mass + vj.w);
          visit(j, n, reach - dist, v_rel, m_eff);
        }
      }
    }
  }
}

struct ComputeForces {
  DemState s;
  Vec4* force;   // (F, 0)
  Vec4* torque;  // (tau, 0)

  GRANRAY_HD void operator()(std::uint32_t i) const {
    const GrainMotion g = grain_motion(s, i);
    const Vec4 pi = g.sphere;
    const Vec3 xi = g.x, v_i = g.v, w_i = g.w;
    const float mi = 1.0f / g.inverse_mass;
    Vec3 f = s.gravity * mi;
    Vec3 tau = {0.0f, 0.0f, 0.0f};
    const ContactLaw& law = s.law;
    for_each_contact(s, i, [&](std::uint32_t, Vec3 n, float delta, Vec3 v_rel, float m_eff) {
      add_contact(law, n, delta, v_rel, m_eff, pi.w, f, tau);
    });
    // Six walls: the box [0, box] on every axis.
    for (int a = 0; a < 3; ++a) {
      const float c = component(xi, a);
      const float hi = component(s.grid.box, a);
      for (int side = 0; side < 2; ++side) {
        const float gap = side == 0 ? c : hi - c;
        if (gap >= pi.w) continue;
        Vec3 n = {0.0f, 0.0f, 0.0f};
        (a == 0 ? n.x : (a == 1 ? n.y : n.z)) = side == 0 ? 1.0f : -1.0f;
        const Vec3 v_rel = v_i + cross(w_i, n * -pi.w);
        add_contact(s.law, n, pi.w - gap, v_rel, mi, pi.w, f, tau);
      }
    }
    force[i] = {f.x, f.y, f.z, 0.0f};
    torque[i] = {tau.x, tau.y, tau.z, 0.0f};
  }
};

// contract 2g in situ: the contact pairs of owned grains with their normal forces, each pair once
// across all ranks: seen from the grain of the smaller global id, by the rank that owns that
// grain (the other may be a ghost), so the pair's force is the same sum on any number of ranks.
// First each grain's count, then, after their scan, the pairs written whole (both grains' spheres
// and ids) at each grain's offset.
struct CountContactPairs {
  DemState s;
  const std::uint64_t* id;
  GRANRAY_HD std::uint32_t operator()(std::uint32_t i) const {
    std::uint32_t count = 0;
    const std::uint64_t* ids = id;
    for_each_contact(s, i,
                     [&](std::uint32_t j, Vec3, float, Vec3, float) { count += ids[i] < ids[j]; });
    return count;
  }
};

struct EmitContactPairs {
  DemState s;
  const std::uint64_t* id;
  const std::uint32_t* offset;  // exclusive scan of CountContactPairs
  Vec4* spheres;                // 2 a pair
  std::uint64_t* pair_ids;      // 2 a pair
  float* force;                 // |F_n|
  GRANRAY_HD void operator()(std::uint32_t i) const {
    std::uint32_t k = offset[i];
    const EmitContactPairs& e = *this;
    for_each_contact(s, i, [&](std::uint32_t j, Vec3 n, float delta, Vec3 v_rel, float m_eff) {
      if (!(e.id[i] < e.id[j])) return;
      e.spheres[2 * k] = e.s.pos[i];
      e.spheres[2 * k + 1] = e.s.pos[j];
      e.pair_ids[2 * k] = e.id[i];
      e.pair_ids[2 * k + 1] = e.id[j];
      e.force[k] = normal_force(e.s.law, n, delta, v_rel, m_eff);
      ++k;
    });
  }
};

// Half a velocity Verlet kick: v += F / m dt / 2, omega += tau / I dt / 2 (the w components
// hold 1/m and 1/I). Velocity Verlet, kick-drift-kick: Kick with the old forces, Drift a full
// step, recompute the forces, Kick again.
struct Kick {
  Vec4* vel;
  Vec4* spin;
  const Vec4* force;
  const Vec4* torque;
  float dt;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    Vec4 v = vel[i], w = spin[i];
    const Vec4 f = force[i], t = torque[i];
    v.x += 0.5f * dt * f.x * v.w;
    v.y += 0.5f * dt * f.y * v.w;
    v.z += 0.5f * dt * f.z * v.w;
    w.x += 0.5f * dt * t.x * w.w;
    w.y += 0.5f * dt * t.y * w.w;
    w.z += 0.5f * dt * t.z * w.w;
    vel[i] = v;
    spin[i] = w;
  }
};

// The first half kick and the drift, in one pass over the grains.
struct KickDrift {
  Kick kick;
  Vec4* pos;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    kick(i);
    const Vec4 v = kick.vel[i];
    Vec4 p = pos[i];
    p.x += kick.dt * v.x;
    p.y += kick.dt * v.y;
    p.z += kick.dt * v.z;
    pos[i] = p;
  }
};

struct Speed {
  const Vec4* vel;
  GRANRAY_HD float operator()(std::uint32_t i) const {
    const Vec4 v = vel[i];
    return sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
  }
};

// Energies and the worst overlap, for the physics tests.
struct Energy {
  double kinetic;
  double potential;
  float max_overlap;  // largest overlap / radius of the smaller sphere (walls included)
  float min_gap;      // smallest distance from a centre to a wall, in radii (< 1: touching)
};

struct EnergyOf {
  DemState s;
  GRANRAY_HD Energy operator()(std::uint32_t i) const {
    const Vec4 p = s.pos[i], v = s.vel[i], w = s.spin[i];
    const double m = 1.0 / v.w, inertia = 1.0 / w.w;
    Energy e;
    e.kinetic = 0.5 * m * (double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z) +
                0.5 * inertia * (double(w.x) * w.x + double(w.y) * w.y + double(w.z) * w.z);
    e.potential =
        -m * (double(s.gravity.x) * p.x + double(s.gravity.y) * p.y + double(s.gravity.z) * p.z);
    e.max_overlap = 0.0f;
    e.min_gap = INFINITY;
    for (int a = 0; a < 3; ++a) {
      const float c = component(center_of(p), a);
      const float gap = fminf(c, component(s.grid.box, a) - c) / p.w;
      e.min_gap = fminf(e.min_gap, gap);
      e.max_overlap = fmaxf(e.max_overlap, 1.0f - gap);
    }
    const int cx = s.grid.coord(p.x, 0), cy = s.grid.coord(p.y, 1), cz = s.grid.coord(p.z, 2);
    for (int z = cz - 1; z <= cz + 1; ++z)
      for (int y = cy - 1; y <= cy + 1; ++y)
        for (int x = cx - 1; x <= cx + 1; ++x) {
          if (x < 0 || y < 0 || z < 0 || x >= s.grid.dims[0] || y >= s.grid.dims[1] ||
              z >= s.grid.dims[2]) {
            continue;
          }
          const std::uint32_t cell = s.grid.index(x, y, z);
          for (std::uint32_t k = s.cell_start[cell]; k < s.cell_end[cell]; ++k) {
            const std::uint32_t j = s.sorted[k];
            if (j == i) continue;
            const Vec4 q = s.pos[j];
            const Vec3 d = center_of(p) - center_of(q);
            const float overlap = p.w + q.w - sqrtf(dot(d, d));
            e.max_overlap = fmaxf(e.max_overlap, overlap / fminf(p.w, q.w));
          }
        }
    return e;
  }
};

struct MergeEnergy {
  GRANRAY_HD Energy operator()(const Energy& a, const Energy& b) const {
    return {a.kinetic + b.kinetic, a.potential + b.potential, fmaxf(a.max_overlap, b.max_overlap),
            fminf(a.min_gap, b.min_gap)};
  }
};

}  // namespace granray::dem
