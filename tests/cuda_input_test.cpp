// CUDA backend only: particles given in device memory render in place, exactly as the same
// particles given from the host.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "granray/errors.h"
#include "test_support.h"

namespace granray::test {
namespace {

TEST(CudaInput, DeviceResidentParticlesRenderLikeHostOnes) {
  GRANRAY_SKIP_WITHOUT_BACKEND();
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 20000, 0.3f, 0.5f);
  Vec4* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, spheres.size() * sizeof(Vec4)), cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(device, spheres.data(), spheres.size() * sizeof(Vec4), cudaMemcpyHostToDevice),
      cudaSuccess);
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);

  ParticleView on_host;
  on_host.xyzr = spheres.data();
  on_host.count = spheres.size();
  ParticleView on_device = on_host;
  on_device.xyzr = device;
  on_device.space = MemorySpace::device;
  on_device.cuda_stream = stream;

  const RenderSettings s = random_settings(rng, false);
  Renderer renderer(BackendKind::cuda);
  Image a, b;
  renderer.render(on_host, s, a, {RenderMethod::grid, true});
  renderer.render(on_device, s, b, {RenderMethod::grid, true});
  EXPECT_EQ(a.rgb, b.rgb);
  EXPECT_EQ(a.hit_id, b.hit_id);

  // The CPU backend cannot read device memory: a clear error, not a crash.
  Image c;
  EXPECT_THROW(Renderer(BackendKind::cpu).render(on_device, s, c), DeviceError);
  cudaStreamDestroy(stream);
  cudaFree(device);
}

}  // namespace
}  // namespace granray::test
