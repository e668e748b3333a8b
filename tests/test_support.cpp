#include "test_support.h"

#include "granray/camera.h"
#include "granray/errors.h"
#include "granray/insitu/config.h"
#include "wall_scenes.h"

#include <sys/wait.h>
#include <unistd.h>
#include <fstream>

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace granray::test {

std::uint64_t fresh_seed() {
  std::uint64_t seed;
  if (const char* fixed = std::getenv("GRANRAY_TEST_SEED")) {
    seed = std::strtoull(fixed, nullptr, 10);
  } else {
    std::random_device device;
    seed = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  std::printf("[ seed     ] GRANRAY_TEST_SEED=%llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

float uniform(Rng& rng, float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(rng);
}

std::vector<Vec4> dense_bed(Rng& rng, std::size_t n, float r_min, float r_max) {
  const auto side = static_cast<std::size_t>(std::ceil(std::cbrt(static_cast<double>(n))));
  const float spacing = 1.9f * r_max;
  std::vector<Vec4> spheres;
  spheres.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t x = k % side, y = (k / side) % side, z = k / (side * side);
    const float jitter = 0.2f * r_max;
    spheres.push_back({x * spacing + uniform(rng, -jitter, jitter) + 0.37f,
                       y * spacing + uniform(rng, -jitter, jitter) - 1.21f,
                       z * spacing + uniform(rng, -jitter, jitter) + 0.05f,
                       uniform(rng, r_min, r_max)});
  }
  return spheres;
}

std::vector<Vec4> random_scene(Rng& rng, const SceneCase& c, float box) {
  return c.dilute ? dilute_gas(rng, c.n, c.r_min, c.r_max, box)
                  : dense_bed(rng, c.n, c.r_min, c.r_max);
}

Vec3 random_unit(Rng& rng) {
  for (;;) {
    const Vec3 v{uniform(rng, -1.0f, 1.0f), uniform(rng, -1.0f, 1.0f), uniform(rng, -1.0f, 1.0f)};
    const float l2 = dot(v, v);
    if (l2 > 1e-4f && l2 <= 1.0f) return v * (1.0f / sqrtf(l2));
  }
}

std::vector<Vec4> dilute_gas(Rng& rng, std::size_t n, float r_min, float r_max, float box) {
  std::vector<Vec4> spheres;
  spheres.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    spheres.push_back({uniform(rng, -box, box), uniform(rng, -box, box),
                       uniform(rng, -0.5f * box, 1.5f * box), uniform(rng, r_min, r_max)});
  }
  return spheres;
}

RenderSettings random_settings(Rng& rng, bool orthographic) {
  RenderSettings s;
  s.width = std::uniform_int_distribution<int>(64, 200)(rng);
  s.height = std::uniform_int_distribution<int>(48, 160)(rng);
  s.camera.projection = orthographic ? Projection::orthographic : Projection::perspective;
  s.camera.fov = uniform(rng, 15.0f, 80.0f);
  s.camera.theta = uniform(rng, 5.0f, 175.0f);
  s.camera.phi = uniform(rng, -180.0f, 180.0f);
  s.camera.zoom = uniform(rng, 0.7f, 2.5f);
  s.shading.ambient = uniform(rng, 0.0f, 0.4f);
  s.shading.diffuse = uniform(rng, 0.3f, 1.0f);
  s.shading.light = {uniform(rng, -1.0f, 1.0f), uniform(rng, -1.0f, 1.0f), 1.0f};
  s.shading.particle_color = {uniform(rng, 0.2f, 1.0f), uniform(rng, 0.2f, 1.0f),
                              uniform(rng, 0.2f, 1.0f)};
  return s;
}

RenderSettings small_random_settings(Rng& rng, bool orthographic) {
  RenderSettings s = random_settings(rng, orthographic);
  s.width = std::min(s.width, 120);
  s.height = std::min(s.height, 90);
  return s;
}

CameraFrame random_camera_frame(Rng& rng, bool orthographic, bool window) {
  RenderSettings s = random_settings(rng, orthographic);
  s.width = std::uniform_int_distribution<int>(40, 160)(rng);
  s.height = std::uniform_int_distribution<int>(30, 120)(rng);
  if (window && rng() % 2 == 0) {
    const int x0 = std::uniform_int_distribution<int>(0, s.width - 2)(rng);
    const int y0 = std::uniform_int_distribution<int>(0, s.height - 2)(rng);
    s.region = {x0, y0, std::uniform_int_distribution<int>(x0 + 1, s.width)(rng),
                std::uniform_int_distribution<int>(y0 + 1, s.height)(rng)};
  }
  s.camera.position = Vec3{uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5)};
  s.camera.target = Vec3{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)};
  s.camera.ortho_height = uniform(rng, 1.0f, 8.0f);
  const SceneBounds box{{-1, -1, -1}, {1, 1, 1}, 1, 0, 1.0, 0.5f};
  return resolve_camera(s, box).frame;
}

void random_inside_shading(Rng& rng, ShadingSettings& s) {
  const auto random_color = [&] {
    return Vec3{uniform(rng, 0.0f, 1.0f), uniform(rng, 0.0f, 1.0f), uniform(rng, 0.0f, 1.0f)};
  };
  const bool outline = rng() % 2 == 0, cue = rng() % 2 == 0;
  s.outline = outline ? uniform(rng, 0.05f, 0.6f) : 0.0f;
  s.outline_color = random_color();
  s.depth_cue = cue ? uniform(rng, 0.2f, 1.0f) : 0.0f;
  if (rng() % 2 == 0) s.depth_cue_color = random_color();
}

