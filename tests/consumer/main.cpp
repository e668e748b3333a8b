// A program outside the granray tree: renders a few grains through the installed package.
#include <granray/renderer.h>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<granray::Vec4> grains = {{0, 0, 0, 1}, {2, 0, 0, 0.5f}, {0, 2, 1, 0.75f}};
  granray::ParticleView view;
  view.xyzr = grains.data();
  view.count = grains.size();
  granray::RenderSettings settings;
  settings.width = 64;
  settings.height = 48;
  granray::Image image;
  granray::Renderer renderer(granray::BackendKind::cpu);
  renderer.render(view, settings, image, {granray::RenderMethod::grid, true});
  std::size_t covered = 0;
  for (const auto id : image.hit_id) covered += id != ~std::uint64_t{0};
  std::printf("consumer rendered %dx%d, %zu pixels show grains\n", image.width, image.height,
              covered);
  return covered > 0 ? 0 : 1;
}
