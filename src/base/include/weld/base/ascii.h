#pragma once
/// \file
/// ASCII case folding for protocol text: header names, URL schemes and
/// hosts, `x-should-retry` values. Locale-independent (only A-Z fold), which
/// is what HTTP and URLs mean by case-insensitive.
///
/// \code
///   if (weld::ascii_iequals(name, "content-type")) …
///   std::string host = weld::ascii_lower(url);
/// \endcode

#include <string>
#include <string_view>

namespace weld {

/// `c` with A-Z folded to a-z; every other byte unchanged.
constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// `s` with A-Z folded to a-z.
inline std::string ascii_lower(std::string s) {
  for (char& c : s) c = ascii_lower(c);
  return s;
}

/// Equal once A-Z are folded.
constexpr bool ascii_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

/// `s` starts with `prefix` once A-Z are folded.
constexpr bool ascii_istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && ascii_iequals(s.substr(0, prefix.size()), prefix);
}

}  // namespace weld
