// format dispatch (docs/schema.md, "What validates": the asserted formats; unknown names pass), plus
// the small formats: uuid, json-pointer, relative-json-pointer, regex.

#include "weld/schema/format.h"

#include <array>

#include "checks.h"
#include "weld/schema/regex.h"

namespace weld::schema {
namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !is_hex(s[i])) return false;
  }
  return true;
}

// RFC 6901: "" or ("/" *(unescaped / "~0" / "~1"))*.
bool is_json_pointer(std::string_view s) {
  if (s.empty()) return true;
  if (s[0] != '/') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '~') {
      if (i + 1 >= s.size() || (s[i + 1] != '0' && s[i + 1] != '1')) return false;
      ++i;
    }
  }
  return true;
}

// draft-handrews-relative-json-pointer-01: non-negative-integer then "#" or a JSON Pointer.
bool is_relative_json_pointer(std::string_view s) {
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0 || (digits > 1 && s[0] == '0')) return false;
  std::string_view rest = s.substr(digits);
  return rest == "#" || is_json_pointer(rest);
}

}  // namespace

bool is_known_format(std::string_view name) { return format_id(name, false).has_value(); }

std::optional<FormatId> format_id(std::string_view name, bool rfc1123_hostname) {
  static constexpr std::array<std::pair<std::string_view, FormatId>, 19> kIds{{
      {"date-time", FormatId::DateTime},
      {"date", FormatId::Date},
      {"time", FormatId::Time},
      {"duration", FormatId::Duration},
      {"email", FormatId::Email},
      {"idn-email", FormatId::IdnEmail},
      {"hostname", FormatId::Hostname},
      {"idn-hostname", FormatId::IdnHostname},
      {"ipv4", FormatId::Ipv4},
      {"ipv6", FormatId::Ipv6},
      {"uri", FormatId::Uri},
      {"uri-reference", FormatId::UriReference},
      {"iri", FormatId::Iri},
      {"iri-reference", FormatId::IriReference},
      {"uri-template", FormatId::UriTemplate},
      {"uuid", FormatId::Uuid},
      {"json-pointer", FormatId::JsonPointer},
      {"relative-json-pointer", FormatId::RelativeJsonPointer},
      {"regex", FormatId::Regex},
  }};
  for (const auto& [known, id] : kIds) {
    if (known == name) return id == FormatId::Hostname && rfc1123_hostname ? FormatId::HostnameRfc1123 : id;
  }
  return std::nullopt;
}

bool check_format(FormatId id, std::string_view value) {
  using namespace format_detail;  // NOLINT: the checkers of this module
  switch (id) {
    case FormatId::DateTime: return is_date_time(value);
    case FormatId::Date: return is_date(value);
    case FormatId::Time: return is_time(value);
    case FormatId::Duration: return is_duration(value);
    case FormatId::Email: return is_email(value, false);
    case FormatId::IdnEmail: return is_email(value, true);
    case FormatId::Hostname: return is_hostname(value);
    case FormatId::HostnameRfc1123: return is_rfc1123_hostname(value);
    case FormatId::IdnHostname: return is_idn_hostname(value);
    case FormatId::Ipv4: return is_ipv4(value);
    case FormatId::Ipv6: return is_ipv6(value);
    case FormatId::Uri: return is_uri(value, false, false);
    case FormatId::UriReference: return is_uri(value, false, true);
    case FormatId::Iri: return is_uri(value, true, false);
    case FormatId::IriReference: return is_uri(value, true, true);
    case FormatId::UriTemplate: return is_uri_template(value);
    case FormatId::Uuid: return is_uuid(value);
    case FormatId::JsonPointer: return is_json_pointer(value);
    case FormatId::RelativeJsonPointer: return is_relative_json_pointer(value);
    case FormatId::Regex: return Regex::check_syntax(value).ok();
  }
  return true;
}

bool check_format(std::string_view name, std::string_view value) {
  std::optional<FormatId> id = format_id(name, false);
  return !id || check_format(*id, value);
}

}  // namespace weld::schema
