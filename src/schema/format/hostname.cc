// hostname (RFC 1123 §2.1 + RFC 5890 A-labels) and idn-hostname (IDNA2008:
// RFC 5891 §5.4 label rules, RFC 5892 code point categories and contextual
// rules, RFC 5893 Bidi rule; label separators from UTS #46).
//
// IDNA2008's derived property table is approximated from Unicode general
// categories (which RE2 knows): PVALID = Ll Lo Lm Mn Mc Nd, plus the RFC 5892
// §2.6 exceptions; uppercase, symbols, punctuation, spaces and compatibility
// forms are DISALLOWED.

#include <algorithm>

#include "checks.h"
#include "weld/json/utf8.h"
#include "weld/schema/regex.h"

namespace weld::schema::format_detail {
namespace {

// Unicode classes the rules need, compiled once (immutable after init).
struct UnicodeClasses {
  Regex pvalid_category = must("^[\\p{Ll}\\p{Lo}\\p{Lm}\\p{Mn}\\p{Mc}\\p{Nd}]$");
  Regex mark = must("^\\p{M}$");
  Regex nsm = must("^[\\p{Mn}\\p{Me}]$");
  Regex greek = must("^\\p{Script=Greek}$");
  Regex hebrew = must("^\\p{Script=Hebrew}$");
  Regex japanese = must("^[\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Han}]$");
  Regex arabic_letter = must("^[\\p{Script=Arabic}\\p{Script=Syriac}\\p{Script=Nko}]$");

