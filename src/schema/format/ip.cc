// ipv4 (RFC 2673 dotted-quad, no leading zeros) and ipv6 (RFC 4291 §2.2).

#include "checks.h"

namespace weld::schema::format_detail {
namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

}  // namespace

bool is_ipv4(std::string_view s) {
  int parts = 0;
  std::size_t pos = 0;
  while (true) {
    std::size_t start = pos;
    int value = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && pos - start < 4) {
      value = value * 10 + (s[pos] - '0');
      ++pos;
    }
    std::size_t digits = pos - start;
    if (digits == 0 || digits > 3 || value > 255) return false;
    if (digits > 1 && s[start] == '0') return false;
    ++parts;
    if (pos == s.size()) break;
    if (s[pos] != '.' || parts == 4) return false;
    ++pos;
  }
  return parts == 4;
}

bool is_ipv6(std::string_view s) {
  int groups = 0;         // 16-bit groups written
  bool compressed = false;
  std::size_t pos = 0;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    compressed = true;
    pos = 2;
    if (pos == s.size()) return true;
  } else if (!s.empty() && s[0] == ':') {
    return false;
  }
  while (pos < s.size()) {
    std::size_t start = pos;
    while (pos < s.size() && is_hex(s[pos]) && pos - start < 5) ++pos;
    std::size_t digits = pos - start;
    if (pos < s.size() && s[pos] == '.') {
      // Trailing IPv4 takes two groups and must end the address.
      if (!is_ipv4(s.substr(start))) return false;
      groups += 2;
      pos = s.size();
      break;
    }
    if (digits == 0 || digits > 4) return false;
    ++groups;
    if (pos == s.size()) break;
    if (s[pos] != ':') return false;
    ++pos;
    if (pos < s.size() && s[pos] == ':') {
      if (compressed) return false;
      compressed = true;
      ++pos;
      if (pos == s.size()) break;
    } else if (pos == s.size()) {
      return false;  // a single trailing colon
    }
  }
  return compressed ? groups <= 7 : groups == 8;
}

}  // namespace weld::schema::format_detail
