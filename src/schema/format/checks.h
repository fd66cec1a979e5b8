#pragma once
// One checker per format family; private to weld_schema_format. Each takes
// the whole string and returns whether it conforms (docs/schema.md, "What validates").

#include <string>
#include <string_view>
#include <vector>

namespace weld::schema::format_detail {

bool is_date(std::string_view s);       // RFC 3339 full-date
bool is_time(std::string_view s);       // RFC 3339 full-time (offset required, leap second at 23:59 UTC)
bool is_date_time(std::string_view s);  // RFC 3339 date-time
bool is_duration(std::string_view s);   // RFC 3339 appendix A (ISO 8601 duration)

bool is_ipv4(std::string_view s);  // dotted quad, no leading zeros
bool is_ipv6(std::string_view s);  // RFC 4291 text form, optional trailing dotted quad

bool is_uri(std::string_view s, bool iri, bool reference);  // RFC 3986 / RFC 3987
bool is_uri_template(std::string_view s);                   // RFC 6570 level 4

bool is_rfc1123_hostname(std::string_view s);  // draft-04/06: RFC 1123 LDH labels, nothing more
bool is_hostname(std::string_view s);      // RFC 1123 LDH labels; xn-- labels must be valid A-labels
bool is_idn_hostname(std::string_view s);  // IDNA2008 (RFC 5890-5893) with UTS #46 label separators
bool is_email(std::string_view s, bool idn);  // RFC 5321 mailbox / RFC 6531

/// Punycode (RFC 3492). decode: false on malformed input.
bool punycode_decode(std::string_view input, std::u32string& out);
std::string punycode_encode(const std::u32string& input);

/// Decodes UTF-8 (assumed valid) into code points.
std::u32string to_code_points(std::string_view s);

}  // namespace weld::schema::format_detail
