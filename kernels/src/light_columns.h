// Host: the columns along the light that shadow rays read (kernels/light_columns.h). Two builds
// fill them: the CPU's here, in one pass over the spheres in depth order, and the GPU's by
// sorting in device memory (backend/light_column_lists.inl). Both take their layout from the
// decisions below, so they build the same columns and the exactness argument covers both.
#pragma once

#include <cstdint>
#include <vector>

#include "granray/kernels/light_columns.h"

namespace granray::detail {

// A frame's columns hold a few entries per reference; past this they are not built (the rays
// walk), so that a huge frame does not double its memory for its shadows.
constexpr std::uint64_t kMostColumnReferences = 16u << 20;
constexpr std::uint64_t kMostColumnEntriesPerReference = 8;
// Origins may lie this many times farther from the world's origin than any sphere's far side
// (walls around a bed); a farther origin walks.
constexpr float kColumnOriginScale = 8.0f;
// The pad, as a fraction of that scale: the rounding of `blocks` (its offset from the line
// grows with the distance between origin and centre) and of the projections across and along
// the light is a few float epsilons of it; this is twenty times that.
constexpr float kColumnPadOfScale = 6e-5f;
// A thread of grains far longer than wide: its columns along it would overflow the indices.
constexpr float kMostColumnsAlong = 1 << 24;

// The square of columns a sphere projected across the light covers (x, y its centre across, w
// its padded radius), found as a ray's column is (LightColumnsView::blocks_ray), so that an
// origin within its padded reach lies in one of them.
struct ColumnSquare {
  int u0, u1, v0, v1;
};

GRANRAY_HD_INLINE ColumnSquare column_square(Vec4 projected, float u0, float v0, float inv_cell) {
  return {LightColumnsView::column_of(projected.x - projected.w, u0, inv_cell),
          LightColumnsView::column_of(projected.x + projected.w, u0, inv_cell),
          LightColumnsView::column_of(projected.y - projected.w, v0, inv_cell),
          LightColumnsView::column_of(projected.y + projected.w, v0, inv_cell)};
}

GRANRAY_HD_INLINE std::uint32_t square_columns(const ColumnSquare& b) {
  return static_cast<std::uint32_t>(b.u1 - b.u0 + 1) * static_cast<std::uint32_t>(b.v1 - b.v0 + 1);
}

// The spheres' reach across the light, after projection.
struct SpanAcross {
  float u_lo, v_lo, u_hi, v_hi;
};

// The decisions a build of the columns takes, in its order; each false ends the build with no
// columns (the rays walk).
class ColumnLayout {
 public:
  // Whether `rays` shadow rays over `references` repay a build of at least
  // `least_rays_per_reference` rays a reference, within the references the columns may take.
  static bool repays(std::uint64_t references, std::uint64_t rays,
                     std::uint64_t least_rays_per_reference);

  // The frame along `dir` from the references' largest coordinate (with its radius) and largest
  // radius: false where the rounding pad would outgrow a grid cell of `cell_size`.
  bool start(Vec3 dir, float largest, float radius, float cell_size);

  // The columns' corner and width over the `spheres` kept (each once) whose projections reach
  // `span`: a grid cell's width, wider when the picture across the light holds more columns than
  // a few per sphere (a dilute gas). False where the columns along would overflow the indices.
  bool place(const SpanAcross& span, std::uint64_t spheres);

  // With the squares' extent (columns across and along, entries in all): false where the
  // columns would take more memory than they may.
  bool fits(int columns_u, int columns_v, std::uint64_t entries);

  float pad() const { return pad_; }
  // The view so far (no buffers yet).
  const LightColumnsView& view() const { return view_; }

 private:
  LightColumnsView view_{};
  float pad_ = 0.0f;
  float cell_ = 0.0f;
  double most_columns_ = 0.0;
  std::uint64_t spheres_ = 0;
};

// What a build was last asked for: the bands of one frame share its columns (built or not).
class ColumnsAsked {
 public:
  // True when asked before for this grid generation (ParticleGrid::generation) and direction:
  // the columns stand. Otherwise remembers this question.
  bool again(std::uint64_t grid_generation, Vec3 dir);

 private:
  bool asked_ = false;
  std::uint64_t grid_generation_ = 0;
  Vec3 dir_{};
};

class LightColumns {
 public:
  // Columns along the unit direction `dir` over the grid's `references`, for up to `rays` shadow
  // rays. None (view().entries null: the rays walk) when there are no references, too few rays
  // per reference to repay the build, more references than fit the memory the columns may take,
  // or coordinates so far from the origin that the rounding pad outgrows a column. Kept as they
  // are (built or not) when asked again for the same `grid_generation` and direction.
  void build(const GridView& grid, std::uint64_t references, Vec3 dir, std::uint64_t rays,
             std::uint64_t grid_generation);
  const LightColumnsView& view() const { return view_; }

 private:
  ColumnsAsked asked_;
  LightColumnsView view_{};
  std::vector<std::uint32_t> offsets_;
  std::vector<float> depth_;
  std::vector<std::uint32_t> entries_;
};

}  // namespace granray::detail
