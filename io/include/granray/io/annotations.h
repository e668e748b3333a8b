// What a reader needs on a frame (contract 3, [insitu.annotations]): a colour bar of the colormap
// with its range and the field's name, a label with the step, time and grain count, and the
// world axes as a tripod in a corner (contract 2d). Drawn on
// the finished image, after compositing, by the rank that writes; they never enter the depth
// compositing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "granray/image.h"
#include "granray/kernels/vec.h"
#include "granray/pixel_rect.h"

namespace granray::io {

enum class AxesCorner { none, bottom_left, bottom_right, top_left, top_right };

struct AnnotationSettings {
  bool color_bar = false;  // the colormap, its range and the field, at the right edge
  std::string label;       // at the top left: {step}, {time}, {particles}, fmt format specs
  int font_size = 0;       // pixels; 0 = image height / 40 (at least 10)
  AxesCorner axes = AxesCorner::none;  // the world axes' tripod
};

// What one frame's overlays show.
struct AnnotationValues {
  std::int64_t step = 0;
  double time = 0.0;
  std::uint64_t particles = 0;
  bool colored = false;  // the frame was coloured by its scalar: the bar has something to show
  int colormap = 0;
  float lo = 0.0f, hi = 0.0f;
  std::vector<Vec3> palette;    // categorical colours (contract 2d): swatches instead of a bar
  std::vector<int> categories;  // the category values the frame draws, one swatch each
  std::string field;
  // contract 2g: the contact network's colours, a second bar (beside the grains' when both show)
  bool pairs_colored = false;
  int pair_colormap = 0;
  float pair_lo = 0.0f, pair_hi = 0.0f;
  std::string pair_field;
  Vec3 background = {1.0f, 1.0f, 1.0f};  // the text's colours contrast with it
  // The camera's right and up directions in world space (the tripod's projection).
  Vec3 view_right = {1.0f, 0.0f, 0.0f};
  Vec3 view_up = {0.0f, 1.0f, 0.0f};
};

inline bool any_annotation(const AnnotationSettings& a) {
  return a.color_bar || !a.label.empty() || a.axes != AxesCorner::none;
}

// The tripod's colours: world x red, y green, z blue.
Vec3 axis_color(int axis);

// The label's text; throws ConfigError naming the pattern when fmt rejects it (an unknown name
// in braces, a format spec that does not fit the value).
std::string format_label(const std::string& pattern, const AnnotationValues& values);

// Draws the overlays onto `image` (settled, 8-bit RGB). Returns "" when drawn, else why not (no
// font could be read); the image is then untouched.
std::string draw_annotations(Image& image, const AnnotationSettings& settings,
                             const AnnotationValues& values);
// The same overlays laid out on a full_width x full_height image, of which `image` is the window
// whose top left corner is (window.x0, window.y0): a region (contract 3) or a poster's band gets
// exactly the pixels the whole image would have there.
std::string draw_annotations(Image& image, const AnnotationSettings& settings,
                             const AnnotationValues& values, const PixelRect& window,
                             int full_width, int full_height);

}  // namespace granray::io
