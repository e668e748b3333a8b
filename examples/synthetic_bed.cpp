// Writes a synthetic sediment bed as "x y z r" text: polydisperse grains settled on a jittered
// lattice under a sloping free surface, for the demo and quick tries of granray-render.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 50000;
  const unsigned seed = argc > 2 ? static_cast<unsigned>(std::atol(argv[2])) : 2026u;
  if (n <= 0) {
    std::fprintf(stderr, "usage: granray-synthetic-bed [PARTICLES] [SEED] > bed.xyzr\n");
    return 2;
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float r_max = 1.0e-3f, spacing = 1.95f * r_max;
  // A flat bed, four times wider than deep, with a rippled surface.
  const long side = static_cast<long>(std::ceil(std::cbrt(16.0 * n)));
  std::printf("# granray synthetic bed: %ld grains, x y z radius (m)\n", n);
  for (long k = 0; k < n; ++k) {
    const long i = k % side, j = (k / side) % side, layer = k / (side * side);
    const float x = i * spacing, y = j * spacing;
    const float ripple = 2.0f * spacing * std::sin(6.2832f * 3.0f * i / side);
    const float z = r_max + layer * 0.9f * spacing + (layer > 2 ? ripple : 0.0f);
    std::printf("%.6g %.6g %.6g %.6g\n", x + 0.1f * r_max * (unit(rng) - 0.5f),
                y + 0.1f * r_max * (unit(rng) - 0.5f), z, r_max * (0.6f + 0.4f * unit(rng)));
  }
  return 0;
}
