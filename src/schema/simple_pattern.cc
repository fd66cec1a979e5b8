// See simple_pattern.h. ECMAScript semantics on ASCII: `.` is any character
// but \n and \r, `\w` is [A-Za-z0-9_], `\s` on ASCII is [\t\n\v\f\r ].
#include "simple_pattern.h"

#include <limits>

namespace weld::schema {
namespace {

using Bits = std::uint64_t[2];

void set(Bits& b, unsigned c) { b[c >> 6] |= 1ull << (c & 63); }
bool test(const std::uint64_t* b, unsigned c) { return (b[c >> 6] >> (c & 63)) & 1; }
void set_range(Bits& b, unsigned lo, unsigned hi) {
  for (unsigned c = lo; c <= hi && c < 128; ++c) set(b, c);
}
void add_class_escape(Bits& b, char e, bool& ok) {
  Bits tmp = {0, 0};
  switch (e) {
    case 'w': case 'W': set_range(tmp, 'a', 'z'); set_range(tmp, 'A', 'Z'); set_range(tmp, '0', '9'); set(tmp, '_'); break;
    case 'd': case 'D': set_range(tmp, '0', '9'); break;
    case 's': case 'S': for (unsigned c : {9u, 10u, 11u, 12u, 13u, 32u}) set(tmp, c); break;
    default: ok = false; return;
  }
  if (e == 'W' || e == 'D' || e == 'S') {
    tmp[0] = ~tmp[0];
    tmp[1] = ~tmp[1];
  }
  b[0] |= tmp[0];
  b[1] |= tmp[1];
}

bool is_syntax_escape(char c) {
  return std::string_view("^$\\.*+?()[]{}|/-").find(c) != std::string_view::npos;
}

// Parses one atom at p[i]; fills bits. Returns false when not simple.
bool parse_atom(std::string_view p, std::size_t& i, Bits& bits) {
  if (i >= p.size()) return false;
  char c = p[i];
  if (c == '.') {
    set_range(bits, 0, 127);
    bits[0] &= ~((1ull << 10) | (1ull << 13));
    ++i;
    return true;
  }
  if (c == '\\') {
    if (i + 1 >= p.size()) return false;
    char e = p[i + 1];
    bool ok = true;
    if (std::string_view("wWdDsS").find(e) != std::string_view::npos) {
      add_class_escape(bits, e, ok);
    } else if (is_syntax_escape(e)) {
      set(bits, static_cast<unsigned char>(e));
    } else {
      return false;
    }
    i += 2;
    return ok;
  }
  if (c != '[') {
    if (static_cast<unsigned char>(c) >= 128 || std::string_view("^$.*+?()[]{}|").find(c) != std::string_view::npos) {
      return false;
    }
    set(bits, static_cast<unsigned char>(c));
    ++i;
    return true;
  }
  ++i;
  bool negate = false;
  if (i < p.size() && p[i] == '^') {
    negate = true;
    ++i;
  }
  Bits cls = {0, 0};
  bool first = true;
  while (i < p.size() && (p[i] != ']' || first)) {
    if (p[i] == ']' && first) return false;  // "[]" / "[^]": leave to the engine
    first = false;
    unsigned lo;
    if (p[i] == '\\') {
      if (i + 1 >= p.size()) return false;
      char e = p[i + 1];
      if (std::string_view("wWdDsS").find(e) != std::string_view::npos) {
        bool ok = true;
        add_class_escape(cls, e, ok);
        if (!ok) return false;
        i += 2;
        continue;
      }
      if (!is_syntax_escape(e)) return false;
      lo = static_cast<unsigned char>(e);
      i += 2;
    } else if (p[i] == '[') {
      return false;
    } else {
      lo = static_cast<unsigned char>(p[i]);
      ++i;
    }
    if (lo >= 128) return false;
    if (i + 1 < p.size() && p[i] == '-' && p[i + 1] != ']') {
      unsigned hi;
      if (p[i + 1] == '\\') {
        if (i + 2 >= p.size() || !is_syntax_escape(p[i + 2])) return false;
        hi = static_cast<unsigned char>(p[i + 2]);
        i += 3;
      } else {
        hi = static_cast<unsigned char>(p[i + 1]);
        i += 2;
      }
      if (hi >= 128 || hi < lo) return false;
      set_range(cls, lo, hi);
    } else {
      set(cls, lo);
    }
  }
  if (i >= p.size()) return false;
  ++i;  // ']'
  if (negate) {
    cls[0] = ~cls[0];
    cls[1] = ~cls[1];
  }
  bits[0] |= cls[0];
  bits[1] |= cls[1];
  return true;
}

bool is_quantifier(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

bool parse_number(std::string_view p, std::size_t& i, std::uint32_t& out) {
  std::size_t start = i;
  std::uint64_t v = 0;
  while (i < p.size() && p[i] >= '0' && p[i] <= '9' && i - start < 9) v = v * 10 + static_cast<unsigned>(p[i++] - '0');
  out = static_cast<std::uint32_t>(v);
  return i > start;
}

}  // namespace

std::optional<SimplePattern> parse_simple_pattern(std::string_view p) {
  SimplePattern sp;
  if (p.size() >= 2 && p.front() == '(' && p.back() == ')' && p[1] != '?' &&
      p.substr(1, p.size() - 2).find_first_of("()|") == std::string_view::npos) {
    p = p.substr(1, p.size() - 2);
  }
  if (!p.empty() && p.front() == '^') {
    sp.anchored_start = true;
    p.remove_prefix(1);
  }
  if (!p.empty() && p.back() == '$' && (p.size() < 2 || p[p.size() - 2] != '\\')) {
    sp.anchored_end = true;
    p.remove_suffix(1);
  }
  // A literal: no metacharacters (escaped punctuation allowed).
  std::string literal;
  bool is_literal = true;
  for (std::size_t i = 0; i < p.size() && is_literal; ++i) {
    char c = p[i];
    if (static_cast<unsigned char>(c) >= 128) {
      is_literal = false;
    } else if (c == '\\') {
      if (i + 1 < p.size() && is_syntax_escape(p[i + 1])) {
        literal += p[++i];
      } else {
        is_literal = false;
      }
    } else if (std::string_view("^$.*+?()[]{}|").find(c) != std::string_view::npos) {
      is_literal = false;
    } else {
      literal += c;
    }
  }
  if (is_literal) {
    sp.kind = SimplePattern::Kind::Literal;
    sp.literal = std::move(literal);
    return sp;
  }
  std::size_t i = 0;
  Bits bits = {0, 0};
  if (!parse_atom(p, i, bits)) return std::nullopt;
  // Anchored at the start, atoms without a quantifier followed by more
  // pattern are the prefix: one character each.
  while (sp.anchored_start && i < p.size() && !is_quantifier(p[i])) {
    sp.prefix.push_back({bits[0], bits[1]});
    bits[0] = bits[1] = 0;
    if (!parse_atom(p, i, bits)) return std::nullopt;
  }
  sp.bits[0] = bits[0];
  sp.bits[1] = bits[1];
  if (i < p.size()) {
    char q = p[i];
    if (q == '*') {
      sp.min = 0;
      sp.max = std::numeric_limits<std::uint32_t>::max();
      ++i;
    } else if (q == '+') {
      sp.min = 1;
      sp.max = std::numeric_limits<std::uint32_t>::max();
      ++i;
    } else if (q == '?') {
      sp.min = 0;
      sp.max = 1;
      ++i;
    } else if (q == '{') {
      ++i;
      if (!parse_number(p, i, sp.min)) return std::nullopt;
      sp.max = sp.min;
      if (i < p.size() && p[i] == ',') {
        ++i;
        sp.max = std::numeric_limits<std::uint32_t>::max();
        if (i < p.size() && p[i] != '}' && !parse_number(p, i, sp.max)) return std::nullopt;
      }
      if (i >= p.size() || p[i] != '}' || sp.max < sp.min) return std::nullopt;
      ++i;
    }
    if (i < p.size() && p[i] == '?') return std::nullopt;  // lazy: same verdict, but keep it simple
  }
  // Anchored at the end, atoms without a quantifier after the repeated
  // class are the suffix: one character each, at the end.
  while (sp.anchored_end && i < p.size()) {
    Bits suffix = {0, 0};
    if (!parse_atom(p, i, suffix)) return std::nullopt;
    if (i < p.size() && is_quantifier(p[i])) return std::nullopt;
    sp.suffix.push_back({suffix[0], suffix[1]});
  }
  if (i != p.size()) return std::nullopt;
  sp.kind = SimplePattern::Kind::Class;
  sp.has_affixes = !sp.prefix.empty() || !sp.suffix.empty();
  sp.dot = sp.bits[0] == ~((1ull << '\n') | (1ull << '\r')) && sp.bits[1] == ~0ull;
  return sp;
}

namespace {

bool ascii(char c) { return static_cast<unsigned char>(c) < 128; }

/// A Kind::Class pattern's repeated class on s (its prefix and suffix, if
/// any, already matched and removed). A class counts code points: only the
/// bytes read are checked for ASCII, and a non-ASCII one leaves the
/// decision to the engine. A subject with fewer bytes than `min` has fewer
/// code points too.
__attribute__((always_inline)) inline int match_class(const SimplePattern& sp, std::string_view s) {
  auto in = [&](char c) { return test(sp.bits, static_cast<unsigned char>(c)); };
  const std::size_t n = s.size();
  if (n < sp.min && (sp.anchored_start || sp.anchored_end)) return 0;
  if (sp.anchored_start && sp.anchored_end) {
    std::size_t at = 0;
    if (sp.dot) {
      // Eight bytes at a time: a line break anywhere refuses (`.` matches
      // no \n or \r, whatever else the text holds), a non-ASCII byte
      // leaves the text to the engine.
      constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
      auto has_byte = [](std::uint64_t x, unsigned char b) {
        const std::uint64_t v = x ^ (kOnes * b);
        return ((v - kOnes) & ~v & kHigh) != 0;
      };
      for (; at + 8 <= n; at += 8) {
        std::uint64_t x;
        __builtin_memcpy(&x, s.data() + at, 8);
        if (has_byte(x, '\n') || has_byte(x, '\r')) return 0;
        if (x & kHigh) return -1;
      }
    }
    for (; at < n; ++at) {
      if (!ascii(s[at])) return -1;
      if (!in(s[at])) return 0;
    }
    return n <= sp.max;
  }
  if (sp.min == 0) return 1;
  if (sp.anchored_start || sp.anchored_end) {
    const std::size_t from = sp.anchored_start ? 0 : n - sp.min;
    for (std::size_t k = from; k < from + sp.min; ++k) {
      if (!ascii(s[k])) return -1;
      if (!in(s[k])) return 0;
    }
    return 1;
  }
  std::size_t run = 0;
  for (char c : s) {
    if (!ascii(c)) return -1;
    run = in(c) ? run + 1 : 0;
    if (run >= sp.min) return 1;
  }
  return 0;
}

/// A Kind::Class pattern with a prefix (anchored at the start: one
/// character per prefix class, the class's run anchored where the prefix
/// ends) or a suffix (the same from the end: ASCII bytes are whole
/// characters, so the last bytes are the last characters).
int match_affixes(const SimplePattern& sp, std::string_view s) {
  // 1 when each byte from `text` on is ASCII and in its class, in order.
  auto run = [](const std::vector<std::array<std::uint64_t, 2>>& classes, const char* text) {
    for (std::size_t at = 0; at < classes.size(); ++at) {
      if (!ascii(text[at])) return -1;
      if (!test(classes[at].data(), static_cast<unsigned char>(text[at]))) return 0;
    }
    return 1;
  };
  const std::size_t before = sp.prefix.size(), after = sp.suffix.size();
  if (s.size() < before + after) return 0;
  if (int r = run(sp.prefix, s.data()); r != 1) return r;
  if (int r = run(sp.suffix, s.data() + s.size() - after); r != 1) return r;
  return match_class(sp, s.substr(before, s.size() - before - after));
}

}  // namespace

int match_simple_pattern(const SimplePattern& sp, std::string_view s) {
  if (sp.kind == SimplePattern::Kind::Literal) {
    // Bytes decide: a UTF-8 text holds a literal as a substring exactly
    // when it holds its code points as one (no byte of a multi-byte
    // character is ASCII).
    const std::string& lit = sp.literal;
    if (sp.anchored_start && sp.anchored_end) return s == lit;
    if (sp.anchored_start) return s.substr(0, lit.size()) == lit;
    if (sp.anchored_end) return s.size() >= lit.size() && s.substr(s.size() - lit.size()) == lit;
    return s.find(lit) != std::string_view::npos;
  }
  return sp.has_affixes ? match_affixes(sp, s) : match_class(sp, s);
}

}  // namespace weld::schema
