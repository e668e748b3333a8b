// How a frame's pixels come back from the backend: large images in chunks through page-locked
// memory, deferred copies settled on another thread, and only the drawn pixels when asked.
// Built once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "granray/errors.h"
#include "test_support.h"

namespace granray::test {
namespace {

class PixelDeliveryTest : public OnEachBackend {};

// Images of several megabytes come back from the device in chunks through page-locked memory:
// every chunk, the last partial one too, must land where it belongs.
TEST_F(PixelDeliveryTest, LargeImagesComeBackWholeAndInPlace) {
  Rng rng(fresh_seed());
  RenderSettings s = random_settings(rng, false);
  s.width = std::uniform_int_distribution<int>(1201, 2000)(rng);
  s.height = std::uniform_int_distribution<int>(901, 1200)(rng);
  s.camera.zoom = uniform(rng, 1.5f, 2.5f);  // the bed fills most of the frame
  const auto spheres = dense_bed(rng, 20000, 0.3f, 0.5f);
  Renderer renderer(test_backend()), reference(BackendKind::cpu);
  Image image, expected;
  renderer.render(view_of(spheres), s, image, {RenderMethod::grid, true});
  reference.render(view_of(spheres), s, expected, {RenderMethod::grid, true});
  const ImageDiff d = compare_images(image, expected);
  SCOPED_TRACE(::testing::Message() << s.width << "x" << s.height);
  EXPECT_LE(d.differing_hit, d.pixels / 10000) << "pixels whose visible particle differs";
  EXPECT_EQ(d.rgb_differs_same_hit, 0u);
  std::size_t drawn = 0;
  for (const float depth : image.depth) drawn += std::isfinite(depth);
  EXPECT_GT(drawn, d.pixels / 4) << "the bed should cover much of the frame";
}

// RenderOptions::defer_pixels: on the GPU the pixels arrive through a copy that the reader
// settles, here on another thread after later frames have been rendered (the renderer must not
// overwrite pixels still being copied) and after more frames than there are buffers to lend (the
// rest come at once). Every image must equal the same scene rendered at once.
TEST_F(PixelDeliveryTest, DeferredPixelsArriveWhenSettledOnAnotherThread) {
  Rng rng(fresh_seed());
  RenderSettings s = random_settings(rng, false);
  s.width = std::uniform_int_distribution<int>(200, 700)(rng);
  s.height = std::uniform_int_distribution<int>(150, 500)(rng);
  // More frames than the backend locks buffers for (32 at most), all left unsettled.
  const int frames = std::uniform_int_distribution<int>(36, 40)(rng);
  std::vector<std::vector<Vec4>> scenes;
  for (int k = 0; k < frames; ++k) {
    scenes.push_back(
        dense_bed(rng, std::uniform_int_distribution<std::size_t>(200, 3000)(rng), 0.2f, 0.6f));
  }
  Renderer renderer(test_backend());
  RenderOptions deferred;
  deferred.defer_pixels = true;
  std::vector<Image> images(frames);
  int pending = 0;
  for (int k = 0; k < frames; ++k) {
    renderer.render(view_of(scenes[k]), s, images[k], deferred);
    pending += images[k].pending != nullptr;
  }
  // The same image rendered twice while still pending holds the second frame.
  Image twice;
  renderer.render(view_of(scenes[1]), s, twice, deferred);
  renderer.render(view_of(scenes[0]), s, twice, deferred);
  std::thread reader([&] {
    for (Image& image : images) settle(image);
    settle(twice);
  });
  reader.join();
  if (test_backend() == BackendKind::cuda) {
    EXPECT_GE(pending, 1) << "no frame was deferred";
    EXPECT_LT(pending, frames) << "unsettled frames must run out of buffers, not memory";
  } else {
    EXPECT_EQ(pending, 0) << "the CPU's pixels are in host memory already";
  }
  Renderer reference(test_backend());
  for (int k = 0; k < frames; ++k) {
    Image expected;
    reference.render(view_of(scenes[k]), s, expected);
    EXPECT_FALSE(images[k].pending) << k;
    EXPECT_EQ(images[k].rgb, expected.rgb) << "frame " << k << " of " << frames;
  }
  Image expected;
  reference.render(view_of(scenes[0]), s, expected);
  EXPECT_EQ(twice.rgb, expected.rgb);
}

// Each row's span from its first to its last pixel with a finite depth, found on the host.
DrawnRegion drawn_pixels(const Image& image) {
  std::vector<PixelRect> spans(image.height);
  PixelRect bounds;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      if (std::isfinite(image.depth[std::size_t(y) * image.width + x])) {
        spans[y] = spans[y].join({x, y, x + 1, y + 1});
      }
    }
    bounds = bounds.join(spans[y]);
  }
  DrawnRegion d;
  d.bounds = bounds;
  if (!bounds.empty()) d.rows.assign(spans.begin() + bounds.y0, spans.begin() + bounds.y1);
  return d;
}

bool same_rect(const PixelRect& a, const PixelRect& b) {
  return (a.empty() && b.empty()) || (a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1);
}

