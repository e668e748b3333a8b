#include "granray/io/annotations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "font.h"
#include "granray/errors.h"
#include "granray/renderer.h"

namespace granray::io {
namespace {

using detail::Font;
using detail::TextMask;

struct Rgb {
  float r, g, b;
};

// Dark text with a light outline on a light background, and the reverse: readable on the
// background and on grains of any colour.
void text_colors(Vec3 background, Rgb& ink, Rgb& outline) {
  const float luminance = 0.2126f * background.x + 0.7152f * background.y + 0.0722f * background.z;
  const Rgb dark{0.0f, 0.0f, 0.0f}, light{1.0f, 1.0f, 1.0f};
  ink = luminance > 0.5f ? dark : light;
  outline = luminance > 0.5f ? light : dark;
}

// The whole image the overlays are laid out on (width x height), of which `pixels` holds the
// window from (x0, y0): a poster's band, or a region, gets exactly its part of them.
struct Canvas {
  Image& pixels;
  int x0, y0;
  int width, height;
};

void blend(const Canvas& image, int x, int y, Rgb c, int coverage) {
  x -= image.x0;
  y -= image.y0;
  Image& out = image.pixels;
  if (x < 0 || y < 0 || x >= out.width || y >= out.height || coverage <= 0) return;
  std::uint8_t* p = &out.rgb[3 * (static_cast<std::size_t>(y) * out.width + x)];
  const float rgb[3] = {c.r, c.g, c.b};
  if (coverage >= 255) {
    for (int k = 0; k < 3; ++k) p[k] = static_cast<std::uint8_t>(255.0f * rgb[k] + 0.5f);
    return;
  }
  const float a = static_cast<float>(coverage) / 255.0f;
  for (int k = 0; k < 3; ++k) {
    const float mixed = (1.0f - a) * static_cast<float>(p[k]) + a * 255.0f * rgb[k];
    p[k] = static_cast<std::uint8_t>(std::clamp(mixed, 0.0f, 255.0f) + 0.5f);
  }
}

// The mask dilated by a square of 2 radius + 1 pixels (a row pass, then a column pass): the
// outline around the glyphs.
std::vector<std::uint8_t> dilate(const TextMask& m, int radius) {
  const auto at = [&m](const std::vector<std::uint8_t>& v, int x, int y) {
    return v[static_cast<std::size_t>(y) * m.width + x];
  };
  std::vector<std::uint8_t> rows(m.coverage.size(), 0), out(m.coverage.size(), 0);
  for (int y = 0; y < m.height; ++y) {
    for (int x = 0; x < m.width; ++x) {
      std::uint8_t best = 0;
      for (int sx = std::max(0, x - radius); sx <= std::min(m.width - 1, x + radius); ++sx) {
        best = std::max(best, at(m.coverage, sx, y));
      }
      rows[static_cast<std::size_t>(y) * m.width + x] = best;
    }
  }
  for (int y = 0; y < m.height; ++y) {
    for (int x = 0; x < m.width; ++x) {
      std::uint8_t best = 0;
      for (int sy = std::max(0, y - radius); sy <= std::min(m.height - 1, y + radius); ++sy) {
        best = std::max(best, at(rows, x, sy));
      }
      out[static_cast<std::size_t>(y) * m.width + x] = best;
    }
  }
  return out;
}

// Text with its outline, the mask's top left corner at (x, y).
void draw_text(const Canvas& image, const Font& font, const std::string& text, int pixels, int x,
               int y, Rgb ink, Rgb outline) {
  const int radius = std::max(1, pixels / 14);
  const TextMask mask = font.render(text, pixels, radius + 1);
  const std::vector<std::uint8_t> halo = dilate(mask, radius);
  for (int row = 0; row < mask.height; ++row) {
    for (int col = 0; col < mask.width; ++col) {
      const std::size_t k = static_cast<std::size_t>(row) * mask.width + col;
      blend(image, x + col, y + row, outline, halo[k]);
      blend(image, x + col, y + row, ink, mask.coverage[k]);
    }
  }
}

int font_pixels(const AnnotationSettings& s, const Canvas& image) {
  return s.font_size > 0 ? s.font_size : std::max(10, image.height / 40);
}

std::string tick(float value) { return fmt::format("{:.4g}", value); }

}  // namespace

std::string format_label(const std::string& pattern, const AnnotationValues& v) {
  try {
    return fmt::format(fmt::runtime(pattern), fmt::arg("step", v.step), fmt::arg("time", v.time),
                       fmt::arg("particles", v.particles));
  } catch (const fmt::format_error& e) {
    throw ConfigError("label \"" + pattern + "\": " + e.what() +
                      " (names: {step}, {time}, {particles}; specs as in fmt, e.g. {time:.3f})");
  }
}

// A one-pixel frame in the ink's colour around the box [x0, x1) x [y0, y1).
static void draw_frame(const Canvas& image, int x0, int y0, int x1, int y1, Rgb ink) {
  for (int x = x0 - 1; x <= x1; ++x) {
    blend(image, x, y0 - 1, ink, 255);
    blend(image, x, y1, ink, 255);
  }
  for (int y = y0 - 1; y <= y1; ++y) {
    blend(image, x0 - 1, y, ink, 255);
    blend(image, x1, y, ink, 255);
  }
}

// The field's name above a bar or swatches whose right edge is x1 and top is `top`.
static void draw_field_name(const Canvas& image, const Font& font, const std::string& field, int px,
                            int margin, int x1, int top, Rgb ink, Rgb outline) {
  if (field.empty()) return;
  const int w = font.width(field, px);
  draw_text(image, font, field, px, std::min(x1 - w, image.width - w - margin) - 2,
            top - px - margin - 4, ink, outline);
}

// Categories (contract 2d): a column of swatches at the right edge, one per category value v the
// frame draws, in palette entry v mod n and labelled v on the left, and the field's name above.
static void draw_swatches(const Canvas& image, const Font& font, int px, int margin, Rgb ink,
                          Rgb outline, const AnnotationValues& values) {
  const int count = static_cast<int>(values.categories.size());
  if (count == 0) {
    draw_field_name(image, font, values.field, px, margin, image.width - margin, image.height / 2,
                    ink, outline);
    return;
  }
  const int side = std::max(6, std::min(px, (image.height - 2 * margin) / (2 * count)));
  const int step = side + std::max(2, side / 2);
  const int x1 = image.width - margin, x0 = x1 - side;
  const int y_top = std::max(margin, (image.height - count * step) / 2);
  for (int k = 0; k < count; ++k) {
    const int y0 = y_top + k * step, y1 = y0 + side;
    const int value = values.categories[std::size_t(k)];
    const Vec3 c = values.palette[std::size_t(value) % values.palette.size()];
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) blend(image, x, y, {c.x, c.y, c.z}, 255);
    }
    draw_frame(image, x0, y0, x1, y1, ink);
    const std::string text = std::to_string(value);
    draw_text(image, font, text, px, x0 - margin - font.width(text, px) - 2,
              (y0 + y1) / 2 - px / 2 - 2, ink, outline);
  }
  draw_field_name(image, font, values.field, px, margin, x1, y_top, ink, outline);
}

