#pragma once
/// \file
/// UTF-8 helpers.

#include <cstddef>
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

/// The first `max_code_points` code points of `s` (never cuts a sequence).
std::string_view utf8_prefix(std::string_view s, std::size_t max_code_points);

}  // namespace weld::json
