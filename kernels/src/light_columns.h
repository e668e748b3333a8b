// Host: the columns along the light that the CPU's shadow rays read (kernels/light_columns.h),
// built once a frame from the grid's references.
#pragma once

#include <cstdint>
#include <vector>

#include "granray/kernels/light_columns.h"

namespace granray::detail {

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
