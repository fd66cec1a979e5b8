#pragma once
/// \file
/// `format` assertions for the formats SPEC §1.2 lists.

#include <string_view>

namespace weld::schema {

/// True when weld asserts `name` (date-time, date, time, duration, email,
/// idn-email, hostname, idn-hostname, ipv4, ipv6, uri, uri-reference, iri,
/// iri-reference, uri-template, uuid, json-pointer, relative-json-pointer,
/// regex).
bool is_known_format(std::string_view name);

/// Checks a string against a known format; unknown formats pass.
bool check_format(std::string_view name, std::string_view value);

}  // namespace weld::schema
