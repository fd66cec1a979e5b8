// email (RFC 5321 §4.1.2 Mailbox) and idn-email (RFC 6531: UTF-8 allowed in
// the local part, the domain is an idn-hostname).

#include "checks.h"

namespace weld::schema::format_detail {
namespace {

bool is_atext(char32_t c, bool idn) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-': case '/':
    case '=': case '?': case '^': case '_': case '`': case '{': case '|': case '}': case '~':
      return true;
    default:
      return idn && c >= 0x80;
  }
}

bool local_part_ok(const std::u32string& local, bool idn) {
  if (local.empty()) return false;
  if (local.front() == '"') {
    // Quoted-string = DQUOTE *QcontentSMTP DQUOTE
    if (local.size() < 2 || local.back() != '"') return false;
    for (std::size_t i = 1; i + 1 < local.size(); ++i) {
      char32_t c = local[i];
      if (c == '\\') {
        ++i;
        if (i + 1 >= local.size() || local[i] < 0x20 || local[i] > 0x7E) return false;
      } else if (c == '"' || (c < 0x20 && c != '\t') || c == 0x7F) {
        return false;
      } else if (c >= 0x80 && !idn) {
        return false;
      }
    }
    return true;
  }
  // Dot-string = Atom *("." Atom)
  bool previous_dot = true;
  for (char32_t c : local) {
    if (c == '.') {
      if (previous_dot) return false;
      previous_dot = true;
    } else if (is_atext(c, idn)) {
      previous_dot = false;
    } else {
      return false;
    }
  }
  return !previous_dot;
}

}  // namespace

bool is_email(std::string_view s, bool idn) {
  std::size_t at = s.rfind('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == s.size()) return false;
  std::string_view local = s.substr(0, at);
  std::string_view domain = s.substr(at + 1);
  if (local.size() > 64) return false;
  if (!local_part_ok(to_code_points(local), idn)) return false;
  if (domain.front() == '[') {
    if (domain.back() != ']') return false;
    std::string_view literal = domain.substr(1, domain.size() - 2);
    if (literal.size() > 5 && (literal.substr(0, 5) == "IPv6:" || literal.substr(0, 5) == "ipv6:")) {
      return is_ipv6(literal.substr(5));
    }
    return is_ipv4(literal);
  }
  return idn ? is_idn_hostname(domain) : is_hostname(domain);
}

}  // namespace weld::schema::format_detail
