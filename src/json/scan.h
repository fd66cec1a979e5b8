#pragma once
// Token scanning shared by the readers of JSON text still being written
// (close_prefix in partial.cc, Compactor in compact.cc): where a number or
// literal ends, where a string closes and where its content may be cut.

#include <cstddef>
#include <string_view>

namespace weld::json {
namespace detail {

// Not a string: a bad \u escape.
inline constexpr std::size_t kBadString = std::string_view::npos - 1;

// True when `token` is a number in the RFC 8259 grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
inline bool is_number(std::string_view token) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t from = i;
    while (i < token.size() && token[i] >= '0' && token[i] <= '9') ++i;
    return i > from;
  };
  if (i < token.size() && token[i] == '-') ++i;
  if (i < token.size() && token[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < token.size() && token[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == token.size();
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool ends_token(char c) { return is_space(c) || c == ',' || c == ']' || c == '}'; }

// Length of the string starting at `text[start]` == '"' up to and including
// its closing quote; npos when it has not closed yet. `safe_end` receives the
// last position inside it where the content may be cut (not inside an
// escape, a \u sequence, a surrogate pair or a UTF-8 sequence).
inline std::size_t scan_string(std::string_view text, std::size_t start, std::size_t& safe_end) {
  std::size_t pos = start + 1;
  safe_end = pos;
  while (pos < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c == '"') return pos + 1 - start;
    if (c == '\\') {
      if (pos + 1 >= text.size()) return std::string_view::npos;
      if (text[pos + 1] != 'u') {
        pos += 2;
        safe_end = pos;
        continue;
      }
      if (pos + 6 > text.size()) return std::string_view::npos;
      unsigned code = 0;
      for (char h : text.substr(pos + 2, 4)) {
        int digit = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (digit < 0) return kBadString;
        code = code * 16 + static_cast<unsigned>(digit);
      }
      pos += 6;
      // A high surrogate is only safe once its low half follows.
      if (code < 0xD800 || code > 0xDBFF) safe_end = pos;
      continue;
    }
    std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (pos + length > text.size()) return std::string_view::npos;
    pos += length;
    safe_end = pos;
  }
  return std::string_view::npos;
}

}  // namespace detail
}  // namespace weld::json
