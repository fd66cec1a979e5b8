// A small generator for the regular-expression constructs that real schemas
// use (identifiers, version numbers, dates, enumerated alternatives). It
// parses the pattern into a tree and walks it with the PRNG. It does not
// decide matching: the sampler validates every instance with the schema
// engine and retries.

#include "pattern_gen.h"

#include <utility>
#include <vector>

#include "weld/json/utf8.h"

namespace weld::sample {
namespace {

constexpr std::size_t kMaxOutput = 4096;
constexpr int kMaxNesting = 64;
constexpr int kMaxRepeat = 256;
constexpr int kUnbounded = -1;
constexpr std::size_t kMaxSteps = 100000;

struct Range {
  char32_t lo, hi;
};

struct Node;
using Sequence = std::vector<Node>;

struct Node {
  enum class Kind { Char, Class, Any, Group, Backref, Empty };
  Kind kind = Kind::Empty;
  char32_t ch = 0;
  std::vector<Range> ranges;
  bool negated = false;
  std::vector<Sequence> alternatives;
  int capture = -1;  // capture group number (1-based) or -1
  int min = 1, max = 1;
};

void add_class_escape(char e, std::vector<Range>& ranges) {
  switch (e) {
    case 'd': ranges.push_back({'0', '9'}); break;
    case 'D': ranges.push_back({0x20, 0x2F}); ranges.push_back({0x3A, 0x7E}); break;
    case 'w': ranges.push_back({'a', 'z'}); ranges.push_back({'A', 'Z'}); ranges.push_back({'0', '9'});
              ranges.push_back({'_', '_'}); break;
    case 'W': ranges.push_back({0x20, 0x2F}); ranges.push_back({0x3A, 0x40}); ranges.push_back({0x5B, 0x5E});
              ranges.push_back({0x60, 0x60}); ranges.push_back({0x7B, 0x7E}); break;
    case 's': ranges.push_back({' ', ' '}); break;
    case 'S': ranges.push_back({0x21, 0x7E}); break;
    default: break;
  }
}

class PatternParser {
 public:
  explicit PatternParser(std::string_view p) : p_(p) {}

  bool parse(std::vector<Sequence>& out) {
    if (!parse_alternation(out, 0)) return false;
    return pos_ == p_.size();
  }

 private:
  bool done() const { return pos_ >= p_.size(); }
  char peek() const { return p_[pos_]; }

  char32_t next_code_point() {
    std::size_t i = pos_;
    char32_t cp = json::decode_utf8(p_, i);
    pos_ = i;
    return cp;
  }

  bool parse_alternation(std::vector<Sequence>& out, int depth) {
    if (depth > kMaxNesting) return false;
    out.emplace_back();
    while (!done()) {
      char c = peek();
      if (c == ')') return true;
      if (c == '|') {
        ++pos_;
        out.emplace_back();
        continue;
      }
      Node node;
      if (!parse_atom(node, depth)) return false;
      if (!parse_quantifier(node)) return false;
      out.back().push_back(std::move(node));
    }
    return true;
  }

  bool parse_number(int& out) {
    std::size_t start = pos_;
    long long value = 0;
    while (!done() && peek() >= '0' && peek() <= '9') {
      value = value * 10 + (peek() - '0');
      if (value > 1000000) value = 1000000;
      ++pos_;
    }
    out = static_cast<int>(value);
    return pos_ > start;
  }

  bool parse_quantifier(Node& node) {
    if (done()) return true;
    char c = peek();
    int min = 1, max = 1;
    if (c == '*') { min = 0; max = kUnbounded; ++pos_; }
    else if (c == '+') { min = 1; max = kUnbounded; ++pos_; }
    else if (c == '?') { min = 0; max = 1; ++pos_; }
    else if (c == '{') {
      std::size_t save = pos_;
      ++pos_;
      int lo = 0, hi = 0;
      if (!parse_number(lo)) { pos_ = save; return true; }  // a literal '{' (Annex B)
      if (!done() && peek() == ',') {
        ++pos_;
        if (!parse_number(hi)) hi = kUnbounded;
      } else {
        hi = lo;
      }
      if (done() || peek() != '}') { pos_ = save; return true; }
      ++pos_;
      if (hi != kUnbounded && hi < lo) return false;
      min = lo;
      max = hi;
    } else {
      return true;
    }
    if (min > kMaxRepeat) return false;
    if (!done() && peek() == '?') ++pos_;  // lazy: same strings
    if (node.kind == Node::Kind::Empty) return true;  // e.g. ^* : nothing to repeat
    node.min = min;
    node.max = max;
    return true;
  }

