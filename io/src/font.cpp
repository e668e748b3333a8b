#include "font.h"

#define STB_TRUETYPE_IMPLEMENTATION
#define STBTT_STATIC
#include <stb_truetype.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>

#include "granray/errors.h"

namespace granray::io::detail {

struct Font::Impl {
  std::vector<unsigned char> ttf;
  stbtt_fontinfo info{};
};

namespace {

// Code points of UTF-8 text; a malformed byte stands for itself.
std::vector<int> code_points(const std::string& text) {
  std::vector<int> points;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    int length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + length > text.size()) length = 1;
    int point = length == 1 ? c : c & (0x3f >> (length - 1));
    for (int k = 1; k < length; ++k) point = (point << 6) | (text[i + k] & 0x3f);
    points.push_back(point);
    i += length;
  }
  return points;
}

}  // namespace

Font::Font(std::vector<unsigned char> ttf) : impl_(std::make_unique<Impl>()) {
  impl_->ttf = std::move(ttf);
  const int offset = stbtt_GetFontOffsetForIndex(impl_->ttf.data(), 0);
  if (offset < 0 || !stbtt_InitFont(&impl_->info, impl_->ttf.data(), offset)) {
    throw InputError("not a TrueType font");
  }
}

Font::~Font() = default;

std::shared_ptr<const Font> Font::standard(std::string& why) {
  static std::mutex mutex;
  static std::shared_ptr<const Font> font;
  static std::string failure;
  static bool tried = false;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!tried) {
    tried = true;
    const char* chosen = std::getenv("GRANRAY_FONT");
    const std::string path = chosen != nullptr && *chosen != '\0' ? chosen : GRANRAY_DEFAULT_FONT;
    if (path.empty()) {
      failure = "no font: granray was built without fonts-dejavu-core and GRANRAY_FONT is unset";
    } else {
      std::ifstream in(path, std::ios::binary);
      std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
      try {
        if (!in && bytes.empty()) throw InputError("cannot open it");
        font = std::make_shared<const Font>(std::move(bytes));
      } catch (const std::exception& e) {
        failure = "font " + path + ": " + e.what();
      }
    }
  }
  why = failure;
  return font;
}

int Font::width(const std::string& text, int pixels) const {
  const float scale = stbtt_ScaleForPixelHeight(&impl_->info, static_cast<float>(pixels));
  const std::vector<int> points = code_points(text);
  float x = 0.0f;
  for (std::size_t k = 0; k < points.size(); ++k) {
    int advance = 0, bearing = 0;
    stbtt_GetCodepointHMetrics(&impl_->info, points[k], &advance, &bearing);
    x += scale * static_cast<float>(advance);
    if (k + 1 < points.size()) {
      x += scale * static_cast<float>(
                       stbtt_GetCodepointKernAdvance(&impl_->info, points[k], points[k + 1]));
    }
  }
  return static_cast<int>(std::ceil(x));
}

TextMask Font::render(const std::string& text, int pixels, int pad) const {
  const stbtt_fontinfo& info = impl_->info;
  const float scale = stbtt_ScaleForPixelHeight(&info, static_cast<float>(pixels));
  int ascent = 0, descent = 0, gap = 0;
  stbtt_GetFontVMetrics(&info, &ascent, &descent, &gap);
  const int baseline = static_cast<int>(std::lround(scale * static_cast<float>(ascent)));
  TextMask mask;
  mask.width = width(text, pixels) + 2 * pad + 2;
  mask.height = pixels + 2 * pad;
  mask.coverage.assign(static_cast<std::size_t>(mask.width) * mask.height, 0);
  const std::vector<int> points = code_points(text);
  float x = static_cast<float>(pad);
  for (std::size_t k = 0; k < points.size(); ++k) {
    int advance = 0, bearing = 0;
    stbtt_GetCodepointHMetrics(&info, points[k], &advance, &bearing);
    const float shift = x - std::floor(x);
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    stbtt_GetCodepointBitmapBoxSubpixel(&info, points[k], scale, scale, shift, 0.0f, &x0, &y0, &x1,
                                        &y1);
    const int gx = static_cast<int>(std::floor(x)) + x0, gy = pad + baseline + y0;
    const int w = x1 - x0, h = y1 - y0;
    if (w > 0 && h > 0) {
      std::vector<unsigned char> glyph(static_cast<std::size_t>(w) * h);
      stbtt_MakeCodepointBitmapSubpixel(&info, glyph.data(), w, h, w, scale, scale, shift, 0.0f,
                                        points[k]);
      for (int row = 0; row < h; ++row) {
        for (int col = 0; col < w; ++col) {
          const int px = gx + col, py = gy + row;
          if (px < 0 || py < 0 || px >= mask.width || py >= mask.height) continue;
          std::uint8_t& c = mask.coverage[static_cast<std::size_t>(py) * mask.width + px];
          c = static_cast<std::uint8_t>(
              std::max<int>(c, glyph[static_cast<std::size_t>(row) * w + col]));
        }
      }
    }
    x += scale * static_cast<float>(advance);
    if (k + 1 < points.size()) {
      x += scale *
           static_cast<float>(stbtt_GetCodepointKernAdvance(&info, points[k], points[k + 1]));
    }
  }
  return mask;
}

}  // namespace granray::io::detail
