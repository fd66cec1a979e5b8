#include "weld/json/utf8.h"

namespace weld::json {

std::size_t count_code_points(std::string_view s) {
  std::size_t count = 0;
  for (unsigned char c : s) count += (c & 0xC0) != 0x80;
  return count;
}

// Table-free validation following RFC 3629 §4 (rejects overlongs and
// surrogates).
bool is_valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    const std::size_t len = utf8_sequence_length(p, end);
    if (len == 0) return false;
    p += len;
  }
  return true;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

char32_t decode_utf8(std::string_view s, std::size_t& i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) { ++i; return c; }
  std::size_t need = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (need == 0 || i + need >= s.size()) { ++i; return 0xFFFD; }
  char32_t cp = c & (0x3F >> need);
  for (std::size_t k = 1; k <= need; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) { ++i; return 0xFFFD; }
    cp = (cp << 6) | (cc & 0x3F);
  }
  i += need + 1;
  return cp;
}

std::string_view utf8_prefix(std::string_view s, std::size_t max_code_points) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (count == max_code_points) return s.substr(0, i);
      ++count;
    }
  }
  return s;
}

namespace {

// Four hex digits at text[pos]; moves pos past them, or to the bad digit.
EscapeError read_hex4(std::string_view text, std::size_t& pos, unsigned& out) {
  if (pos + 4 > text.size()) {
    pos = text.size();
    return EscapeError::Truncated;
  }
  out = 0;
  for (int k = 0; k < 4; ++k, ++pos) {
    char c = text[pos];
    unsigned digit;
    if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
    else return EscapeError::BadHex;
    out = out * 16 + digit;
  }
  return EscapeError::None;
}

}  // namespace

EscapeError decode_escape(std::string_view text, std::size_t& pos, std::string& out) {
  if (pos >= text.size()) return EscapeError::Truncated;
  char e = text[pos++];
  switch (e) {
    case '"': out.push_back('"'); return EscapeError::None;
    case '\\': out.push_back('\\'); return EscapeError::None;
    case '/': out.push_back('/'); return EscapeError::None;
    case 'b': out.push_back('\b'); return EscapeError::None;
    case 'f': out.push_back('\f'); return EscapeError::None;
    case 'n': out.push_back('\n'); return EscapeError::None;
    case 'r': out.push_back('\r'); return EscapeError::None;
    case 't': out.push_back('\t'); return EscapeError::None;
    case 'u': break;
    default: --pos; return EscapeError::Unknown;
  }
  unsigned cp;
  if (EscapeError error = read_hex4(text, pos, cp); error != EscapeError::None) return error;
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (text.substr(pos, 2) != "\\u") return EscapeError::LoneSurrogate;
    pos += 2;
    unsigned low;
    if (EscapeError error = read_hex4(text, pos, low); error != EscapeError::None) return error;
    if (low < 0xDC00 || low > 0xDFFF) return EscapeError::LoneSurrogate;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
    return EscapeError::LoneSurrogate;
  }
  append_utf8(out, static_cast<char32_t>(cp));
  return EscapeError::None;
}

}  // namespace weld::json