  bool parse_escape_in_class(std::vector<Range>& ranges, char32_t& single) {
    // Returns true with `single` set for a one-character escape, or with
    // ranges added (single = 0xFFFFFFFF) for a class escape.
    if (done()) return false;
    char e = peek();
    ++pos_;
    single = 0xFFFFFFFF;
    switch (e) {
      case 'd': case 'D': case 'w': case 'W': case 's': case 'S': add_class_escape(e, ranges); return true;
      case 'p': case 'P': {
        if (!done() && peek() == '{') {
          while (!done() && peek() != '}') ++pos_;
          if (!done()) ++pos_;
        }
        if (e == 'p') ranges.push_back({'a', 'z'});
        else ranges.push_back({'0', '9'});
        return true;
      }
      case 't': single = '\t'; return true;
      case 'n': single = '\n'; return true;
      case 'r': single = '\r'; return true;
      case 'f': single = '\f'; return true;
      case 'v': single = '\v'; return true;
      case 'b': single = '\b'; return true;
      case '0': single = 0; return true;
      case 'c': {
        if (done()) return false;
        single = static_cast<char32_t>(peek() & 0x1F);
        ++pos_;
        return true;
      }
      case 'x': return parse_hex(2, single);
      case 'u': {
        if (!done() && peek() == '{') {
          ++pos_;
          char32_t cp = 0;
          int digits = 0;
          while (!done() && peek() != '}') {
            int h = hex_value(peek());
            if (h < 0 || ++digits > 6) return false;
            cp = cp * 16 + static_cast<char32_t>(h);
            ++pos_;
          }
          if (done() || digits == 0) return false;
          ++pos_;
          single = cp;
          return cp <= 0x10FFFF;
        }
        return parse_hex(4, single);
      }
      default:
        --pos_;
        single = next_code_point();
        return true;
    }
  }

  static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool parse_hex(int digits, char32_t& out) {
    out = 0;
    for (int i = 0; i < digits; ++i) {
      if (done()) return false;
      int h = hex_value(peek());
      if (h < 0) return false;
      out = out * 16 + static_cast<char32_t>(h);
      ++pos_;
    }
    return true;
  }

  bool parse_class(Node& node) {
    node.kind = Node::Kind::Class;
    if (!done() && peek() == '^') {
      node.negated = true;
      ++pos_;
    }
    while (true) {
      if (done()) return false;
      if (peek() == ']') {
        ++pos_;
        return true;
      }
      char32_t lo;
      if (peek() == '\\') {
        ++pos_;
        if (!parse_escape_in_class(node.ranges, lo)) return false;
        if (lo == 0xFFFFFFFF) continue;
      } else {
        lo = next_code_point();
      }
      if (pos_ + 1 < p_.size() && peek() == '-' && p_[pos_ + 1] != ']') {
        ++pos_;
        char32_t hi;
        if (peek() == '\\') {
          ++pos_;
          if (!parse_escape_in_class(node.ranges, hi)) return false;
          if (hi == 0xFFFFFFFF) {  // [a-\d]: '-' is literal
            node.ranges.push_back({lo, lo});
            node.ranges.push_back({'-', '-'});
            continue;
          }
        } else {
          hi = next_code_point();
        }
        if (hi < lo) return false;
        node.ranges.push_back({lo, hi});
      } else {
        node.ranges.push_back({lo, lo});
      }
    }
  }

  bool parse_atom(Node& node, int depth) {
    char c = peek();
    switch (c) {
      case '(': {
        ++pos_;
        node.kind = Node::Kind::Group;
        bool discard = false;
        if (!done() && peek() == '?') {
          ++pos_;
          if (done()) return false;
          char k = peek();
          if (k == ':') {
            ++pos_;
          } else if (k == '=' || k == '!') {
            ++pos_;
            discard = true;
          } else if (k == '<') {
            ++pos_;
            if (!done() && (peek() == '=' || peek() == '!')) {
              ++pos_;
              discard = true;
            } else {
              while (!done() && peek() != '>') ++pos_;
              if (done()) return false;
              ++pos_;
              node.capture = ++captures_;
            }
          } else {
            return false;
          }
        } else {
          node.capture = ++captures_;
        }
        if (!parse_alternation(node.alternatives, depth + 1)) return false;
        if (done() || peek() != ')') return false;
        ++pos_;
        if (discard) {
          node = Node{};  // look-around: generates nothing
          node.kind = Node::Kind::Empty;
        }
        return true;
      }
      case '[': ++pos_; return parse_class(node);
      case '.': ++pos_; node.kind = Node::Kind::Any; return true;
      case '^': case '$': ++pos_; node.kind = Node::Kind::Empty; return true;
      case '*': case '+': case '?': return false;  // nothing to repeat
      case '\\': {
        ++pos_;
        if (done()) return false;
        char e = peek();
        if (e == 'b' || e == 'B') {
          ++pos_;
          node.kind = Node::Kind::Empty;
          return true;
        }
        if (e >= '1' && e <= '9') {
          int n = 0;
          parse_number(n);
          node.kind = Node::Kind::Backref;
          node.capture = n;
          return true;
        }
        if (e == 'k') {  // \k<name>: named back-reference, approximated by nothing
          while (!done() && peek() != '>') ++pos_;
          if (!done()) ++pos_;
          node.kind = Node::Kind::Empty;
          return true;
        }
        char32_t single;
        if (!parse_escape_in_class(node.ranges, single)) return false;
        if (single == 0xFFFFFFFF) {
          node.kind = Node::Kind::Class;
        } else {
          node.kind = Node::Kind::Char;
          node.ch = single;
        }
        return true;
      }
      default:
        node.kind = Node::Kind::Char;
        node.ch = next_code_point();
        return true;
    }
  }

