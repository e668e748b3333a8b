#include "toml_guard.h"

#include "granray/errors.h"

namespace granray::detail {
namespace {

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  void run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '#') {
        skip_to_line_end();
      } else if (starts("\"\"\"")) {
        multi_line_string('"', true);
      } else if (starts("'''")) {
        multi_line_string('\'', false);
      } else if (c == '"' || c == '\'') {
        single_line_string(c);
      } else {
        if (static_cast<unsigned char>(c) >= 0x80) refuse();
        advance();
      }
    }
  }

 private:
  bool starts(std::string_view s) const { return text_.substr(i_, s.size()) == s; }

  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      line_start_ = i_ + 1;
    }
    ++i_;
  }

  void skip_to_line_end() {
    while (i_ < text_.size() && text_[i_] != '\n') advance();
  }

  void single_line_string(char quote) {
    advance();
    while (i_ < text_.size() && text_[i_] != quote && text_[i_] != '\n') {
      if (quote == '"' && text_[i_] == '\\' && i_ + 1 < text_.size()) advance();
      advance();
    }
    if (i_ < text_.size() && text_[i_] == quote) advance();
  }

  void multi_line_string(char quote, bool escapes) {
    const std::string_view delimiter = quote == '"' ? "\"\"\"" : "'''";
    for (int k = 0; k < 3; ++k) advance();
    while (i_ < text_.size() && !starts(delimiter)) {
      if (escapes && text_[i_] == '\\') {
        advance();
        if (line_ending_backslash()) {
          // The parser skips the whitespace that follows: what ends it must be ASCII.
          while (i_ < text_.size() && (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' ||
                                       text_[i_] == '\r')) {
            advance();
          }
          if (i_ < text_.size() && static_cast<unsigned char>(text_[i_]) >= 0x80) refuse();
          continue;
        }
        if (i_ >= text_.size()) break;
      }
      advance();
    }
    // A closing delimiter may be followed by up to two more quotes that belong to the string.
    for (int k = 0; k < 3 && i_ < text_.size(); ++k) advance();
    while (i_ < text_.size() && text_[i_] == quote) advance();
  }

  // After a "\" in a multi-line basic string: only spaces and tabs up to the end of the line?
  bool line_ending_backslash() const {
    std::size_t j = i_;
    while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t')) ++j;
    return j < text_.size() && (text_[j] == '\n' || text_[j] == '\r');
  }

  [[noreturn]] void refuse() const {
    throw ConfigError(source_ + ":" + std::to_string(line_) + ":" +
                      std::to_string(i_ - line_start_ + 1) +
                      ": a non-ASCII character outside a string or comment (TOML allows them "
                      "only in \"strings\" and # comments)");
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
  std::size_t line_start_ = 0;
};

}  // namespace

void refuse_non_ascii_outside_strings(std::string_view text, const std::string& source_name) {
  Lexer(text, source_name).run();
}

}  // namespace granray::detail
