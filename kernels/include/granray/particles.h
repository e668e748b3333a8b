#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "granray/kernels/vec.h"

namespace granray {

enum class MemorySpace { host, device };

// The most fields the materials of one frame select grains by (each material names one).
constexpr int kMaterialFields = 4;

// contract 2g: a frame's contact pairs and a value f >= 0 per pair (the contact force unless the
// configuration names another), in the particles' memory (or the host's with `on_host`). A pair
// names its grains by index into the frame's particles (first, second), or gives them whole:
// `spheres` and `ids` hold two entries a pair, each grain's (x, y, z, r) and global id, for a
// grain that is not among the frame's particles (another rank's).
struct ContactView {
  const std::uint32_t* first = nullptr;
  const std::uint32_t* second = nullptr;
  const float* value = nullptr;
  std::size_t count = 0;
  const Vec4* spheres = nullptr;
  const std::uint64_t* ids = nullptr;
  bool on_host = false;
  // Pairs given whole: true when each of their spheres is a grain as some rank draws it, so that
  // the grain hides the part of the capsule inside it (the renderer then cuts that part off);
  // false where a sphere may stand for no drawn grain (a periodic half's midpoint).
  bool ends_are_grains = true;
};

// A non-owning view of one frame's particles, wherever the simulation keeps them.
struct ParticleView {
  const Vec4* xyzr = nullptr;  // (x, y, z, radius) per particle
  std::size_t count = 0;
  const std::uint64_t* ids = nullptr;    // optional global ids
  const float* scalar = nullptr;         // optional value to colour by, one per particle
  const float* select_scalar = nullptr;  // optional value RenderSettings::select tests (null:
                                         // `scalar`), in the same memory as the positions
  // Optional values the materials select by: slot k holds the field of the materials whose
  // field_slot is k (MaterialSettings); null: `scalar`. In the same memory as the positions.
  std::array<const float*, kMaterialFields> material_values{};
  std::uint64_t id_offset = 0;  // without ids: id = index + id_offset
  ContactView contacts;         // contract 2g: drawn where RenderSettings::contacts asks
  MemorySpace space = MemorySpace::host;
  void* cuda_stream = nullptr;  // cudaStream_t to run on (CUDA backend)
};

// Axis-aligned box of the renderable spheres (p - r .. p + r) and the particle census.
struct SceneBounds {
  Vec3 lo;
  Vec3 hi;
  std::uint64_t renderable;
  std::uint64_t skipped;
  double diameter_sum;
  float max_radius;  // of the renderable spheres; 0 when unknown (the grid then counts)
  // The four bytes the alignment would leave, named so that every copy (to and from the GPU in
  // the bounds' reduction) copies defined bytes: compute-sanitizer's initcheck flagged them.
  float unused_padding = 0.0f;
};
static_assert(sizeof(SceneBounds) == 56, "no hidden padding left");

}  // namespace granray
