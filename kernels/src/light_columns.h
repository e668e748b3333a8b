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
  // or coordinates so far from the origin that the rounding pad outgrows a column.
  void build(const GridView& grid, std::uint64_t references, Vec3 dir, std::uint64_t rays);
  const LightColumnsView& view() const { return view_; }

 private:
  LightColumnsView view_{};
  std::vector<std::uint32_t> offsets_;
  std::vector<float> depth_;
  std::vector<std::uint32_t> entries_;
};

}  // namespace granray::detail