// A vertical bar whose right edge is x1, the range's ends and middle beside it on the left, the
// field's name above; returns the leftmost column it drew in.
static int draw_bar(const Canvas& image, const Font& font, int px, int margin, Rgb ink, Rgb outline,
                    int colormap, float lo, float hi, const std::string& field, int x1) {
  const int bar_width = std::max(6, px);
  const int bar_height = std::max(16, image.height / 2);
  const int x0 = x1 - bar_width;
  const int y0 = (image.height - bar_height) / 2, y1 = y0 + bar_height;
  for (int y = y0; y < y1; ++y) {
    const float s = 1.0f - (static_cast<float>(y - y0) + 0.5f) / static_cast<float>(bar_height);
    const Vec3 c = colormap_color(colormap, s);
    for (int x = x0; x < x1; ++x) blend(image, x, y, {c.x, c.y, c.z}, 255);
  }
  draw_frame(image, x0, y0, x1, y1, ink);
  const float ticks[3] = {hi, 0.5f * (lo + hi), lo};
  const int tick_y[3] = {y0, (y0 + y1) / 2, y1};
  int left = x0 - margin;
  for (int k = 0; k < 3; ++k) {
    const std::string text = tick(ticks[k]);
    const int w = font.width(text, px);
    for (int x = x0 - 1 - margin / 2; x < x0 - 1; ++x) blend(image, x, tick_y[k], ink, 255);
    draw_text(image, font, text, px, x0 - margin - w - 4, tick_y[k] - px / 2 - 2, ink, outline);
    left = std::min(left, x0 - margin - w - 4);
  }
  draw_field_name(image, font, field, px, margin, x1, y0, ink, outline);
  return std::min(left, x1 - font.width(field, px));
}

