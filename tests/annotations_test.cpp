// [insitu.annotations]: the label's formatting, and the colour bar and label drawn where they
// belong, in real glyphs, on a frame's finished image.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "granray/errors.h"
#include "granray/io/annotations.h"
#include "granray/io/image_file.h"
#include "granray/renderer.h"
#include "test_support.h"

namespace granray::test {
namespace {

Image plain_image(int width, int height, std::uint8_t value) {
  Image image;
  image.width = width;
  image.height = height;
  image.rgb.assign(std::size_t(width) * height * 3, value);
  return image;
}

TEST(Annotations, LabelFollowsFmt) {
  io::AnnotationValues v;
  v.step = 12500;
  v.time = 0.1;
  v.particles = 4000;
  EXPECT_EQ(io::format_label("step {step}   t = {time:.4f} s   {particles} grains", v),
            "step 12500   t = 0.1000 s   4000 grains");
  EXPECT_EQ(io::format_label("{step:08d}", v), "00012500");
  EXPECT_EQ(io::format_label("no fields", v), "no fields");
  for (const char* bad : {"{stp}", "{time:.3q}", "{step", "{particles:s}"}) {
    try {
      io::format_label(bad, v);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("{time:.3f}"), std::string::npos) << e.what();
    }
  }
}

TEST(Annotations, LabelIsDrawnAtTheTopLeftOnly) {
  Rng rng(fresh_seed());
  const int width = std::uniform_int_distribution<int>(320, 1280)(rng);
  const int height = std::uniform_int_distribution<int>(240, 720)(rng);
  Image image = plain_image(width, height, 255);
  io::AnnotationSettings a;
  a.label = "step {step}";
  io::AnnotationValues v;
  v.step = std::uniform_int_distribution<int>(0, 1000000)(rng);
  const std::string why = io::draw_annotations(image, a, v);
  if (!why.empty()) GTEST_SKIP() << why;
  const int px = std::max(10, height / 40);
  std::size_t dark = 0, outside = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const std::uint8_t g = image.rgb[3 * (std::size_t(y) * width + x)];
      const bool in_box = y < 3 * px && x < width / 2;
      if (g < 128 && in_box) ++dark;
      if (g != 255 && !in_box) ++outside;
    }
  }
  EXPECT_GT(dark, std::size_t(px)) << "dark glyphs on the white background";
  EXPECT_EQ(outside, 0u) << "pixels changed away from the label";
  // Antialiased: some coverage between ink and paper.
  std::size_t grey = 0;
  for (const std::uint8_t c : image.rgb) grey += c > 40 && c < 215;
  EXPECT_GT(grey, 0u);
}

// A black frame of random size, 320-1920 x 240-1080, whose settings ask for the colour bar of a
// coloured frame.
struct BarFrame {
  int width, height;
  Image image;
  io::AnnotationSettings settings;
  io::AnnotationValues values;
};

BarFrame bar_frame(Rng& rng) {
  BarFrame f;
  f.width = std::uniform_int_distribution<int>(320, 1920)(rng);
  f.height = std::uniform_int_distribution<int>(240, 1080)(rng);
  f.image = plain_image(f.width, f.height, 0);
  f.settings.color_bar = true;
  f.values.colored = true;
  return f;
}

TEST(Annotations, ColourBarShowsTheColormapAtTheRightEdge) {
  Rng rng(fresh_seed());
  auto [width, height, image, a, v] = bar_frame(rng);
  v.colormap = std::uniform_int_distribution<int>(0, 6)(rng);
  v.lo = 0.0f;
  v.hi = 2.0f;
  v.field = "speed";
  v.background = {0.0f, 0.0f, 0.0f};
  const std::string why = io::draw_annotations(image, a, v);
  if (!why.empty()) GTEST_SKIP() << why;
  const int px = std::max(10, height / 40);
  const int margin = std::max(2, px / 2);
  const int x = width - margin - std::max(6, px) / 2;  // the bar's middle column
  const int bar = std::max(16, height / 2), y0 = (height - bar) / 2;
  // Init-captures: C++17 lambdas may not capture structured bindings themselves.
  const auto at = [&rgb = image.rgb, w = width, x](int y) {
    const std::uint8_t* p = &rgb[3 * (std::size_t(y) * w + x)];
    return Vec3{p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f};
  };
  for (const float s : {0.98f, 0.5f, 0.02f}) {
    const int y = y0 + static_cast<int>((1.0f - s) * bar);
    const Vec3 expected = colormap_color(v.colormap, 1.0f - (float(y - y0) + 0.5f) / float(bar));
    const Vec3 got = at(y);
    EXPECT_NEAR(got.x, expected.x, 1.5f / 255.0f) << "s " << s;
    EXPECT_NEAR(got.y, expected.y, 1.5f / 255.0f) << "s " << s;
    EXPECT_NEAR(got.z, expected.z, 1.5f / 255.0f) << "s " << s;
  }
  // Tick labels left of the bar: light text on the black background.
  std::size_t light = 0;
  for (int y = y0 - px; y < y0 + bar + px; ++y) {
    for (int xx = width / 2; xx < x - px; ++xx) {
      light += image.rgb[3 * (std::size_t(y) * width + xx)] > 128;
    }
  }
  EXPECT_GT(light, std::size_t(3 * px)) << "tick labels";
  // A frame not coloured by a scalar has no bar to show.
  Image plain = plain_image(width, height, 0);
  v.colored = false;
  io::draw_annotations(plain, a, v);
  EXPECT_EQ(plain.rgb, plain_image(width, height, 0).rgb);
}

