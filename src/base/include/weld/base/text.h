#pragma once
/// \file
/// Small text rules every module shares: trimming and percent-decoding.
/// One home each, so "whitespace" and "an escape" mean the same thing in the
/// schema loader, the proxy, the batch and telemetry.
///
/// \code
///   std::string_view value = weld::trim(header_value, weld::kHttpSpace);
///   std::string path = weld::percent_decode("a%2Fb");  // "a/b"
/// \endcode

#include <string>
#include <string_view>

namespace weld {

/// ASCII whitespace: what C's `isspace` means in the "C" locale (space, tab,
/// newline, carriage return, form feed, vertical tab). The default of trim().
inline constexpr std::string_view kAsciiSpace = " \t\n\r\f\v";

/// HTTP's optional whitespace (space and horizontal tab), the only
/// whitespace allowed around header field values and list elements; also
/// what OTLP's `key=value` headers and shell allow rules trim.
inline constexpr std::string_view kHttpSpace = " \t";

/// `s` without leading and trailing characters from `space`.
constexpr std::string_view trim(std::string_view s, std::string_view space = kAsciiSpace) {
  std::size_t first = s.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

/// The value of the hexadecimal digit `c` (0-15), or -1 when `c` is none.
constexpr int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// One round of percent-decoding (RFC 3986, section 2.1): each `%XX` with
/// two hexadecimal digits becomes its byte; an invalid or cut escape stays
/// as written. `+` is not a space (that is form encoding, not URIs).
std::string percent_decode(std::string_view text);

}  // namespace weld
