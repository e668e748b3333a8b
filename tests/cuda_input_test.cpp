// CUDA backend only: particles given in device memory render in place, exactly as the same
// particles given from the host.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "clump_reference.h"
#include "contact_reference.h"
#include "granray/adapters/buffers.h"
#include "granray/errors.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/io/image_file.h"
#include "granray/rank_stages.h"
#include "granray/walls.h"
#include "test_support.h"

namespace granray::test {
namespace {

// Device memory in which a test plays the simulation; freed however the test ends.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) {
    if (cudaMalloc(&data_, n * sizeof(T)) != cudaSuccess) data_ = nullptr;
  }
  DeviceArray(DeviceArray&& o) noexcept : data_(o.data_) { o.data_ = nullptr; }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(data_); }
  T* get() const { return data_; }
  bool upload(const std::vector<T>& values) const {
    return cudaMemcpy(data_, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice) ==
           cudaSuccess;
  }

 private:
  T* data_ = nullptr;
};

// The clump gather on the GPU (issue #68): owners' positions and orientations in device memory, as
// DEM-Engine writes them, gathered there into spheres within float rounding of the reference, and
// rendered in place like the same spheres from the host.
TEST(CudaInput, ClumpsGatheredOnTheDeviceFollowTheReference) {
  GRANRAY_SKIP_WITHOUT_BACKEND();
  Rng rng(fresh_seed());
  const RandomClumps c = random_clumps(rng, 20000);
  DeviceArray<float> positions(c.positions.size()), values(c.values.size());
  DeviceArray<Vec4> orientations(c.orientations.size());
  ASSERT_TRUE(positions.upload(c.positions) && values.upload(c.values) &&
              orientations.upload(c.orientations));
  ClumpGather gather(MemorySpace::device, c.templates, c.template_of);
  const ParticleView view = gather.gather({positions.get(), orientations.get(), values.get()});
  ASSERT_EQ(view.space, MemorySpace::device);
  std::vector<Vec4> spheres(view.count);
  std::vector<float> sphere_values(view.count);
  ASSERT_EQ(
      cudaMemcpy(spheres.data(), view.xyzr, view.count * sizeof(Vec4), cudaMemcpyDeviceToHost),
      cudaSuccess);
  ASSERT_EQ(cudaMemcpy(sphere_values.data(), view.scalar, view.count * sizeof(float),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  expect_clump_spheres(c, spheres, &sphere_values);
  RenderSettings s = small_random_settings(rng, false);
  s.color = ColorMapping{1, true, 0.0f, 1.0f};
  Renderer renderer(BackendKind::cuda);
  Image in_place, from_host;
  renderer.render(view, s, in_place);
  ParticleView host = view_of(spheres);
  host.scalar = sphere_values.data();
  renderer.render(host, s, from_host);
  EXPECT_EQ(in_place.rgb, from_host.rgb);
}

// contract 2g under mpirun: a rank's pairs in device memory (by index into grains there, or
// given whole, as the example DEM passes them) reach the gather across ranks given whole, made
// whole on the device.
TEST(CudaInput, DeviceResidentPairsGoToTheHostGivenWhole) {
  GRANRAY_SKIP_WITHOUT_BACKEND();
  Rng rng(fresh_seed());
  Renderer renderer(BackendKind::cuda);
  const std::vector<Vec4> grains = dense_bed(rng, 4000, 0.3f, 0.5f);
  const std::vector<RefContact> contacts = true_contacts(rng, grains, 3.0f);
  std::vector<std::uint32_t> first, second;
  std::vector<float> value;
  for (const RefContact& c : contacts) {
    first.push_back(c.first);
    second.push_back(c.second);
    value.push_back(float(c.value));
  }
  first.push_back(std::uint32_t(grains.size()) + 3u);  // a grain past the frame's
  second.push_back(0u);
  value.push_back(1.0f);
  std::vector<std::uint64_t> ids(grains.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = 1000u + 2u * std::uint64_t(i);
  std::shuffle(ids.begin(), ids.end(), rng);
  DeviceArray<Vec4> d_grains(grains.size());
  DeviceArray<std::uint64_t> d_ids(ids.size());
  DeviceArray<std::uint32_t> d_first(first.size()), d_second(second.size());
  DeviceArray<float> d_value(value.size());
  ASSERT_TRUE(d_grains.upload(grains) && d_ids.upload(ids) && d_first.upload(first) &&
              d_second.upload(second) && d_value.upload(value));
  ParticleView view;
  view.xyzr = d_grains.get();
  view.count = grains.size();
  view.ids = d_ids.get();
  view.space = MemorySpace::device;
  view.contacts = {d_first.get(), d_second.get(), d_value.get(), value.size()};
  HostPairs got;
  rank_stages(renderer).copy_contacts_to_host(view, got);
  expect_pairs_given_whole(got, grains, ids, 0u, first, second, value);

  DeviceArray<Vec4> d_spheres(got.spheres.size());
  DeviceArray<std::uint64_t> d_pair_ids(got.ids.size());
  ASSERT_TRUE(d_spheres.upload(got.spheres) && d_pair_ids.upload(got.ids));
  ParticleView whole;
  whole.space = MemorySpace::device;
  whole.contacts = {nullptr,         nullptr,          d_value.get(), value.size(),
                    d_spheres.get(), d_pair_ids.get(), false};
  HostPairs again;
  rank_stages(renderer).copy_contacts_to_host(whole, again);
  EXPECT_EQ(std::memcmp(again.spheres.data(), got.spheres.data(), got.spheres.size() * 16), 0);
  EXPECT_EQ(again.ids, got.ids);
  EXPECT_EQ(again.value, value);
}

TEST(CudaInput, DeviceResidentParticlesRenderLikeHostOnes) {
  GRANRAY_SKIP_WITHOUT_BACKEND();
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 20000, 0.3f, 0.5f);
  const DeviceArray<Vec4> device(spheres.size());
  ASSERT_NE(device.get(), nullptr);
  ASSERT_TRUE(device.upload(spheres));
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);

  ParticleView on_host;
  on_host.xyzr = spheres.data();
  on_host.count = spheres.size();
  ParticleView on_device = on_host;
  on_device.xyzr = device.get();
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
}

// contract 2b moving walls: the simulation's own triangles in device memory are read in place and
// render like the same triangles from the host, moved frame after frame; the CPU backend refuses
// them with a clear error.
TEST(CudaInput, DeviceResidentWallTrianglesRenderLikeHostOnes) {
  GRANRAY_SKIP_WITHOUT_BACKEND();
  Rng rng(fresh_seed());
  const auto spheres = dense_bed(rng, 5000, 0.3f, 0.5f);
  Renderer renderer(BackendKind::cuda);
  const SceneBounds box = renderer.measure(view_of(spheres)).bounds;
  RenderSettings s = random_settings(rng, false);
  s.shading.shadows = true;
  const DeviceArray<Triangle> device(4 * 64);
  ASSERT_NE(device.get(), nullptr);
  for (int frame = 0; frame < 3; ++frame) {
    const Vec3 c = (box.lo + box.hi) * 0.5f;
    const float r = 0.6f * (box.hi.x - box.lo.x);
    const std::vector<Triangle> drum =
        transformed(cylinder_triangles(c - Vec3{0, 0, r}, {0, 0, 1}, r, 2 * r, 64),
                    RigidTransform::rotation_about(c, {1, 0, 0}, 20.0 * frame));
    ASSERT_TRUE(device.upload(drum));
    auto from_host = std::make_shared<WallList>(1);
    (*from_host)[0].triangles = drum;
    (*from_host)[0].faces = WallFaces::back;
    auto in_place = std::make_shared<WallList>(1);
    (*in_place)[0].in_place = device.get();
    (*in_place)[0].in_place_count = drum.size();
    (*in_place)[0].in_place_space = MemorySpace::device;
    (*in_place)[0].faces = WallFaces::back;
    Image a, b;
    s.walls = from_host;
    renderer.render(view_of(spheres), s, a, {RenderMethod::grid, true});
    s.walls = in_place;
    const FrameStats stats = renderer.render(view_of(spheres), s, b, {RenderMethod::grid, true});
    EXPECT_EQ(stats.wall_triangles, drum.size());
    EXPECT_EQ(a.rgb, b.rgb) << "frame " << frame;
    EXPECT_EQ(a.hit_id, b.hit_id) << "frame " << frame;
  }
  Image c;
  EXPECT_THROW(Renderer(BackendKind::cpu).render(view_of(spheres), s, c), DeviceError);
}

// In situ with a writer the GPU's pixels reach the writer through a deferred copy that runs
// while the simulation moves its grains on the device: every PNG must still show its own step.
TEST(CudaInput, InsituFramesWithAWriterShowTheirOwnStep) {
  GRANRAY_SKIP_WITHOUT_BACKEND();
  Rng rng(fresh_seed());
  const int width = std::uniform_int_distribution<int>(300, 800)(rng);
  const int height = std::uniform_int_distribution<int>(200, 600)(rng);
  const std::size_t n = std::uniform_int_distribution<std::size_t>(5000, 40000)(rng);
  std::vector<Vec4> grains = dense_bed(rng, n, 0.3f, 0.5f);
  const DeviceArray<Vec4> device(n);
  ASSERT_NE(device.get(), nullptr);
  const std::string dir = temp_path("deferred-" + std::to_string(fresh_seed()));
  const InsituConfig config = parse_insitu_config(
      "[insitu]\nevery = 1\nbackend = \"cuda\"\nwidth = " + std::to_string(width) +
          "\nheight = " + std::to_string(height) + "\npng = \"" + dir + "/f_*.png\"\n",
      "deferred.toml");
  std::vector<std::vector<std::uint8_t>> expected;
  std::vector<std::string> paths;
  {
    InsituRenderer vis(config, {});
    Renderer direct(BackendKind::cuda);
    for (int step = 0; step < 6; ++step) {
      // The grains move on the device right after each frame, as the simulation's next step
      // would, while the frame's pixels may still be on their way.
      for (Vec4& g : grains) g.z += uniform(rng, 0.0f, 0.3f);
      ASSERT_TRUE(device.upload(grains));
      const FrameRecord& f =
          vis.render(step, 0.1 * step, adapters::device_particles(device.get(), n));
      ASSERT_TRUE(f.rendered) << f.error;
      paths.push_back(f.png_path);
      Image now;
      direct.render(adapters::device_particles(device.get(), n).view, vis.config().render, now);
      expected.push_back(now.rgb);
    }
    vis.finish();
    EXPECT_EQ(vis.counters().written, 6u);
  }
  for (std::size_t k = 0; k < paths.size(); ++k) {
    EXPECT_EQ(io::read_png(paths[k]).rgb, expected[k]) << paths[k];
  }
}

// A large deferred frame (milliseconds on the copy engine), then the next frame rendered into the
// same device buffer before the first is settled: both must arrive whole and as rendered. The
// particles are on the device with their bounds given, as a simulation's would be, so the next
// frame copies nothing before it casts. (The next frame's wait for the copy is not what keeps
// this test green: with that wait removed it still passed, 3 runs on an H100.)
TEST(CudaInput, DeferredFrameIsNotOverwrittenByTheNextOne) {
  GRANRAY_SKIP_WITHOUT_BACKEND();
  Rng rng(fresh_seed());
  RenderSettings s = random_settings(rng, false);
  // About 50 MB: milliseconds on the copy engine.
  s.width = std::uniform_int_distribution<int>(3800, 4200)(rng);
  s.height = std::uniform_int_distribution<int>(3800, 4200)(rng);
  s.camera.zoom = uniform(rng, 1.5f, 2.5f);  // the bed fills most of the frame
  Renderer renderer(BackendKind::cuda);
  std::vector<DeviceArray<Vec4>> device;
  std::vector<ParticleView> views(2);
  std::vector<RenderOptions> options(2);
  for (int k = 0; k < 2; ++k) {
    // Beds of the same size: the second frame allocates nothing (cudaFree synchronises).
    const auto bed = dense_bed(rng, 5000, 0.3f, 0.5f);
    device.emplace_back(bed.size());
    ASSERT_NE(device[k].get(), nullptr);
    ASSERT_TRUE(device[k].upload(bed));
    views[k].xyzr = device[k].get();
    views[k].count = bed.size();
    views[k].space = MemorySpace::device;
    options[k].defer_pixels = true;
    options[k].particle_bounds = renderer.measure(views[k]).bounds;
  }
  std::vector<Image> images(2);
  renderer.render(views[0], s, images[0], options[0]);
  renderer.render(views[1], s, images[1], options[1]);
  EXPECT_TRUE(images[0].pending) << "the first frame was not deferred";
  for (Image& image : images) settle(image);
  Renderer reference(BackendKind::cuda);
  std::vector<Image> expected(2);
  for (int k = 0; k < 2; ++k) reference.render(views[k], s, expected[k]);
  EXPECT_NE(expected[0].rgb, expected[1].rgb) << "the two scenes must look different";
  EXPECT_TRUE(images[0].rgb == expected[0].rgb) << "the first frame was overwritten by the second";
  EXPECT_TRUE(images[1].rgb == expected[1].rgb);
}

}  // namespace
}  // namespace granray::test
