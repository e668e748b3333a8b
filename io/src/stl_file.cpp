// STL has two layouts: binary (an 80-byte header, a 32-bit count, 50 bytes per triangle) and
// ASCII ("solid ... facet normal ... outer loop vertex x y z (x3) endloop endfacet ... endsolid").
// Written here rather than through ADMesh (Debian libadmesh): ADMesh reads a truncated ASCII
// file without a word and reports its errors on standard error, where a user needs the file and
// line in the exception.
#include "granray/io/stl_file.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

#include "granray/errors.h"
#include "text_fields.h"

namespace granray::io {
namespace {

constexpr std::size_t kBinaryHeader = 84;
constexpr std::size_t kBinaryTriangle = 50;

std::vector<Triangle> read_binary(const std::string& path, const std::string& bytes,
                                  std::uint32_t count) {
  std::vector<Triangle> out(count);
  for (std::uint32_t k = 0; k < count; ++k) {
    // Each record: normal (3 floats, ignored: the winding gives it), 3 vertices, 2 bytes.
    float v[9];
    std::memcpy(v, bytes.data() + kBinaryHeader + k * kBinaryTriangle + 12, sizeof v);
    for (const float x : v) {
      if (!is_finite(x)) {
        throw InputError(path + ": triangle " + std::to_string(k) +
                         " has a vertex that is not finite");
      }
    }
    out[k] = {{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8]}};
  }
  return out;
}

// Whitespace-separated words with their line numbers.
class Words {
 public:
  Words(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  bool next(std::string_view& word) {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ >= text_.size()) return false;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    word = text_.substr(start, pos_ - start);
    return true;
  }
  void skip_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }
  std::string_view expect(const char* what) {
    std::string_view word;
    if (!next(word)) {
      detail::fail_at(path_, line_,
                      std::string("the file ends where '") + what + "' should be (truncated?)");
    }
    return word;
  }
  void expect_keyword(const char* keyword) {
    const std::string_view word = expect(keyword);
    if (word != keyword) {
      detail::fail_at(path_, line_,
                      std::string("expected '") + keyword + "', got '" + std::string(word) + "'");
    }
  }
  float number(const char* what) {
    const std::string_view word = expect(what);
    const double x = detail::parse_real(word, path_, line_, what);
    if (!std::isfinite(static_cast<float>(x))) {
      detail::fail_at(path_, line_,
                      std::string(what) + " '" + std::string(word) + "' is not finite");
    }
    return static_cast<float>(x);
  }
  std::size_t line() const { return line_; }

 private:
  const std::string& path_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

std::vector<Triangle> read_ascii(const std::string& path, std::string_view text) {
  Words words(path, text);
  std::vector<Triangle> out;
  std::string_view word;
  bool in_solid = false;
  while (words.next(word)) {
    if (!in_solid) {
      if (word != "solid") {
        detail::fail_at(path, words.line(), "expected 'solid', got '" + std::string(word) + "'");
      }
      words.skip_line();  // the solid's name
      in_solid = true;
    } else if (word == "endsolid") {
      words.skip_line();
      in_solid = false;
    } else if (word == "facet") {
      words.expect_keyword("normal");
      for (int k = 0; k < 3; ++k) words.number("normal component");
      words.expect_keyword("outer");
      words.expect_keyword("loop");
      Vec3 v[3];
      for (Vec3& p : v) {
        words.expect_keyword("vertex");
        p.x = words.number("vertex coordinate");
        p.y = words.number("vertex coordinate");
        p.z = words.number("vertex coordinate");
      }
      words.expect_keyword("endloop");
      words.expect_keyword("endfacet");
      out.push_back({v[0], v[1], v[2]});
    } else {
      detail::fail_at(path, words.line(),
                      "expected 'facet' or 'endsolid', got '" + std::string(word) + "'");
    }
  }
  if (in_solid) {
    detail::fail_at(path, words.line(), "the file ends without 'endsolid' (truncated?)");
  }
  return out;
}

}  // namespace

std::vector<Triangle> read_stl(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the STL file");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path + ": cannot read the STL file");
  // Binary when the size matches the count (binary headers may well start with "solid" too).
  std::uint32_t count = 0;
  const bool has_header = bytes.size() >= kBinaryHeader;
  if (has_header) std::memcpy(&count, bytes.data() + 80, sizeof count);
  const std::uint64_t binary_size = kBinaryHeader + std::uint64_t{count} * kBinaryTriangle;
  if (has_header && bytes.size() == binary_size) return read_binary(path, bytes, count);
  const std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && bytes.compare(first, 5, "solid") == 0) {
    return read_ascii(path, bytes);
  }
  if (has_header) {
    throw InputError(path + ": not an STL file: as binary STL its " + std::to_string(count) +
                     " triangles need " + std::to_string(binary_size) + " bytes, the file has " +
                     std::to_string(bytes.size()) +
                     " (truncated?); as ASCII STL it does not start with 'solid'");
  }
  throw InputError(path + ": not an STL file (" + std::to_string(bytes.size()) +
                   " bytes, neither 'solid ...' text nor a binary header)");
}

}  // namespace granray::io
