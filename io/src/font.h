// A TrueType font rasterised by stb_truetype: text as an antialiased coverage mask, for the
// overlays drawn on finished frames (annotations.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace granray::io::detail {

// Coverage of a line of text, 0..255 per pixel, row 0 at the top.
struct TextMask {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> coverage;
};

class Font {
 public:
  // The font named by $GRANRAY_FONT, else the DejaVu Sans found when granray was built; null
  // (and `why` says why) when neither can be read.
  static std::shared_ptr<const Font> standard(std::string& why);

  explicit Font(std::vector<unsigned char> ttf);
  ~Font();
  Font(const Font&) = delete;
  Font& operator=(const Font&) = delete;

  // `text` (UTF-8) at a line height of `pixels`, padded by `pad` pixels on every side.
  TextMask render(const std::string& text, int pixels, int pad) const;
  // Width in pixels of `text` at that height.
  int width(const std::string& text, int pixels) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace granray::io::detail