  std::string_view p_;
  std::size_t pos_ = 0;
  int captures_ = 0;
};

class Emitter {
 public:
  Emitter(Prng& rng, int extra) : rng_(rng), extra_(extra) {}

  bool emit_alternatives(const std::vector<Sequence>& alternatives, std::string& out) {
    if (alternatives.empty()) return true;
    const Sequence& chosen = alternatives[rng_.below(alternatives.size())];
    for (const Node& node : chosen) {
      if (!emit_repeated(node, out)) return false;
    }
    return true;
  }

 private:
  bool emit_repeated(const Node& node, std::string& out) {
    int max = node.max == kUnbounded ? node.min + extra_ : std::min(node.max, node.min + extra_ + 5);
    int count = node.min + static_cast<int>(rng_.below(static_cast<std::uint64_t>(max - node.min + 1)));
    for (int i = 0; i < count; ++i) {
      if (!emit(node, out)) return false;
      if (out.size() > kMaxOutput) return false;
    }
    return true;
  }

  static bool printable(char32_t cp) { return cp >= 0x20 && cp != 0x7F && !(cp >= 0xD800 && cp <= 0xDFFF); }

  bool emit_class(const Node& node, std::string& out) {
    if (node.negated) {
      // A printable ASCII character outside the ranges.
      std::uint64_t start = rng_.below(95);
      for (std::uint64_t k = 0; k < 95; ++k) {
        char32_t cp = static_cast<char32_t>(0x20 + (start + k) % 95);
        bool inside = false;
        for (const Range& r : node.ranges) inside = inside || (cp >= r.lo && cp <= r.hi);
        if (!inside) {
          json::append_utf8(out, cp);
          return true;
        }
      }
      return false;
    }
    if (node.ranges.empty()) return false;  // [] matches nothing
    // Prefer ranges with printable characters.
    for (int attempt = 0; attempt < 8; ++attempt) {
      const Range& r = node.ranges[rng_.below(node.ranges.size())];
      char32_t cp = r.lo + static_cast<char32_t>(rng_.below(static_cast<std::uint64_t>(r.hi - r.lo) + 1));
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = r.lo;
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      if (printable(cp) || attempt == 7) {
        json::append_utf8(out, cp);
        return true;
      }
    }
    json::append_utf8(out, node.ranges.front().lo);
    return true;
  }

  bool emit(const Node& node, std::string& out) {
    // Bounded work: nested repeats of empty groups produce no output but
    // could otherwise loop for billions of steps.
    if (++steps_ > kMaxSteps) return false;
    switch (node.kind) {
      case Node::Kind::Empty: return true;
      case Node::Kind::Char:
        if (node.ch >= 0xD800 && node.ch <= 0xDFFF) return false;
        json::append_utf8(out, node.ch);
        return true;
      case Node::Kind::Any: {
        static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
        out.push_back(kChars[rng_.below(sizeof kChars - 1)]);
        return true;
      }
      case Node::Kind::Class: return emit_class(node, out);
      case Node::Kind::Backref: {
        if (node.capture >= 0 && static_cast<std::size_t>(node.capture) < captures_.size()) {
          out += captures_[static_cast<std::size_t>(node.capture)];
        }
        return true;
      }
      case Node::Kind::Group: {
        std::size_t start = out.size();
        if (!emit_alternatives(node.alternatives, out)) return false;
        if (node.capture > 0) {
          if (captures_.size() <= static_cast<std::size_t>(node.capture)) {
            captures_.resize(static_cast<std::size_t>(node.capture) + 1);
          }
          captures_[static_cast<std::size_t>(node.capture)] = out.substr(start);
        }
        return true;
      }
    }
    return false;
  }

  Prng& rng_;
  int extra_;
  std::vector<std::string> captures_;
  std::size_t steps_ = 0;
};

}  // namespace

std::optional<std::string> generate_from_pattern(std::string_view pattern, Prng& rng, int extra_repeats) {
  std::vector<Sequence> tree;
  PatternParser parser(pattern);
  if (!parser.parse(tree)) return std::nullopt;
  std::string out;
  Emitter emitter(rng, extra_repeats);
  if (!emitter.emit_alternatives(tree, out)) return std::nullopt;
  if (!json::is_valid_utf8(out)) return std::nullopt;
  return out;
}

}  // namespace weld::sample
