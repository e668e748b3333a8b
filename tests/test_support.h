// Shared helpers: fresh random scenes each run (seed printed, GRANRAY_TEST_SEED reproduces),
// image comparison, and the backend this test binary exercises.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "granray/errors.h"
#include "granray/image.h"
#include "granray/renderer.h"

namespace granray::test {

// The backend of this binary: the same test sources are built once per backend.
inline BackendKind test_backend() {
#if defined(GRANRAY_TEST_CUDA)
  return BackendKind::cuda;
#else
  return BackendKind::cpu;
#endif
}

#define GRANRAY_SKIP_WITHOUT_BACKEND()                                                 \
  do {                                                                                 \
    if (::granray::test::test_backend() == ::granray::BackendKind::cuda &&             \
        !::granray::cuda_device_available()) {                                         \
      GTEST_SKIP() << "no CUDA device: the CUDA backend is tested on the GPU machine"; \
    }                                                                                  \
  } while (0)

// The fixture of the tests that run on each backend (GRANRAY_BACKEND_TESTS): skips where this
// binary's backend has no device.
class OnEachBackend : public ::testing::Test {
 protected:
  void SetUp() override { GRANRAY_SKIP_WITHOUT_BACKEND(); }
};

// A seed that differs every run unless GRANRAY_TEST_SEED is set; logged for reproduction.
std::uint64_t fresh_seed();

using Rng = std::mt19937_64;

float uniform(Rng& rng, float lo, float hi);
// The same float, bit for bit (a hit's distance found two ways).
inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
// A direction drawn uniformly over the sphere.
Vec3 random_unit(Rng& rng);

// Grains on a jittered lattice, touching or slightly overlapping like a settled bed.
std::vector<Vec4> dense_bed(Rng& rng, std::size_t n, float r_min, float r_max);
// Grains scattered through a box far larger than they are.
std::vector<Vec4> dilute_gas(Rng& rng, std::size_t n, float r_min, float r_max, float box);

// One kind of random scene the exactness tests draw afresh: a dense bed or a dilute gas of n
// grains with radii in [r_min, r_max].
struct SceneCase {
  const char* label;
  std::size_t n;
  float r_min, r_max;
  bool dilute;
};
// The grains of one such scene (a gas spread over a box of side `box`).
std::vector<Vec4> random_scene(Rng& rng, const SceneCase& c, float box);

RenderSettings random_settings(Rng& rng, bool orthographic);
// The same at most 120 x 90 pixels: lit frames' brute-force references cost a loop over every
// sphere per secondary ray.
RenderSettings small_random_settings(Rng& rng, bool orthographic);

// random_settings at width x height pixels.
RenderSettings sized_random_settings(Rng& rng, bool orthographic, int width, int height);

// Round r of a test: its grains, their box, and sized random settings (orthographic in odd
// rounds).
struct RoundScene {
  std::vector<Vec4> spheres;
  SceneBounds box;
  RenderSettings settings;
};
RoundScene round_scene(Rng& rng, std::vector<Vec4> spheres, int round, int width, int height);

// A scene the double-precision references check pixel by pixel, for round 0, 1, 2, ...: a
// dilute gas of 60 grains in rounds 0 and 1, a dense bed of 150 after; perspective in even
// rounds, orthographic in odd; random settings of at most 100 x 80 pixels.
struct ReferenceScene {
  std::vector<Vec4> spheres;
  RenderSettings settings;
};
ReferenceScene reference_scene(Rng& rng, int round);

// A random close view into a bed (zoom 1.5-3, where grains shadow each other; theta 30-80, any
// phi) with shadows and 4 occlusion rays, width x height pixels.
RenderSettings close_lit_view(Rng& rng, int width, int height);
// A resolved camera of random settings, size (40..160 x 30..120 pixels), eye and target around a
// unit box; with `window`, half the time a random window of the image (contract 3 region).
CameraFrame random_camera_frame(Rng& rng, bool orthographic, bool window = false);
// contract 2d outlines and depth cue, each on half the time with random widths and colours.
void random_inside_shading(Rng& rng, ShadingSettings& s);

// A kind per grain, 0, 1 or 2 (matte, steel, glass with steel_and_glass's materials).
std::vector<float> kinds_of(Rng& rng, std::size_t n);
// contract 2e: a random steel (kind 1, sometimes rough) and a random glass (kind 2).
std::vector<MaterialSettings> steel_and_glass(Rng& rng);

// A host view of these spheres, with these global ids when given.
ParticleView view_of(const std::vector<Vec4>& spheres,
                     const std::vector<std::uint64_t>* ids = nullptr);

struct ImageDiff {
  std::size_t pixels = 0;
  std::size_t differing_rgb = 0;
  std::size_t differing_hit = 0;         // pixels whose visible particle differs
  std::size_t rgb_differs_same_hit = 0;  // same particle, different colour
  int max_level = 0;
};
ImageDiff compare_images(const Image& a, const Image& b);

std::string temp_path(const std::string& name);
// temp_path(name) holding `text`.
std::string write_text(const std::string& name, const std::string& text);

// Expects `read` to throw an error of type E whose message contains each fragment.
template <class E = InputError, class F>
void expect_error_saying(F&& read, std::initializer_list<std::string> fragments) {
  try {
    read();
    ADD_FAILURE() << "no error";
  } catch (const E& e) {
    for (const auto& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}
template <class F>
void expect_input_error(F&& read, std::initializer_list<std::string> fragments) {
  expect_error_saying<InputError>(std::forward<F>(read), fragments);
}

// The [insitu] configuration `toml` (file "sim.toml") must be refused with a ConfigError whose
// message holds every fragment (the key, "sim.toml:LINE", what is wrong).
void expect_config_error(const std::string& toml, std::initializer_list<std::string> fragments,
                         const std::vector<std::string>& overrides = {});

// The skeleton of every "matches brute force" test: renders `view` by brute force (with hits),
// then by each fast method, and hands `check(method, image, stats, brute)` each result (with
// the brute-force frame's stats too where `check` takes a fifth argument).
template <class Check>
void against_brute_force(Renderer& renderer, const ParticleView& view,
                         const RenderSettings& settings, Check&& check) {
  Image brute;
  RenderOptions options{RenderMethod::brute_force, true};
  const FrameStats brute_stats = renderer.render(view, settings, brute, options);
  for (const RenderMethod method : {RenderMethod::grid, RenderMethod::tiles}) {
    Image image;
    options.method = method;
    const FrameStats stats = renderer.render(view, settings, image, options);
    if constexpr (std::is_invocable_v<Check, RenderMethod, const Image&, const FrameStats&,
                                      const Image&, const FrameStats&>) {
      check(method, image, stats, brute, brute_stats);
    } else {
      check(method, image, stats, brute);
    }
  }
}

// ../shared/data/<relative> when the project has that folder beside it, else "" (the test then
// skips: a fresh clone lacks it).
std::string shared_data(const std::string& relative);
// The LIGGGHTS pour's packing there: 20,000 grains in real contact.
inline constexpr const char* kLiggghtsPacking = "liggghts/pour-20k.step10000.liggghts";

#if defined(GRANRAY_MPIEXEC)
// "mpiexec -np RANKS --oversubscribe" with what it needs to start here (CI machines run as root),
// one OpenMP thread per rank.
inline std::string mpirun_prefix(int ranks) {
  return std::string(
             "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
             "OMP_NUM_THREADS=1 ") +
         GRANRAY_MPIEXEC + " -np " + std::to_string(ranks) + " --oversubscribe ";
}
#endif

struct CommandResult {
  int status;          // exit status, -1 when killed by a signal
  std::string output;  // standard output and error together
};
CommandResult run_command(const std::string& command);

}  // namespace granray::test
