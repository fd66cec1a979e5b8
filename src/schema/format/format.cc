// format dispatch (SPEC §1.2: the asserted formats; unknown names pass), plus
// the small formats: uuid, json-pointer, relative-json-pointer, regex.

#include "weld/schema/format.h"

#include <array>

#include "checks.h"
#include "weld/schema/regex.h"

namespace weld::schema {
namespace {

using namespace std::string_view_literals;  // NOLINT: literals only

constexpr std::array kKnownFormats{
    "date-time"sv, "date"sv,          "time"sv,          "duration"sv,          "email"sv,
    "idn-email"sv, "hostname"sv,      "idn-hostname"sv,  "ipv4"sv,              "ipv6"sv,
    "uri"sv,       "uri-reference"sv, "iri"sv,           "iri-reference"sv,     "uri-template"sv,
    "uuid"sv,      "json-pointer"sv,  "relative-json-pointer"sv, "regex"sv,
};

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

bool is_known_format(std::string_view name) {
  for (std::string_view known : kKnownFormats) {
    if (known == name) return true;
  }
  return false;
}

bool check_format(std::string_view name, std::string_view value) {
  using namespace format_detail;  // NOLINT: the checkers of this module
  if (name == "date-time") return is_date_time(value);
  if (name == "date") return is_date(value);
  if (name == "time") return is_time(value);
  if (name == "duration") return is_duration(value);
  if (name == "email") return is_email(value, false);
  if (name == "idn-email") return is_email(value, true);
  if (name == "hostname") return is_hostname(value);
  if (name == "idn-hostname") return is_idn_hostname(value);
  if (name == "ipv4") return is_ipv4(value);
  if (name == "ipv6") return is_ipv6(value);
  if (name == "uri") return is_uri(value, false, false);
  if (name == "uri-reference") return is_uri(value, false, true);
  if (name == "iri") return is_uri(value, true, false);
  if (name == "iri-reference") return is_uri(value, true, true);
  if (name == "uri-template") return is_uri_template(value);
  if (name == "uuid") return is_uuid(value);
  if (name == "json-pointer") return is_json_pointer(value);
  if (name == "relative-json-pointer") return is_relative_json_pointer(value);
  if (name == "regex") return Regex::check_syntax(value).ok();
  return true;
}

}  // namespace weld::schema