// contract 2g: the contact network's colormap gets a bar of its own, at the right edge when the
// grains have none, and beside theirs, to its left, when they have one.
TEST(Annotations, TheNetworksBarStandsBesideTheGrains) {
  Rng rng(fresh_seed());
  auto [width, height, image, a, v] = bar_frame(rng);
  v.colored = false;
  v.pairs_colored = true;
  v.pair_colormap = 3;  // inferno: its low end is near black, so it shows on white
  v.pair_lo = 0.0f;
  v.pair_hi = 5.0f;
  v.pair_field = "force";
  v.background = {1.0f, 1.0f, 1.0f};
  image = plain_image(width, height, 255);
  const std::string why = io::draw_annotations(image, a, v);
  if (!why.empty()) GTEST_SKIP() << why;
  const int px = std::max(10, height / 40);
  const int margin = std::max(2, px / 2);
  const int bar = std::max(16, height / 2), y = (height - bar) / 2 + bar / 4;
  const auto colour_at = [&](const Image& im, int x) {
    const std::uint8_t* p = &im.rgb[3 * (std::size_t(y) * im.width + x)];
    return Vec3{p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f};
  };
  const Vec3 expected = colormap_color(3, 1.0f - (float(bar / 4) + 0.5f) / float(bar));
  const Vec3 alone = colour_at(image, width - margin - std::max(6, px) / 2);
  EXPECT_NEAR(alone.x, expected.x, 1.5f / 255.0f);
  EXPECT_NEAR(alone.z, expected.z, 1.5f / 255.0f);
  // With the grains' bar too: theirs at the edge, the network's further left on the same row.
  v.colored = true;
  v.colormap = 0;  // viridis
  v.lo = 0.0f;
  v.hi = 2.0f;
  v.field = "speed";
  Image both = plain_image(width, height, 255);
  io::draw_annotations(both, a, v);
  const Vec3 edge = colour_at(both, width - margin - std::max(6, px) / 2);
  const Vec3 grains = colormap_color(0, 1.0f - (float(bar / 4) + 0.5f) / float(bar));
  EXPECT_NEAR(edge.y, grains.y, 1.5f / 255.0f) << "the grains' bar keeps the edge";
  int found = -1;
  for (int x = width - margin - 3 * std::max(6, px); x > width / 3 && found < 0; --x) {
    const Vec3 c = colour_at(both, x);
    if (std::abs(c.x - expected.x) < 2.0f / 255 && std::abs(c.y - expected.y) < 2.0f / 255 &&
        std::abs(c.z - expected.z) < 2.0f / 255) {
      found = x;
    }
  }
  EXPECT_GT(found, 0) << "the network's bar left of the grains'";
}