  static Regex must(const char* pattern) { return Regex::compile(pattern).value(); }
};

const UnicodeClasses& classes() {
  static const UnicodeClasses instance;
  return instance;
}

bool in(const Regex& re, char32_t cp) {
  std::string utf8;
  json::append_utf8(utf8, cp);
  return re.search(utf8) == Regex::Match::Yes;
}

bool is_virama(char32_t c) {
  static constexpr char32_t kViramas[] = {
      0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D3B, 0x0D3C, 0x0D4D, 0x0DCA,
      0x0E3A, 0x0EBA, 0x0F84, 0x1039, 0x103A, 0x1714, 0x1715, 0x1734, 0x17D2, 0x1A60, 0x1B44, 0x1BAA,
      0x1BAB, 0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA82C, 0xA8C4, 0xA953, 0xA9C0, 0xAAF6, 0xABED};
  return std::find(std::begin(kViramas), std::end(kViramas), c) != std::end(kViramas);
}

bool is_separator(char32_t c) { return c == '.' || c == 0x3002 || c == 0xFF0E || c == 0xFF61; }

enum class Bidi { L, R, AL, AN, EN, NSM, Other };

Bidi bidi_class(char32_t c) {
  if (c >= '0' && c <= '9') return Bidi::EN;
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? Bidi::L : Bidi::Other;
  if (c == 0x200C || c == 0x200D) return Bidi::Other;  // BN
  if (in(classes().nsm, c)) return Bidi::NSM;
  if (c >= 0x06F0 && c <= 0x06F9) return Bidi::EN;
  if ((c >= 0x0600 && c <= 0x0605) || (c >= 0x0660 && c <= 0x0669) || c == 0x066B || c == 0x066C || c == 0x06DD ||
      c == 0x08E2) {
    return Bidi::AN;
  }
  if ((c >= 0x0590 && c <= 0x05FF) || (c >= 0x07C0 && c <= 0x085F) || (c >= 0xFB1D && c <= 0xFB4F)) return Bidi::R;
  if ((c >= 0x0600 && c <= 0x07BF) || (c >= 0x0860 && c <= 0x08FF) || (c >= 0xFB50 && c <= 0xFDFF) ||
      (c >= 0xFE70 && c <= 0xFEFF)) {
    return Bidi::AL;
  }
  return Bidi::L;
}

// RFC 5893 §2, for one label of a Bidi domain name.
bool bidi_rule_ok(const std::u32string& label) {
  if (label.empty()) return false;
  Bidi first = bidi_class(label[0]);
  if (first != Bidi::L && first != Bidi::R && first != Bidi::AL) return false;
  std::size_t end = label.size();
  while (end > 0 && bidi_class(label[end - 1]) == Bidi::NSM) --end;
  if (end == 0) return false;
  Bidi last = bidi_class(label[end - 1]);
  if (first == Bidi::L) {
    for (char32_t c : label) {
      Bidi b = bidi_class(c);
      if (b == Bidi::R || b == Bidi::AL || b == Bidi::AN) return false;
    }
    return last == Bidi::L || last == Bidi::EN;
  }
  bool has_en = false, has_an = false;
  for (char32_t c : label) {
    Bidi b = bidi_class(c);
    if (b == Bidi::L) return false;
    has_en = has_en || b == Bidi::EN;
    has_an = has_an || b == Bidi::AN;
  }
  if (has_en && has_an) return false;
  return last == Bidi::R || last == Bidi::AL || last == Bidi::EN || last == Bidi::AN;
}

bool is_ascii_ldh(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

// RFC 5892 §2.6 exceptions and the CONTEXTO / CONTEXTJ rules (Appendix A).
bool code_point_ok(const std::u32string& label, std::size_t index) {
  char32_t c = label[index];
  if (c < 0x80) return is_ascii_ldh(c) && !(c >= 'A' && c <= 'Z');
  switch (c) {
    case 0x00DF: case 0x03C2: case 0x06FD: case 0x06FE: case 0x0F0B: case 0x3007:
      return true;  // PVALID exceptions
    case 0x0640: case 0x07FA: case 0x302E: case 0x302F: case 0x3031: case 0x3032: case 0x3033: case 0x3034:
    case 0x3035: case 0x303B:
      return false;  // DISALLOWED exceptions
    case 0x00B7:  // MIDDLE DOT: between two 'l'
      return index > 0 && index + 1 < label.size() && label[index - 1] == 'l' && label[index + 1] == 'l';
    case 0x0375:  // GREEK LOWER NUMERAL SIGN: followed by Greek
      return index + 1 < label.size() && in(classes().greek, label[index + 1]);
    case 0x05F3: case 0x05F4:  // HEBREW GERESH / GERSHAYIM: preceded by Hebrew
      return index > 0 && in(classes().hebrew, label[index - 1]);
    case 0x30FB:  // KATAKANA MIDDLE DOT: some Hiragana, Katakana or Han in the label
      for (char32_t other : label) {
        if (other != 0x30FB && in(classes().japanese, other)) return true;
      }
      return false;
    case 0x200D:  // ZERO WIDTH JOINER: after a virama
      return index > 0 && is_virama(label[index - 1]);
    case 0x200C: {  // ZERO WIDTH NON-JOINER: after a virama, or between joining letters
      if (index > 0 && is_virama(label[index - 1])) return true;
      std::size_t before = index;
      while (before > 0 && in(classes().nsm, label[before - 1])) --before;
      std::size_t after = index + 1;
      while (after < label.size() && in(classes().nsm, label[after])) ++after;
      return before > 0 && after < label.size() && in(classes().arabic_letter, label[before - 1]) &&
             in(classes().arabic_letter, label[after]);
    }
    default:
      break;
  }
  if (c >= 0x0660 && c <= 0x0669) {
    return std::none_of(label.begin(), label.end(), [](char32_t o) { return o >= 0x06F0 && o <= 0x06F9; });
  }
  if (c >= 0x06F0 && c <= 0x06F9) {
    return std::none_of(label.begin(), label.end(), [](char32_t o) { return o >= 0x0660 && o <= 0x0669; });
  }
  if (c >= 0xFF00 && c <= 0xFFEF) return false;  // half/full-width compatibility forms
  return in(classes().pvalid_category, c);
}

// RFC 5891 §5.4 for a U-label (code points, already lower-case ASCII).
bool u_label_ok(const std::u32string& label) {
  if (label.empty()) return false;
  if (label.front() == '-' || label.back() == '-') return false;
  if (label.size() >= 4 && label[2] == '-' && label[3] == '-') return false;
  if (in(classes().mark, label[0])) return false;
  for (std::size_t i = 0; i < label.size(); ++i) {
    if (!code_point_ok(label, i)) return false;
  }
  return true;
}

std::u32string lower_ascii(std::u32string s) {
  for (char32_t& c : s) {
    if (c >= 'A' && c <= 'Z') c = c - 'A' + 'a';
  }
  return s;
}

bool is_ascii(const std::u32string& s) {
  return std::all_of(s.begin(), s.end(), [](char32_t c) { return c < 0x80; });
}

// One label: appends its U-label form to `unicode` and returns its A-label
// length (0 when invalid).
std::size_t check_label(const std::u32string& raw, bool allow_unicode, std::u32string& unicode) {
  // An A-label has at most 63 octets, so a longer label can never be valid;
  // refusing it early also keeps Punycode (quadratic) off long input.
  if (raw.empty() || raw.size() > 63) return 0;
  std::u32string label = lower_ascii(raw);
  if (is_ascii(label)) {
    if (!std::all_of(label.begin(), label.end(), is_ascii_ldh)) return 0;
    if (label.size() > 63 || label.front() == '-' || label.back() == '-') return 0;
    bool ace = label.size() >= 4 && label[0] == 'x' && label[1] == 'n' && label[2] == '-' && label[3] == '-';
    if (!ace) {
      if (label.size() >= 4 && label[2] == '-' && label[3] == '-') return 0;  // reserved R-LDH label
      unicode = label;
      return label.size();
    }
    std::string payload(label.begin() + 4, label.end());
    std::u32string decoded;
    if (!punycode_decode(payload, decoded) || decoded.empty() || is_ascii(decoded)) return 0;
    if (punycode_encode(decoded) != payload) return 0;  // not canonical
    if (!u_label_ok(decoded)) return 0;
    unicode = decoded;
    return label.size();
  }
  if (!allow_unicode) return 0;
  if (!u_label_ok(label)) return 0;
  std::string ace = "xn--" + punycode_encode(label);
  if (ace.size() > 63) return 0;
  unicode = label;
  return ace.size();
}

bool check_domain(std::string_view s, bool allow_unicode) {
  std::u32string text = to_code_points(s);
  if (text.empty()) return false;
  std::vector<std::u32string> labels(1);
  for (char32_t c : text) {
    if (is_separator(c) && (allow_unicode || c == '.')) {
      labels.emplace_back();
    } else {
      labels.back().push_back(c);
    }
  }
  std::size_t total = labels.size() - 1;  // separators
  std::vector<std::u32string> unicode_labels;
  bool bidi_domain = false;
  for (const std::u32string& raw : labels) {
    std::u32string unicode;
    std::size_t length = check_label(raw, allow_unicode, unicode);
    if (length == 0) return false;
    total += length;
    for (char32_t c : unicode) {
      Bidi b = bidi_class(c);
      bidi_domain = bidi_domain || b == Bidi::R || b == Bidi::AL || b == Bidi::AN;
    }
    unicode_labels.push_back(std::move(unicode));
  }
  if (total > 253) return false;
  if (bidi_domain) {
    for (const std::u32string& label : unicode_labels) {
      if (!bidi_rule_ok(label)) return false;
    }
  }
  return true;
}

}  // namespace

std::u32string to_code_points(std::string_view s) {
  std::u32string out;
  std::size_t i = 0;
  while (i < s.size()) out.push_back(json::decode_utf8(s, i));
  return out;
}

bool is_hostname(std::string_view s) { return check_domain(s, false); }

bool is_rfc1123_hostname(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    std::size_t end = s.find('.', start);
    std::string_view label = s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!is_ascii_ldh(static_cast<unsigned char>(c))) return false;
    }
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

bool is_idn_hostname(std::string_view s) { return check_domain(s, true); }

}  // namespace weld::schema::format_detail