Vec3 axis_color(int axis) {
  static const Vec3 colors[3] = {
      {0.85f, 0.10f, 0.10f}, {0.10f, 0.60f, 0.10f}, {0.10f, 0.25f, 0.90f}};
  return colors[axis];
}

// An antialiased segment from a to b, `half` pixels either side of its line: each pixel is
// covered by how far its centre lies inside that band, within half a pixel.
static void draw_segment(const Canvas& image, float ax, float ay, float bx, float by, float half,
                         Rgb c) {
  const float dx = bx - ax, dy = by - ay, length2 = dx * dx + dy * dy;
  const int x0 = static_cast<int>(std::floor(std::min(ax, bx) - half - 1.0f));
  const int x1 = static_cast<int>(std::ceil(std::max(ax, bx) + half + 1.0f));
  const int y0 = static_cast<int>(std::floor(std::min(ay, by) - half - 1.0f));
  const int y1 = static_cast<int>(std::ceil(std::max(ay, by) + half + 1.0f));
  for (int y = y0; y <= y1; ++y) {
    for (int x = x0; x <= x1; ++x) {
      const float px = static_cast<float>(x) + 0.5f - ax, py = static_cast<float>(y) + 0.5f - ay;
      const float along =
          length2 > 0.0f ? std::clamp((px * dx + py * dy) / length2, 0.0f, 1.0f) : 0.0f;
      const float ex = px - along * dx, ey = py - along * dy;
      const float coverage = std::clamp(half + 0.5f - std::sqrt(ex * ex + ey * ey), 0.0f, 1.0f);
      blend(image, x, y, c, static_cast<int>(255.0f * coverage + 0.5f));
    }
  }
}