// Categories (contract 2d): one swatch per category value the frame draws, top to bottom, in
// palette entry value mod n, with the value written to its left.
TEST(Annotations, CategoriesShowOneSwatchPerValueDrawn) {
  Rng rng(fresh_seed());
  auto [width, height, image, a, v] = bar_frame(rng);
  v.palette.resize(std::uniform_int_distribution<std::size_t>(1, 12)(rng));
  for (Vec3& c : v.palette)
    c = {uniform(rng, 0.2f, 1), uniform(rng, 0.2f, 1), uniform(rng, 0.2f, 1)};
  for (int value = 0; value < 30; ++value) {
    if (rng() % 3 == 0) v.categories.push_back(value);
  }
  if (v.categories.empty()) v.categories.push_back(7);
  v.field = "type";
  v.background = {0.0f, 0.0f, 0.0f};
  const std::string why = io::draw_annotations(image, a, v);
  if (!why.empty()) GTEST_SKIP() << why;
  // Down the column just inside the right margin, the swatches met in order (a gap between
  // them ends one).
  const int px = std::max(10, height / 40);
  const int margin = std::max(2, px / 2);
  const int x = width - margin - 3;
  std::vector<Vec3> seen;
  bool in_swatch = false;
  for (int y = 0; y < height; ++y) {
    const std::uint8_t* p = &image.rgb[3 * (std::size_t(y) * width + x)];
    const Vec3 c{p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f};
    const bool fill = std::any_of(v.palette.begin(), v.palette.end(), [&](Vec3 e) {
      return std::abs(e.x - c.x) < 1.5f / 255 && std::abs(e.y - c.y) < 1.5f / 255 &&
             std::abs(e.z - c.z) < 1.5f / 255;
    });
    if (fill && !in_swatch) seen.push_back(c);
    in_swatch = fill;
  }
  ASSERT_EQ(seen.size(), v.categories.size());
  for (std::size_t k = 0; k < seen.size(); ++k) {
    const Vec3 e = v.palette[std::size_t(v.categories[k]) % v.palette.size()];
    EXPECT_NEAR(seen[k].x, e.x, 1.5f / 255.0f) << "swatch " << k;
    EXPECT_NEAR(seen[k].z, e.z, 1.5f / 255.0f) << "swatch " << k;
  }
  std::size_t light = 0;  // the values' text left of the swatches
  for (int y = 0; y < height; ++y) {
    for (int xx = width / 2; xx < x - px; ++xx)
      light += image.rgb[3 * (std::size_t(y) * width + xx)] > 128;
  }
  EXPECT_GT(light, std::size_t(px) * v.categories.size()) << "labels";
}

// contract 2d's tripod: from one point in the chosen corner, world x, y and z each drawn in its own
// colour along its projection onto the camera's right and up directions, min(W, H) / 12 long.
TEST(Annotations, AxesPointAlongTheProjectedWorldAxes) {
  Rng rng(fresh_seed());
  const int width = std::uniform_int_distribution<int>(320, 1920)(rng);
  const int height = std::uniform_int_distribution<int>(240, 1080)(rng);
  const float length = std::min(width, height) / 12.0f;
  // A random view whose three projected axes are long and well apart, so that each shaft can be
  // found alone.
  Vec3 right, up;
  float dx[3], dy[3];
  for (bool apart = false; !apart;) {
    const Vec3 a = normalize({uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)});
    right = normalize(
        cross(a, normalize({uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)})));
    up = cross(a, right);
    const float e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    apart = true;
    for (int k = 0; k < 3; ++k) {
      const Vec3 axis{e[k][0], e[k][1], e[k][2]};
      dx[k] = dot(axis, right);
      dy[k] = -dot(axis, up);
      apart = apart && std::hypot(dx[k], dy[k]) > 0.5f;
    }
    for (int k = 0; k < 3 && apart; ++k) {
      for (int m = k + 1; m < 3; ++m) {
        const float c =
            (dx[k] * dx[m] + dy[k] * dy[m]) / (std::hypot(dx[k], dy[k]) * std::hypot(dx[m], dy[m]));
        apart = apart && c < std::cos(40.0f * float(M_PI) / 180.0f);
      }
    }
  }
  const int px = std::max(10, height / 40);
  const int margin = std::max(2, px / 2);
  const float reach = length + px;
  for (const io::AxesCorner corner : {io::AxesCorner::bottom_left, io::AxesCorner::bottom_right,
                                      io::AxesCorner::top_left, io::AxesCorner::top_right}) {
    Image image = plain_image(width, height, 255);
    io::AnnotationSettings a;
    a.axes = corner;
    io::AnnotationValues v;
    v.view_right = right;
    v.view_up = up;
    const std::string why = io::draw_annotations(image, a, v);
    if (!why.empty()) GTEST_SKIP() << why;
    const bool left = corner == io::AxesCorner::bottom_left || corner == io::AxesCorner::top_left;
    const bool top = corner == io::AxesCorner::top_left || corner == io::AxesCorner::top_right;
    const float ox = left ? margin + reach : width - margin - reach;
    const float oy = top ? margin + reach : height - margin - reach;
    const auto dominance = [&](int x, int y, int channel) {
      int best = -255;
      for (int yy = y - 1; yy <= y + 1; ++yy) {
        for (int xx = x - 1; xx <= x + 1; ++xx) {
          const std::uint8_t* p = &image.rgb[3 * (std::size_t(yy) * width + xx)];
          best = std::max(best, int(p[channel]) -
                                    std::max(int(p[(channel + 1) % 3]), int(p[(channel + 2) % 3])));
        }
      }
      return best;
    };
    for (int k = 0; k < 3; ++k) {
      for (const float f : {0.5f, 0.7f, 0.9f}) {
        const int x = int(ox + f * dx[k] * length), y = int(oy + f * dy[k] * length);
        EXPECT_GT(dominance(x, y, k), 90)
            << "axis " << k << " at " << f << " of its length, corner " << int(corner) << ", "
            << width << "x" << height;
        for (int m = 0; m < 3; ++m) {
          if (m != k) EXPECT_LT(dominance(x, y, m), 60) << "axis " << m << " on axis " << k;
        }
      }
    }
    // Nothing outside the corner's quarter of the picture.
    std::size_t outside = 0, inside = 0;
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const std::uint8_t* p = &image.rgb[3 * (std::size_t(y) * width + x)];
        if (p[0] == 255 && p[1] == 255 && p[2] == 255) continue;
        const bool in_quarter = (x < width / 2) == left && (y < height / 2) == top;
        (in_quarter ? inside : outside) += 1;
      }
    }
    EXPECT_EQ(outside, 0u) << "corner " << int(corner);
    EXPECT_GT(inside, std::size_t(3 * length)) << "corner " << int(corner);
  }
}

