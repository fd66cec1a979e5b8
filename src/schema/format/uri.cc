// uri, uri-reference, iri, iri-reference (RFC 3986 §3-4, RFC 3987 §2.2) and
// uri-template (RFC 6570 §2). A hand-written parser over the ABNF: no regex,
// linear time.

#include "checks.h"

namespace weld::schema::format_detail {
namespace {

bool is_alpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }
bool is_hex(char32_t c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_unreserved(char32_t c) { return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~'; }
bool is_sub_delim(char32_t c) {
  switch (c) {
    case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+': case ',': case ';': case '=':
      return true;
    default:
      return false;
  }
}
// RFC 3987 ucschar and iprivate (iprivate is only allowed in the query; we
// accept it everywhere an IRI allows ucschar, as most validators do).
bool is_ucschar(char32_t c) {
  return (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFEF) ||
         (c >= 0xE000 && c <= 0xF8FF) || (c >= 0x10000 && c <= 0x10FFFD && (c & 0xFFFE) != 0xFFFE);
}

class UriParser {
 public:
  UriParser(std::u32string text, bool iri) : s_(std::move(text)), iri_(iri) {}

  bool parse(bool reference) {
    std::size_t scheme_end = scheme_length();
    if (scheme_end > 0) {
      pos_ = scheme_end + 1;  // past ':'
      return hier_part(false) && tail();
    }
    if (!reference) return false;
    return hier_part(true) && tail();
  }

 private:
  bool at_end() const { return pos_ >= s_.size(); }
  char32_t peek(std::size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : 0; }

  // Length of "scheme" when the text starts with `scheme ":"`, else 0.
  std::size_t scheme_length() const {
    if (s_.empty() || !is_alpha(s_[0])) return 0;
    std::size_t i = 1;
    while (i < s_.size() && (is_alpha(s_[i]) || is_digit(s_[i]) || s_[i] == '+' || s_[i] == '-' || s_[i] == '.')) ++i;
    return i < s_.size() && s_[i] == ':' ? i : 0;
  }

  // pct-encoded at pos_: advances and returns true when valid.
  bool pct_encoded() {
    if (peek() != '%') return false;
    if (!is_hex(peek(1)) || !is_hex(peek(2))) {
      bad_ = true;
      return false;
    }
    pos_ += 3;
    return true;
  }

  bool unreserved(char32_t c) const { return is_unreserved(c) || (iri_ && is_ucschar(c)); }

  // pchar = unreserved / pct-encoded / sub-delims / ":" / "@"
  bool pchar(bool allow_colon = true) {
    char32_t c = peek();
    if (at_end()) return false;
    if (c == '%') return pct_encoded();
    if (unreserved(c) || is_sub_delim(c) || c == '@' || (allow_colon && c == ':')) {
      ++pos_;
      return true;
    }
    return false;
  }

  void segment(bool allow_colon = true) {
    while (pchar(allow_colon)) {
    }
  }

  bool path_abempty() {
    while (peek() == '/' && !at_end()) {
      ++pos_;
      segment();
    }
    return !bad_;
  }

  bool hier_part(bool relative) {
    if (peek() == '/' && peek(1) == '/') {
      pos_ += 2;
      if (!authority()) return false;
      return path_abempty();
    }
    if (peek() == '/') return path_abempty();
    // path-rootless (URI) or path-noscheme (relative: no ':' in first segment)
    segment(!relative);
    if (bad_) return false;
    if (relative && peek() == ':') return false;
    return path_abempty();
  }

  bool authority() {
    // authority = [ userinfo "@" ] host [ ":" port ]; ends at / ? # or end.
    std::size_t end = pos_;
    while (end < s_.size() && s_[end] != '/' && s_[end] != '?' && s_[end] != '#') ++end;
    std::size_t at = std::u32string::npos;
    for (std::size_t i = pos_; i < end; ++i) {
      if (s_[i] == '@') {
        if (at != std::u32string::npos) return false;
        at = i;
      }
    }
    if (at != std::u32string::npos) {
      while (pos_ < at) {
        char32_t c = peek();
        if (c == '%') {
          if (!pct_encoded()) return false;
        } else if (unreserved(c) || is_sub_delim(c) || c == ':') {
          ++pos_;
        } else {
          return false;
        }
      }
      ++pos_;  // @
    }
    if (peek() == '[') {
      std::size_t close = pos_;
      while (close < end && s_[close] != ']') ++close;
      if (close >= end) return false;
      if (!ip_literal(pos_ + 1, close)) return false;
      pos_ = close + 1;
    } else {
      while (pos_ < end && peek() != ':') {
        char32_t c = peek();
        if (c == '%') {
          if (!pct_encoded()) return false;
        } else if (unreserved(c) || is_sub_delim(c)) {
          ++pos_;
        } else {
          return false;
        }
      }
    }
    if (pos_ < end && peek() == ':') {
      ++pos_;
      while (pos_ < end) {
        if (!is_digit(peek())) return false;
        ++pos_;
      }
    }
    return pos_ == end;
  }

  bool ip_literal(std::size_t begin, std::size_t end) const {
    std::string ascii;
    for (std::size_t i = begin; i < end; ++i) {
      if (s_[i] > 0x7F) return false;
      ascii.push_back(static_cast<char>(s_[i]));
    }
    if (!ascii.empty() && (ascii[0] == 'v' || ascii[0] == 'V')) {
      // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
      std::size_t i = 1;
      while (i < ascii.size() && is_hex(static_cast<unsigned char>(ascii[i]))) ++i;
      if (i == 1 || i >= ascii.size() || ascii[i] != '.') return false;
      ++i;
      if (i >= ascii.size()) return false;
      for (; i < ascii.size(); ++i) {
        char32_t c = static_cast<unsigned char>(ascii[i]);
        if (!is_unreserved(c) && !is_sub_delim(c) && c != ':') return false;
      }
      return true;
    }
    return is_ipv6(ascii);
  }

  // [ "?" query ] [ "#" fragment ], then the end.
  bool tail() {
    if (bad_) return false;
    if (peek() == '?' && !at_end()) {
      ++pos_;
      while (pchar() || ((peek() == '/' || peek() == '?') && !at_end() && ++pos_)) {
      }
      if (bad_) return false;
    }
    if (peek() == '#' && !at_end()) {
      ++pos_;
      while (pchar() || ((peek() == '/' || peek() == '?') && !at_end() && ++pos_)) {
      }
      if (bad_) return false;
    }
    return at_end();
  }

  std::u32string s_;
  bool iri_;
  std::size_t pos_ = 0;
  bool bad_ = false;
};

bool template_literal_ok(char32_t c) {
  // RFC 6570 literals, plus the apostrophe (erratum 6937; the test suite agrees).
  if (c <= 0x20 || c == 0x7F) return false;
  switch (c) {
    case '"': case '%': case '<': case '>': case '\\': case '^': case '`': case '{': case '|': case '}':
      return false;
    default:
      break;
  }
  if (c < 0x80) return true;
  return is_ucschar(c);
}

}  // namespace

bool is_uri(std::string_view s, bool iri, bool reference) {
  return UriParser(to_code_points(s), iri).parse(reference);
}

bool is_uri_template(std::string_view text) {
  std::u32string s = to_code_points(text);
  std::size_t pos = 0;
  auto pct = [&]() {
    if (pos + 2 < s.size() && is_hex(s[pos + 1]) && is_hex(s[pos + 2])) {
      pos += 3;
      return true;
    }
    return false;
  };
  while (pos < s.size()) {
    char32_t c = s[pos];
    if (c == '%') {
      if (!pct()) return false;
      continue;
    }
    if (c != '{') {
      if (!template_literal_ok(c)) return false;
      ++pos;
      continue;
    }
    ++pos;  // {
    if (pos < s.size()) {
      switch (s[pos]) {
        case '+': case '#': case '.': case '/': case ';': case '?': case '&':
          ++pos;
          break;
        default:
          break;
      }
    }
    while (true) {
      // varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded
      bool any = false;
      bool after_dot = false;
      while (pos < s.size()) {
        char32_t v = s[pos];
        if (is_alpha(v) || is_digit(v) || v == '_') {
          ++pos;
        } else if (v == '%') {
          if (!pct()) return false;
        } else if (v == '.' && any && !after_dot) {
          ++pos;
          after_dot = true;
          continue;
        } else {
          break;
        }
        any = true;
        after_dot = false;
      }
      if (!any || after_dot) return false;
      if (pos < s.size() && s[pos] == ':') {
        ++pos;
        std::size_t start = pos;
        while (pos < s.size() && is_digit(s[pos])) ++pos;
        std::size_t digits = pos - start;
        if (digits == 0 || digits > 4 || s[start] == '0') return false;
      } else if (pos < s.size() && s[pos] == '*') {
        ++pos;
      }
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == '}') {
        ++pos;
        break;
      }
      return false;
    }
  }
  return true;
}

}  // namespace weld::schema::format_detail