void expect_same_region(const DrawnRegion& a, const DrawnRegion& b, const char* what) {
  const PixelRect &p = a.bounds, &q = b.bounds;
  EXPECT_TRUE(same_rect(p, q)) << what << ": bounds [" << p.x0 << ", " << p.x1 << ") x [" << p.y0
                               << ", " << p.y1 << ") vs [" << q.x0 << ", " << q.x1 << ") x ["
                               << q.y0 << ", " << q.y1 << ")";
  ASSERT_EQ(a.rows.size(), b.rows.size()) << what;
  std::size_t differing = 0;
  for (std::size_t r = 0; r < a.rows.size(); ++r) differing += !same_rect(a.rows[r], b.rows[r]);
  EXPECT_EQ(differing, 0u) << what << ": rows whose spans differ";
}

// One rank's part of a scene, framed by the whole scene's box, covers part of the picture: the
// renderer reports each row's drawn span and, when asked, copies out only those (compositing
// reads no more). Large and small images, so that planes of one and of several chunks come back.
TEST_F(PixelDeliveryTest, CopiesOutOnlyTheDrawnPixelsWhenAsked) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  int partial = 0;  // rounds whose spans leave pixels outside
  for (int round = 0; round < 6; ++round) {
    RenderSettings s = random_settings(rng, round % 2 == 1);
    if (round < 3) {
      s.width = std::uniform_int_distribution<int>(1201, 2000)(rng);
      s.height = std::uniform_int_distribution<int>(901, 1200)(rng);
      s.camera.zoom = uniform(rng, 1.0f, 2.0f);
    }
    const auto all =
        round == 4 ? dilute_gas(rng, 3000, 0.05f, 0.2f, 10.0f) : dense_bed(rng, 20000, 0.3f, 0.5f);
    // A slab of the scene along a random axis, as one rank of several would hold.
    const int axis = std::uniform_int_distribution<int>(0, 2)(rng);
    const SceneBounds box = renderer.measure(view_of(all)).bounds;
    const float lo[3] = {box.lo.x, box.lo.y, box.lo.z}, hi[3] = {box.hi.x, box.hi.y, box.hi.z};
    const float cut0 = uniform(rng, lo[axis], hi[axis]);
    const float cut1 = uniform(rng, cut0, hi[axis]);
    std::vector<Vec4> part;
    for (const Vec4& p : all) {
      const float c = axis == 0 ? p.x : axis == 1 ? p.y : p.z;
      if (c >= cut0 && c <= cut1) part.push_back(p);
    }
    RenderOptions options{RenderMethod::grid, true};
    options.camera_bounds = box;
    SCOPED_TRACE(::testing::Message() << "round " << round << ", " << part.size() << " of "
                                      << all.size() << " spheres, " << s.width << "x" << s.height);
    Image whole;
    const FrameStats full = renderer.render(view_of(part), s, whole, options);
    expect_same_region(full.drawn, drawn_pixels(whole), "reported vs found in the image");
    // (A slab at the edge of a zoomed view can lie wholly outside the picture; the count of
    // partly drawn rounds below keeps the test from passing on empty frames.)

    // An image still holding another frame: inside the spans it must become this frame, outside
    // them it must stay untouched.
    const std::size_t pixels = std::size_t(s.width) * s.height;
    Image reused;
    reused.width = s.width;
    reused.height = s.height;
    reused.rgb.resize(3 * pixels);
    reused.depth.resize(pixels);
    reused.hit_id.resize(pixels);
    for (std::size_t p = 0; p < pixels; ++p) {
      reused.rgb[3 * p] = reused.rgb[3 * p + 1] = reused.rgb[3 * p + 2] = std::uint8_t(p * 7);
      reused.depth[p] = -float(p % 1000);
      reused.hit_id[p] = p * 3 + 1;
    }
    const Image stale = reused;
    options.copy_drawn_only = true;
    const FrameStats part_only = renderer.render(view_of(part), s, reused, options);
    expect_same_region(part_only.drawn, full.drawn, "copying the drawn pixels alone");
    std::size_t wrong_inside = 0, touched_outside = 0;
    for (int y = 0; y < s.height; ++y) {
      for (int x = 0; x < s.width; ++x) {
        const std::size_t p = std::size_t(y) * s.width + x;
        const Image& expected = full.drawn.contains(x, y) ? whole : stale;
        const bool same =
            reused.depth[p] == expected.depth[p] && reused.hit_id[p] == expected.hit_id[p] &&
            std::equal(&reused.rgb[3 * p], &reused.rgb[3 * p + 3], &expected.rgb[3 * p]);
        if (!same) ++(full.drawn.contains(x, y) ? wrong_inside : touched_outside);
      }
    }
    EXPECT_EQ(wrong_inside, 0u);
    EXPECT_EQ(touched_outside, 0u);
    partial += !full.drawn.bounds.empty() && full.drawn.area() < pixels;
  }
  EXPECT_GE(partial, 3) << "too few slabs left part of the picture undrawn";
}

}  // namespace
}  // namespace granray::test
