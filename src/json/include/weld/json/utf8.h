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