// A region (contract 3) or a poster's band gets exactly its window of the whole image's overlays:
// the label, the bar or swatches and the tripod, laid out on the whole.
TEST(Annotations, AWindowGetsItsPartOfTheWholeImagesOverlays) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 6; ++round) {
    const int width = std::uniform_int_distribution<int>(200, 900)(rng);
    const int height = std::uniform_int_distribution<int>(150, 600)(rng);
    Image whole = plain_image(width, height, 0);
    for (std::uint8_t& c : whole.rgb) c = static_cast<std::uint8_t>(rng() % 256);
    const Image base = whole;
    io::AnnotationSettings a;
    a.label = "step {step}, t = {time:.3f}";
    a.color_bar = true;
    a.axes = io::AxesCorner(1 + round % 4);
    io::AnnotationValues v;
    v.step = round;
    v.time = 0.25 * round;
    v.colored = true;
    v.lo = -1.0f;
    v.hi = 2.0f;
    v.field = "speed";
    if (round % 2 == 1) {
      v.palette = tableau10_palette();
      v.categories = {0, 2, 3, 7};
    }
    v.view_right = normalize(Vec3{1.0f, 0.3f, 0.1f});
    v.view_up = normalize(cross(Vec3{0.2f, -0.4f, 1.0f}, v.view_right) * -1.0f);
    const std::string why = io::draw_annotations(whole, a, v);
    if (!why.empty()) GTEST_SKIP() << why;
    for (int k = 0; k < 4; ++k) {
      const int x0 = std::uniform_int_distribution<int>(0, width - 1)(rng);
      const int y0 = std::uniform_int_distribution<int>(0, height - 1)(rng);
      const int x1 = std::uniform_int_distribution<int>(x0 + 1, width)(rng);
      const int y1 = std::uniform_int_distribution<int>(y0 + 1, height)(rng);
      Image part = plain_image(x1 - x0, y1 - y0, 0);
      Image expected = part;
      for (int y = y0; y < y1; ++y) {
        const std::size_t from = 3 * (std::size_t(y) * width + x0);
        const std::size_t to = 3 * std::size_t(y - y0) * (x1 - x0);
        std::copy_n(base.rgb.begin() + from, 3 * (x1 - x0), part.rgb.begin() + to);
        std::copy_n(whole.rgb.begin() + from, 3 * (x1 - x0), expected.rgb.begin() + to);
      }
      io::draw_annotations(part, a, v, {x0, y0, x1, y1}, width, height);
      EXPECT_EQ(part.rgb, expected.rgb) << "round " << round << ", window [" << x0 << ", " << y0
                                        << ", " << x1 << ", " << y1 << ")";
    }
    EXPECT_NE(whole.rgb, base.rgb) << "nothing was drawn";
  }
}

}  // namespace
}  // namespace granray::test
