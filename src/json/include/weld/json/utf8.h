#pragma once
/// \file
/// UTF-8 helpers.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace weld::json {

/// Number of Unicode code points in valid UTF-8 `s` (what JSON Schema's
/// `minLength`/`maxLength` count).
std::size_t count_code_points(std::string_view s);

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates).
bool is_valid_utf8(std::string_view s);

/// Length (2-4) of the well-formed UTF-8 sequence starting at `p`, whose lead
/// byte is >= 0x80; 0 when it is not one (RFC 3629 §4: no overlongs, no
/// surrogates, nothing past U+10FFFF) or runs past `end`. Inline: the JSON
/// parser calls it for every non-ASCII character.
///
/// \code
///   std::size_t n = weld::json::utf8_sequence_length(p, end);  // 0: invalid
/// \endcode
inline std::size_t utf8_sequence_length(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = p[0];
  std::size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) need = 1;
  else if (c == 0xE0) { need = 2; lo = 0xA0; }
  else if (c >= 0xE1 && c <= 0xEC) need = 2;
  else if (c == 0xED) { need = 2; hi = 0x9F; }
  else if (c >= 0xEE && c <= 0xEF) need = 2;
  else if (c == 0xF0) { need = 3; lo = 0x90; }
  else if (c >= 0xF1 && c <= 0xF3) need = 3;
  else if (c == 0xF4) { need = 3; hi = 0x8F; }
  else return 0;
  if (static_cast<std::size_t>(end - p) < need + 1) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (std::size_t k = 2; k <= need; ++k) {
    if ((p[k] & 0xC0) != 0x80) return 0;
  }
  return need + 1;
}

/// Appends code point `cp` as UTF-8.
void append_utf8(std::string& out, char32_t cp);

/// Decodes one code point at `s[i]`, advancing `i`; returns U+FFFD on
/// malformed input (advancing by one byte).
char32_t decode_utf8(std::string_view s, std::size_t& i);

/// What `decode_escape` found wrong.
enum class EscapeError : std::uint8_t {
  None,           ///< decoded
  Truncated,      ///< input ends inside a \u escape
  BadHex,         ///< a \u escape has a non-hex digit
  LoneSurrogate,  ///< a \u surrogate without its pair
  Unknown,        ///< not one of JSON's escapes
};

/// Decodes one JSON string escape. `pos` indexes the character after the
/// backslash (there must be one). On success the decoded UTF-8 is appended to
/// `out` and `pos` moves past the escape; on failure `pos` is where the
/// problem is (the bad digit, the escape letter, the end of input).
/// Example: `std::size_t pos = 1; decode_escape("\\u00e9", pos, out)` appends "é".
EscapeError decode_escape(std::string_view text, std::size_t& pos, std::string& out);

/// The first `max_code_points` code points of `s` (never cuts a sequence).
std::string_view utf8_prefix(std::string_view s, std::size_t max_code_points);

}  // namespace weld::json