// contract 2d: three arrows from one point in the corner, world axis k drawn as its projection onto
// the camera's right and up directions times min(W, H) / 12, labelled at the tip; the axes that
// point into the picture first, so the nearer ones cross over them.
static void draw_axes(const Canvas& image, const Font& font, int px, int margin, Rgb outline,
                      AxesCorner corner, const AnnotationValues& values) {
  const float length = static_cast<float>(std::min(image.width, image.height)) / 12.0f;
  const float reach = length + static_cast<float>(px);  // an arrow and its label
  const bool left = corner == AxesCorner::bottom_left || corner == AxesCorner::top_left;
  const bool top = corner == AxesCorner::top_left || corner == AxesCorner::top_right;
  const float ox = left ? margin + reach : image.width - margin - reach;
  const float oy = top ? margin + reach : image.height - margin - reach;
  const Vec3 forward = cross(values.view_right, values.view_up);  // toward the viewer
  const char* names[3] = {"x", "y", "z"};
  int order[3] = {0, 1, 2};
  const auto depth = [&](int k) {
    const float e[3] = {forward.x, forward.y, forward.z};
    return e[k];
  };
  std::sort(order, order + 3, [&](int a, int b) { return depth(a) < depth(b); });
  const float half = std::max(0.75f, length / 40.0f);
  for (const int k : order) {
    const Vec3 axis = {k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f};
    // Image rows grow downward.
    const float dx = dot(axis, values.view_right) * length,
                dy = -dot(axis, values.view_up) * length;
    const Vec3 c3 = axis_color(k);
    const Rgb c{c3.x, c3.y, c3.z};
    const float tx = ox + dx, ty = oy + dy;
    draw_segment(image, ox, oy, tx, ty, half, c);
    const float shown = std::sqrt(dx * dx + dy * dy);
    if (shown > 2.0f * half) {
      // The head: two barbs of a quarter of the arrow's full length, 25 degrees off the shaft.
      const float ux = dx / shown, uy = dy / shown, barb = 0.25f * length;
      const float cs = 0.906f, sn = 0.423f;
      draw_segment(image, tx, ty, tx - barb * (ux * cs - uy * sn), ty - barb * (uy * cs + ux * sn),
                   half, c);
      draw_segment(image, tx, ty, tx - barb * (ux * cs + uy * sn), ty - barb * (uy * cs - ux * sn),
                   half, c);
    }
    // The label just past the tip (beside the origin for an axis seen end on).
    const float ux = shown > 0.0f ? dx / shown : 0.7f, uy = shown > 0.0f ? dy / shown : -0.7f;
    const float lx = tx + ux * 0.7f * static_cast<float>(px);
    const float ly = ty + uy * 0.7f * static_cast<float>(px);
    const int w = font.width(names[k], px);
    draw_text(image, font, names[k], px, static_cast<int>(std::lround(lx - 0.5f * w)) - 2,
              static_cast<int>(std::lround(ly - 0.5f * px)) - 2, c, outline);
  }
}

std::string draw_annotations(Image& image, const AnnotationSettings& settings,
                             const AnnotationValues& values) {
  return draw_annotations(image, settings, values, {0, 0, image.width, image.height}, image.width,
                          image.height);
}

std::string draw_annotations(Image& pixels, const AnnotationSettings& settings,
                             const AnnotationValues& values, const PixelRect& window,
                             int full_width, int full_height) {
  if (!any_annotation(settings) || full_width <= 0 || full_height <= 0) return "";
  if (pixels.width <= 0 || pixels.height <= 0) return "";
  const Canvas image{pixels, window.x0, window.y0, full_width, full_height};
  std::string why;
  const std::shared_ptr<const Font> font = Font::standard(why);
  if (!font) return why;
  Rgb ink{}, outline{};
  text_colors(values.background, ink, outline);
  const int px = font_pixels(settings, image);
  const int margin = std::max(2, px / 2);
  if (!settings.label.empty()) {
    draw_text(image, *font, format_label(settings.label, values), px, margin, margin, ink, outline);
  }
  if (settings.color_bar && values.colored && !values.palette.empty()) {
    draw_swatches(image, *font, px, margin, ink, outline, values);
  } else if (settings.color_bar && values.colored) {
    const int left = draw_bar(image, *font, px, margin, ink, outline, values.colormap, values.lo,
                              values.hi, values.field, image.width - margin);
    if (values.pairs_colored) {  // contract 2g: the network's bar beside the grains'
      draw_bar(image, *font, px, margin, ink, outline, values.pair_colormap, values.pair_lo,
               values.pair_hi, values.pair_field, left - margin);
    }
  } else if (settings.color_bar && values.pairs_colored) {
    draw_bar(image, *font, px, margin, ink, outline, values.pair_colormap, values.pair_lo,
             values.pair_hi, values.pair_field, image.width - margin);
  }
  if (settings.axes != AxesCorner::none) {
    draw_axes(image, *font, px, margin, outline, settings.axes, values);
  }
  return "";
}

}  // namespace granray::io
