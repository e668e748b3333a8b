#include "contact_pairs.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace granray::bench {

ContactPairs near_pairs(const std::vector<Vec4>& grains, float slack) {
  ContactPairs pairs;
  float largest = 0.0f;
  for (const Vec4& g : grains) largest = std::max(largest, g.w);
  if (grains.empty() || !(largest > 0.0f)) return pairs;
  const float cell = 2.0f * largest * (1.0f + slack);
  const auto key = [](std::int64_t x, std::int64_t y, std::int64_t z) {
    return (static_cast<std::uint64_t>(x & 0x1fffff) << 42) |
           (static_cast<std::uint64_t>(y & 0x1fffff) << 21) |
           static_cast<std::uint64_t>(z & 0x1fffff);
  };
  const auto coord = [cell](float v) { return static_cast<std::int64_t>(std::floor(v / cell)); };
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> cells;
  cells.reserve(grains.size());
  for (std::uint32_t i = 0; i < grains.size(); ++i) {
    cells[key(coord(grains[i].x), coord(grains[i].y), coord(grains[i].z))].push_back(i);
  }
  for (std::uint32_t i = 0; i < grains.size(); ++i) {
    const Vec4 a = grains[i];
    const std::int64_t cx = coord(a.x), cy = coord(a.y), cz = coord(a.z);
    for (std::int64_t z = cz - 1; z <= cz + 1; ++z)
      for (std::int64_t y = cy - 1; y <= cy + 1; ++y)
        for (std::int64_t x = cx - 1; x <= cx + 1; ++x) {
          const auto found = cells.find(key(x, y, z));
          if (found == cells.end()) continue;
          for (const std::uint32_t j : found->second) {
            if (j <= i) continue;
            const Vec4 b = grains[j];
            const float reach = (a.w + b.w) * (1.0f + slack);
            const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
            const float d = std::sqrt(dx * dx + dy * dy + dz * dz);
            if (!(d < reach)) continue;
            pairs.first.push_back(i);
            pairs.second.push_back(j);
            // Closer pairs carry more, squared: a few strong chains over many weak contacts.
            const float closeness = (reach - d) / reach;
            pairs.value.push_back(closeness * closeness);
          }
        }
  }
  return pairs;
}

}  // namespace granray::bench