ParticleView view_of(const std::vector<Vec4>& spheres, const std::vector<std::uint64_t>* ids) {
  ParticleView v;
  v.xyzr = spheres.data();
  v.count = spheres.size();
  v.ids = ids ? ids->data() : nullptr;
  return v;
}

ImageDiff compare_images(const Image& a, const Image& b) {
  ImageDiff d;
  d.pixels = static_cast<std::size_t>(a.width) * a.height;
  const bool hits = !a.hit_id.empty() && !b.hit_id.empty();
  for (std::size_t p = 0; p < d.pixels; ++p) {
    int level = 0;
    for (int c = 0; c < 3; ++c) {
      level = std::max(level, std::abs(int(a.rgb[3 * p + c]) - int(b.rgb[3 * p + c])));
    }
    const bool same_hit = !hits || a.hit_id[p] == b.hit_id[p];
    d.differing_rgb += level > 0;
    d.differing_hit += !same_hit;
    d.rgb_differs_same_hit += (level > 0 && same_hit);
    d.max_level = std::max(d.max_level, level);
  }
  return d;
}

CommandResult run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::string output;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) output += buf;
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, output};
}

namespace {

// One fresh directory per test process. A directory named by the pid alone outlived its process,
// and a later process given the same pid (CI runs the suite twice) found its files: a stale
// step_1.png once turned a test's unquoted 'step_*.png' into a name without a star. Removed when
// the process that made it exits (a forked child that returns does not remove it).
class ProcessTempDir {
 public:
  ProcessTempDir() : owner_(::getpid()) {
    std::random_device device;
    char nonce[20];
    std::snprintf(nonce, sizeof nonce, "%08x%08x", device(), device());
    path_ = std::filesystem::temp_directory_path() /
            ("granray-test-" + std::to_string(owner_) + "-" + nonce);
    std::filesystem::create_directories(path_);
  }
  ~ProcessTempDir() {
    if (::getpid() != owner_) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ProcessTempDir(const ProcessTempDir&) = delete;
  ProcessTempDir& operator=(const ProcessTempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  pid_t owner_;
  std::filesystem::path path_;
};

}  // namespace

RenderSettings sized_random_settings(Rng& rng, bool orthographic, int width, int height) {
  RenderSettings s = random_settings(rng, orthographic);
  s.width = width;
  s.height = height;
  return s;
}

RoundScene round_scene(Rng& rng, std::vector<Vec4> spheres, int round, int width, int height) {
  RoundScene r;
  r.box = box_of(spheres);
  r.spheres = std::move(spheres);
  r.settings = sized_random_settings(rng, round % 2 == 1, width, height);
  return r;
}

ReferenceScene reference_scene(Rng& rng, int round) {
  ReferenceScene scene;
  scene.spheres =
      round < 2 ? dilute_gas(rng, 60, 0.3f, 1.2f, 4.0f) : dense_bed(rng, 150, 0.3f, 0.5f);
  scene.settings = random_settings(rng, round % 2 == 1);
  scene.settings.width = std::min(scene.settings.width, 100);
  scene.settings.height = std::min(scene.settings.height, 80);
  return scene;
}

RenderSettings close_lit_view(Rng& rng, int width, int height) {
  RenderSettings s;
  s.width = width;
  s.height = height;
  s.camera.zoom = uniform(rng, 1.5f, 3.0f);
  s.camera.theta = uniform(rng, 30.0f, 80.0f);
  s.camera.phi = uniform(rng, -180.0f, 180.0f);
  s.shading.shadows = true;
  s.shading.ao_samples = 4;
  return s;
}

void expect_config_error(const std::string& toml, std::initializer_list<std::string> fragments,
                         const std::vector<std::string>& overrides) {
  try {
    parse_insitu_config(toml, "sim.toml", overrides);
    ADD_FAILURE() << "no error for:\n" << toml;
  } catch (const ConfigError& e) {
    for (const auto& f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  }
}

std::string shared_data(const std::string& relative) {
  const std::string path = std::string(GRANRAY_SHARED_DATA_DIR) + "/" + relative;
  return std::filesystem::exists(path) ? path : std::string();
}

std::string temp_path(const std::string& name) {
  static const ProcessTempDir dir;
  return (dir.path() / name).string();
}

std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::vector<float> kinds_of(Rng& rng, std::size_t n) {
  std::vector<float> kinds(n);
  for (float& k : kinds) k = float(std::uniform_int_distribution<int>(0, 2)(rng));
  return kinds;
}

std::vector<MaterialSettings> steel_and_glass(Rng& rng) {
  MaterialSettings metal, glass;
  metal.name = "steel";
  metal.type = MaterialType::metal;
  metal.reflectance = uniform(rng, 0.4f, 1.0f);
  metal.roughness = rng() % 2 == 0 ? 0.0f : uniform(rng, 0.1f, 0.6f);
  metal.grains = SelectRange{1.0f, 1.0f};
  glass.name = "glass";
  glass.type = MaterialType::glass;
  glass.ior = uniform(rng, 1.3f, 1.8f);
  glass.grains = SelectRange{2.0f, 2.0f};
  return {metal, glass};
}

}  // namespace granray::test
