// GPU only: InsituRenderer::render on device-resident particles copies nothing but the image
// (and a few reduction results of a few bytes) to the host, recorded with CUPTI's activity API,
// which sees every memcpy the CUDA runtime and Thrust issue (transfer_trace.h).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "granray/adapters/buffers.h"
#include "granray/insitu/insitu_renderer.h"
#include "test_support.h"
#include "transfer_trace.h"

namespace granray::test {
namespace {

// Every memcpy issued while `body` runs.
template <class F>
std::vector<Copy> record_copies(F&& body) {
  start_recording_copies();
  body();
  return stop_recording_copies();
}

TEST(ZeroCopy, RenderCopiesOnlyTheImageToTheHost) {
  GRANRAY_SKIP_WITHOUT_BACKEND();
  Rng rng(fresh_seed());
  const std::size_t n = 1000000;
  const auto grains = dense_bed(rng, n, 0.4f, 0.5f);
  std::vector<float> speed(n);
  for (auto& s : speed) s = uniform(rng, 0.0f, 2.0f);
  Vec4* d_grains = nullptr;
  float* d_speed = nullptr;
  ASSERT_EQ(cudaMalloc(&d_grains, n * sizeof(Vec4)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_speed, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_grains, grains.data(), n * sizeof(Vec4), cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_speed, speed.data(), n * sizeof(float), cudaMemcpyHostToDevice),
            cudaSuccess);

  InsituRenderer vis(parse_insitu_config("[insitu]\nevery = 1\nwidth = 640\nheight = 360\n"
                                         "backend = \"cuda\"\n[insitu.color]\nfield = \"speed\"\n"
                                         "range = \"auto\"\n",
                                         "zero-copy.toml"),
                     {"speed"});
  const SimulationParticles particles =
      adapters::device_particles(d_grains, n).with_field("speed", d_speed);
  ASSERT_TRUE(vis.render(0, 0.0, particles).rendered) << vis.last_frame().error;  // warm-up

  const std::uint64_t image_bytes = 640u * 360u * 3u;
  const auto seen = record_copies([&] { ASSERT_TRUE(vis.render(1, 0.1, particles).rendered); });
  std::uint64_t image_copies = 0, other_to_host = 0, to_device = 0;
  for (const Copy& c : seen) {
    if (c.kind == CopyKind::to_host) {
      if (c.bytes == image_bytes) {
        ++image_copies;
      } else {
        EXPECT_LE(c.bytes, 64u) << "a device-to-host copy larger than a reduction result";
        other_to_host += c.bytes;
      }
    } else if (c.kind == CopyKind::to_device) {
      to_device += c.bytes;
    }
  }
  EXPECT_EQ(image_copies, 1u);
  EXPECT_LE(other_to_host, 1024u);
  EXPECT_LE(to_device, 16u * 1024u) << "particles were uploaded again";
  std::printf(
      "[ copies   ] %zu memcpys: image %llu B once, %llu B of reduction results to the "
      "host, %llu B (colormap) to the device\n",
      seen.size(), static_cast<unsigned long long>(image_bytes),
      static_cast<unsigned long long>(other_to_host), static_cast<unsigned long long>(to_device));

  // The recorder does see a particle-sized copy: the assertions above can fail.
  std::vector<Vec4> back(n);
  const auto control = record_copies(
      [&] { cudaMemcpy(back.data(), d_grains, n * sizeof(Vec4), cudaMemcpyDeviceToHost); });
  bool seen_control = false;
  for (const Copy& c : control) {
    seen_control |= c.kind == CopyKind::to_host && c.bytes == n * sizeof(Vec4);
  }
  EXPECT_TRUE(seen_control);
  cudaFree(d_grains);
  cudaFree(d_speed);
}

}  // namespace
}  // namespace granray::test
