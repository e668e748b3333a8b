// Host: the columns along the light that the CPU's shadow rays read (kernels/light_columns.h),
// built once a frame from the grid's references.
#pragma once

#include <cstdint>
#include <vector>

#include "granray/kernels/light_columns.h"

namespace granray::detail {

// The limits of a frame's columns, on either backend (this build and the backend's own,
// backend/light_column_lists.inl).
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

class LightColumns {
 public:
  // Columns along the unit direction `dir` over the grid's `references`, for up to `rays` shadow
  // rays. None (view().entries null: the rays walk) when there are no references, too few rays
  // per reference to repay the build, more references than fit the memory the columns may take,
  // or coordinates so far from the origin that the rounding pad outgrows a column. Kept as they
  // are (built or not) when asked again for the same `grid_generation` (ParticleGrid::
  // generation) and direction: the bands of one frame share them.
  void build(const GridView& grid, std::uint64_t references, Vec3 dir, std::uint64_t rays,
             std::uint64_t grid_generation);
  const LightColumnsView& view() const { return view_; }

 private:
  bool kept(std::uint64_t grid_generation, Vec3 dir) const {
    return asked_ && grid_generation == grid_generation_ && dir.x == dir_.x && dir.y == dir_.y &&
           dir.z == dir_.z;
  }

  bool asked_ = false;
  std::uint64_t grid_generation_ = 0;
  Vec3 dir_{};
  LightColumnsView view_{};
  std::vector<std::uint32_t> offsets_;
  std::vector<float> depth_;
  std::vector<std::uint32_t> entries_;
};

}  // namespace granray::detail
