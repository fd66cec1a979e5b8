#pragma once
/// \file
/// `format` assertions for the formats docs/schema.md lists ("What validates").

#include <cstdint>
#include <optional>
#include <string_view>

namespace weld::schema {

/// True when weld asserts `name` (date-time, date, time, duration, email,
/// idn-email, hostname, idn-hostname, ipv4, ipv6, uri, uri-reference, iri,
/// iri-reference, uri-template, uuid, json-pointer, relative-json-pointer,
/// regex).
bool is_known_format(std::string_view name);

/// A known format, resolved once when a schema is compiled so validation
/// does not compare format names.
enum class FormatId : std::uint8_t {
  DateTime, Date, Time, Duration, Email, IdnEmail,
  Hostname,         ///< draft-07 and later: RFC 1123 labels, IDNA A-label rules
  HostnameRfc1123,  ///< draft-04/06: RFC 1123 labels only ("ab--cd" is valid)
  IdnHostname, Ipv4, Ipv6, Uri, UriReference, Iri, IriReference, UriTemplate, Uuid,
  JsonPointer, RelativeJsonPointer, Regex,
};

/// The id of a known format name; `rfc1123_hostname` selects the draft-04/06
/// reading of `hostname`. Unknown names → nullopt.
/// Example: `check_format(*format_id("uuid", false), text)`.
std::optional<FormatId> format_id(std::string_view name, bool rfc1123_hostname);

/// Checks a string against a known format.
bool check_format(FormatId id, std::string_view value);

/// Checks a string against a format by name (draft-07+ readings); unknown
/// formats pass.
bool check_format(std::string_view name, std::string_view value);

}  // namespace weld::schema
