// A recursive-descent parser for ECMAScript patterns with the `u` flag
// (ECMA-262 §22.2.1, without Annex B, which does not apply under `u`), as
// Ajv compiles JSON Schema `pattern` (`new RegExp(p, "u")`). It checks the
// whole grammar and writes the pattern in RE2 and PCRE2 syntax at once.
//
// Semantics carried over explicitly rather than trusting engine defaults:
// - `.` excludes only the ECMAScript line terminators \n \r U+2028 U+2029;
// - \d \w are ASCII, \s is ECMAScript's WhiteSpace + LineTerminator set;
// - `$` is the end of input (RE2's default; PCRE2_DOLLAR_ENDONLY);
// - every literal is written as \x{…}, so no engine metacharacter leaks;
// - capture groups stay numbered in the PCRE2 output (back-references), and
//   become (?:…) for RE2, which never needs them.
// Why: patterns must run in linear time (docs/schema.md, "What validates").

#include "translate.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

#include "properties.h"
#include "weld/json/utf8.h"

namespace weld::schema::regex_detail {
namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr int kMaxDepth = 256;  // nesting of groups/classes; bounds our stack and RE2's
constexpr std::uint32_t kMaxRepeat = 65535;  // PCRE2's limit; RE2's is 1000

// A character class under construction: explicit ranges plus property items
// the engines evaluate themselves.
struct CharSet {
  std::vector<CodeRange> ranges;
  std::string re2_items;
  std::string pcre2_items;
  bool re2_ok = true;
  bool has_items() const { return !re2_items.empty() || !pcre2_items.empty() || !re2_ok; }
};

std::vector<CodeRange> normalized(std::vector<CodeRange> ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<CodeRange> out;
  for (const CodeRange& range : ranges) {
    if (!out.empty() && range.first <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, range.second);
    } else {
      out.push_back(range);
    }
  }
  return out;
}

std::vector<CodeRange> complement(const std::vector<CodeRange>& ranges) {
  std::vector<CodeRange> in = normalized(ranges);
  std::vector<CodeRange> out;
  char32_t next = 0;
  for (const CodeRange& range : in) {
    if (range.first > next) out.push_back({next, range.first - 1});
    next = range.second + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  return out;
}

// Surrogates never occur in UTF-8 text, and PCRE2 refuses them in classes.
std::vector<CodeRange> without_surrogates(const std::vector<CodeRange>& ranges) {
  std::vector<CodeRange> out;
  for (const CodeRange& range : ranges) {
    if (range.second < 0xD800 || range.first > 0xDFFF) {
      out.push_back(range);
      continue;
    }
    if (range.first < 0xD800) out.push_back({range.first, 0xD7FF});
    if (range.second > 0xDFFF) out.push_back({0xE000, range.second});
  }
  return out;
}

void append_code_point(std::string& out, char32_t cp) {
  bool plain = (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (plain) {
    out.push_back(static_cast<char>(cp));
    return;
  }
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "\\x{%X}", static_cast<unsigned>(cp));
  out += buffer;
}

std::string ranges_text(const std::vector<CodeRange>& ranges) {
  std::string out;
  for (const CodeRange& range : without_surrogates(normalized(ranges))) {
    append_code_point(out, range.first);
    if (range.second != range.first) {
      out.push_back('-');
      append_code_point(out, range.second);
    }
  }
  return out;
}

const std::string kNothing = "[^\\x{0}-\\x{10FFFF}]";

// One bracket expression for `set` (negated when `negate`).
std::string class_text(const CharSet& set, bool negate, bool for_re2) {
  const std::string& items = for_re2 ? set.re2_items : set.pcre2_items;
  if (items.empty()) {
    std::vector<CodeRange> ranges = negate ? complement(set.ranges) : normalized(set.ranges);
    std::string body = ranges_text(ranges);
    if (body.empty()) return kNothing;
    return "[" + body + "]";
  }
  return std::string(negate ? "[^" : "[") + ranges_text(set.ranges) + items + "]";
}

const std::vector<CodeRange> kDigit = {{'0', '9'}};
const std::vector<CodeRange> kWord = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
// ECMAScript WhiteSpace (incl. Zs and U+FEFF) and LineTerminator.
const std::vector<CodeRange> kSpace = {{0x09, 0x0D}, {0x20, 0x20},     {0xA0, 0xA0},     {0x1680, 0x1680},
                                       {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F},
                                       {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
const std::vector<CodeRange> kLineTerminators = {{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}};

bool is_syntax_character(char32_t c) {
  switch (c) {
    case '^': case '$': case '\\': case '.': case '*': case '+': case '?':
    case '(': case ')': case '[': case ']': case '{': case '}': case '|':
      return true;
    default:
      return false;
  }
}

bool is_decimal(char32_t c) { return c >= '0' && c <= '9'; }
bool is_hex(char32_t c) { return is_decimal(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
char32_t hex_value(char32_t c) {
  if (is_decimal(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
bool is_ascii_letter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

class Translator {
 public:
  explicit Translator(std::string_view pattern) : pattern_(pattern) {}

  Result<Translation> run() {
    std::size_t i = 0;
    while (i < pattern_.size()) {
      std::size_t before = i;
      char32_t cp = json::decode_utf8(pattern_, i);
      if (cp == 0xFFFD && !(i - before == 3 && pattern_.substr(before, 3) == "\xEF\xBF\xBD")) {
        return error("pattern is not valid UTF-8");
      }
      cps_.push_back(cp);
    }
    if (!scan_groups()) return *error_;
    parse_disjunction(0);
    if (!error_ && pos_ < cps_.size()) {
      fail(cps_[pos_] == ')' ? "Unmatched ')'" : "Unexpected character");
    }
    if (error_) return *error_;
    return out_;
  }

 private:
  Error error(std::string reason) const {
    return Error{ErrorCode::Regex, "Invalid regular expression: /" + std::string(pattern_) + "/u: " + reason, ""};
  }
  void fail(std::string reason) {
    if (!error_) error_ = error(std::move(reason));
  }
  bool at_end() const { return pos_ >= cps_.size(); }
  char32_t peek(std::size_t ahead = 0) const { return pos_ + ahead < cps_.size() ? cps_[pos_ + ahead] : 0; }
  bool has(std::size_t ahead) const { return pos_ + ahead < cps_.size(); }
  bool eat(char32_t c) {
    if (!at_end() && cps_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void emit(std::string_view text) {
    out_.re2 += text;
    out_.pcre2 += text;
  }
  void emit(std::string_view re2, std::string_view pcre2) {
    out_.re2 += re2;
    out_.pcre2 += pcre2;
  }

  // Counts capturing groups and collects names before parsing, because a
  // back-reference may point forward (\1(a)) and u-mode refuses \N beyond
  // the group count.
  bool scan_groups() {
    bool in_class = false;
    for (std::size_t i = 0; i < cps_.size(); ++i) {
      char32_t c = cps_[i];
      if (c == '\\') {
        ++i;
      } else if (in_class) {
        if (c == ']') in_class = false;
      } else if (c == '[') {
        in_class = true;
      } else if (c == '(') {
        if (i + 1 < cps_.size() && cps_[i + 1] == '?') {
          if (i + 2 < cps_.size() && cps_[i + 2] == '<' && i + 3 < cps_.size() && cps_[i + 3] != '=' &&
              cps_[i + 3] != '!') {
            ++group_count_;
          }
        } else {
          ++group_count_;
        }
      }
    }
    return true;
  }

  void parse_disjunction(int depth) {
    if (depth > kMaxDepth) return fail("pattern nests too deeply");
    parse_alternative(depth);
    while (!error_ && eat('|')) {
      emit("|");
      parse_alternative(depth);
    }
  }

  void parse_alternative(int depth) {
    while (!error_ && !at_end() && peek() != '|' && peek() != ')') parse_term(depth);
  }

  void parse_term(int depth) {
    char32_t c = peek();
    if (c == '^') {
      ++pos_;
      emit("^");
      return refuse_quantifier();
    }
    if (c == '$') {
      ++pos_;
      emit("$");
      return refuse_quantifier();
    }
    if (c == '\\' && (peek(1) == 'b' || peek(1) == 'B')) {
      pos_ += 2;
      emit(c == '\\' && cps_[pos_ - 1] == 'b' ? "\\b" : "\\B");
      return refuse_quantifier();
    }
    if (c == '(' && peek(1) == '?') {
      char32_t kind = peek(2);
      bool behind = kind == '<' && (peek(3) == '=' || peek(3) == '!');
      if (kind == '=' || kind == '!' || behind) {
        pos_ += behind ? 4 : 3;
        char32_t sense = behind ? cps_[pos_ - 1] : kind;
        out_.needs_backtracking = true;
        std::string open = std::string("(?") + (behind ? "<" : "") + static_cast<char>(sense);
        emit(open);
        parse_disjunction(depth + 1);
        if (error_) return;
        if (!eat(')')) return fail("Unterminated group");
        emit(")");
        return refuse_quantifier();
      }
    }
    parse_atom(depth);
    if (error_) return;
    parse_quantifier();
  }

  bool is_quantifier_start() const {
    char32_t c = peek();
    return c == '*' || c == '+' || c == '?' || (c == '{' && brace_quantifier_length() > 0);
  }

  void refuse_quantifier() {
    if (!at_end() && (is_quantifier_start() || peek() == '{')) fail("Nothing to repeat");
  }

  // Length of a valid {n}, {n,}, {n,m} at pos_, or 0.
  std::size_t brace_quantifier_length() const {
    std::size_t i = pos_ + 1;
    std::size_t digits = 0;
    while (i < cps_.size() && is_decimal(cps_[i])) ++i, ++digits;
    if (digits == 0) return 0;
    if (i < cps_.size() && cps_[i] == ',') {
      ++i;
      while (i < cps_.size() && is_decimal(cps_[i])) ++i;
    }
    if (i < cps_.size() && cps_[i] == '}') return i + 1 - pos_;
    return 0;
  }

  std::uint64_t read_number() {
    std::uint64_t value = 0;
    while (!at_end() && is_decimal(peek())) {
      value = std::min<std::uint64_t>(value * 10 + (peek() - '0'), 1'000'000'000'000ULL);
      ++pos_;
    }
    return value;
  }

  void parse_quantifier() {
    if (at_end()) return;
    char32_t c = peek();
    if (c == '*' || c == '+' || c == '?') {
      ++pos_;
      emit(std::string(1, static_cast<char>(c)));
    } else if (c == '{') {
      if (brace_quantifier_length() == 0) return fail("Incomplete quantifier");
      ++pos_;
      std::uint64_t low = read_number();
      std::optional<std::uint64_t> high = low;
      if (eat(',')) high = !at_end() && is_decimal(peek()) ? std::optional(read_number()) : std::nullopt;
      eat('}');
      if (high && *high < low) return fail("numbers out of order in {} quantifier");
      if (low > kMaxRepeat || (high && *high > kMaxRepeat)) {
        return fail("repetition count above 65535 is not supported");
      }
      std::string text = "{" + std::to_string(low);
      if (!high) {
        text += ",";
      } else if (*high != low) {
        text += "," + std::to_string(*high);
      }
      emit(text + "}");
    } else {
      return;
    }
    if (eat('?')) emit("?");
    if (!at_end() && (is_quantifier_start() || peek() == '{')) fail("Nothing to repeat");
  }

  void parse_atom(int depth) {
    char32_t c = peek();
    switch (c) {
      case '.':
        ++pos_;
        emit(class_text(CharSet{kLineTerminators}, true, true));
        return;
      case '(':
        return parse_group(depth);
      case '[':
        return parse_class();
      case '\\':
        return parse_atom_escape();
      case '*': case '+': case '?':
        return fail("Nothing to repeat");
      case '{':
        return fail(brace_quantifier_length() > 0 ? "Nothing to repeat" : "Lone quantifier brackets");
      case '}':
        return fail("Lone quantifier brackets");
      case ']':
        return fail("Lone quantifier brackets");
      case ')':
        return fail("Unmatched ')'");
      default:
        ++pos_;
        emit_literal(c);
        return;
    }
  }

  void emit_literal(char32_t c) {
    if (c >= 0xD800 && c <= 0xDFFF) {  // a lone surrogate: never in UTF-8 text
      emit(kNothing);
      return;
    }
    std::string text;
    append_code_point(text, c);
    emit(text);
  }

  void parse_group(int depth) {
    ++pos_;  // (
    bool capturing = true;
    if (eat('?')) {
      if (eat(':')) {
        capturing = false;
      } else if (peek() == '<') {
        ++pos_;
        std::string name = parse_group_name();
        if (error_) return;
        if (names_.count(name)) return fail("Duplicate capture group name");
        names_[name] = next_group_ + 1;
      } else {
        return fail("Invalid group");
      }
    }
    if (capturing) ++next_group_;
    emit(capturing ? "(?:" : "(?:", capturing ? "(" : "(?:");
    parse_disjunction(depth + 1);
    if (error_) return;
    if (!eat(')')) return fail("Unterminated group");
    emit(")");
  }

  // After `<`; reads `name>`. Identifier: ID_Start/$/_ then ID_Continue/$;
  // non-ASCII letters are accepted as ID characters.
  std::string parse_group_name() {
    std::string name;
    bool first = true;
    while (true) {
      if (at_end()) {
        fail("Invalid capture group name");
        return name;
      }
      char32_t c = peek();
      if (c == '>') {
        ++pos_;
        break;
      }
      if (c == '\\') {  // \uXXXX inside a name
        ++pos_;
        if (!eat('u')) {
          fail("Invalid capture group name");
          return name;
        }
        std::optional<char32_t> escaped = parse_unicode_escape_body();
        if (!escaped) {
          fail("Invalid Unicode escape");
          return name;
        }
        c = *escaped;
      } else {
        ++pos_;
      }
      bool ok = is_ascii_letter(c) || c == '$' || c == '_' || c >= 0x80 || (!first && is_decimal(c));
      if (!ok) {
        fail("Invalid capture group name");
        return name;
      }
      json::append_utf8(name, c);
      first = false;
    }
    if (name.empty()) fail("Invalid capture group name");
    return name;
  }

  // After `\u`: XXXX (joining a following \uXXXX low surrogate) or {X…}.
  std::optional<char32_t> parse_unicode_escape_body() {
    if (eat('{')) {
      char32_t value = 0;
      std::size_t digits = 0;
      while (!at_end() && is_hex(peek())) {
        value = value * 16 + hex_value(peek());
        ++pos_;
        ++digits;
        if (value > kMaxCodePoint) return std::nullopt;
      }
      if (digits == 0 || !eat('}')) return std::nullopt;
      return value;
    }
    auto four = [this]() -> std::optional<char32_t> {
      if (!has(3) || !is_hex(peek()) || !is_hex(peek(1)) || !is_hex(peek(2)) || !is_hex(peek(3))) {
        return std::nullopt;
      }
      char32_t value = (hex_value(peek()) << 12) | (hex_value(peek(1)) << 8) | (hex_value(peek(2)) << 4) |
                       hex_value(peek(3));
      pos_ += 4;
      return value;
    };
    std::optional<char32_t> high = four();
    if (!high) return std::nullopt;
    if (*high >= 0xD800 && *high <= 0xDBFF && peek() == '\\' && peek(1) == 'u') {
      std::size_t save = pos_;
      pos_ += 2;
      std::optional<char32_t> low = four();
      if (low && *low >= 0xDC00 && *low <= 0xDFFF) return 0x10000 + ((*high - 0xD800) << 10) + (*low - 0xDC00);
      pos_ = save;
    }
    return high;
  }

  // CharacterEscape (ECMA-262 §22.2.1) after the backslash; nullopt on error
  // (already reported). `in_class` allows \- and \b (backspace).
  std::optional<char32_t> parse_character_escape(bool in_class) {
    if (at_end()) {
      fail("\\ at end of pattern");
      return std::nullopt;
    }
    char32_t c = peek();
    ++pos_;
    switch (c) {
      case 'f': return U'\f';
      case 'n': return U'\n';
      case 'r': return U'\r';
      case 't': return U'\t';
      case 'v': return U'\v';
      case 'c':
        if (!at_end() && is_ascii_letter(peek())) {
          char32_t letter = peek();
          ++pos_;
          return letter % 32;
        }
        fail("Invalid unicode escape");
        return std::nullopt;
      case '0':
        if (!at_end() && is_decimal(peek())) {
          fail("Invalid decimal escape");
          return std::nullopt;
        }
        return U'\0';
      case 'x':
        if (has(1) && is_hex(peek()) && is_hex(peek(1))) {
          char32_t value = hex_value(peek()) * 16 + hex_value(peek(1));
          pos_ += 2;
          return value;
        }
        fail("Invalid escape");
        return std::nullopt;
      case 'u': {
        std::optional<char32_t> value = parse_unicode_escape_body();
        if (!value) fail("Invalid Unicode escape");
        return value;
      }
      default:
        break;
    }
    if (is_syntax_character(c) || c == '/') return c;
    if (in_class && c == '-') return c;
    // Beyond Ajv: `u` mode refuses identity escapes of other ASCII
    // punctuation (`\&`, `\%`, `\-`, `\"`), but real-world schemas are full
    // of them and they can only mean the character itself. Letters and
    // digits stay errors (`\a` is not an escape in ECMAScript).
    if (c < 0x80 && c > 0x20 && !is_ascii_letter(c) && !is_decimal(c)) return c;
    if (in_class && c == 'b') return U'\b';
    if (is_decimal(c)) {
      fail(in_class ? "Invalid class escape" : "Invalid escape");
    } else {
      fail("Invalid escape");
    }
    return std::nullopt;
  }

  // \d \D \s \S \w \W \p{…} \P{…} at pos_ (after the backslash). Returns
  // false when the escape is not a class escape (nothing consumed).
  bool parse_class_escape(CharSet& set) {
    char32_t c = peek();
    const std::vector<CodeRange>* base = nullptr;
    if (c == 'd' || c == 'D') base = &kDigit;
    if (c == 'w' || c == 'W') base = &kWord;
    if (c == 's' || c == 'S') base = &kSpace;
    if (base) {
      ++pos_;
      bool negated = c == 'D' || c == 'W' || c == 'S';
      std::vector<CodeRange> add = negated ? complement(*base) : *base;
      set.ranges.insert(set.ranges.end(), add.begin(), add.end());
      return true;
    }
    if (c != 'p' && c != 'P') return false;
    ++pos_;
    if (!eat('{')) {
      fail("Invalid property name");
      return true;
    }
    std::string body;
    while (!at_end() && peek() != '}') {
      char32_t ch = peek();
      if (ch >= 0x80) break;
      body.push_back(static_cast<char>(ch));
      ++pos_;
    }
    if (!eat('}')) {
      fail("Invalid property name");
      return true;
    }
    std::optional<PropertyTranslation> property = translate_property(body, c == 'P');
    if (!property) {
      fail("Invalid property name");
      return true;
    }
    if (!property->ranges.empty()) {
      std::vector<CodeRange> add = c == 'P' ? complement(property->ranges) : property->ranges;
      set.ranges.insert(set.ranges.end(), add.begin(), add.end());
      return true;
    }
    set.pcre2_items += property->pcre2;
    if (property->re2_ok) {
      set.re2_items += property->re2;
    } else {
      set.re2_ok = false;
      out_.needs_backtracking = true;
    }
    return true;
  }

  void emit_set(const CharSet& set, bool negate) {
    emit(set.re2_ok ? class_text(set, negate, true) : std::string(), class_text(set, negate, false));
  }

  void parse_atom_escape() {
    ++pos_;  // backslash
    if (at_end()) return fail("\\ at end of pattern");
    char32_t c = peek();
    if (c >= '1' && c <= '9') {
      std::uint64_t group = read_number();
      if (group > group_count_) return fail("Invalid escape");
      out_.needs_backtracking = true;
      emit("", "\\g{" + std::to_string(group) + "}");
      return;
    }
    if (c == 'k') {
      ++pos_;
      if (!eat('<')) return fail("Invalid named reference");
      std::size_t save = pos_;
      std::string name = parse_group_name();
      if (error_) return;
      // Names may be defined after the reference; find the group by scanning.
      std::optional<std::size_t> index = find_group_name(name);
      if (!index) {
        pos_ = save;
        return fail("Invalid named capture referenced");
      }
      out_.needs_backtracking = true;
      emit("", "\\g{" + std::to_string(*index) + "}");
      return;
    }
    CharSet set;
    if (parse_class_escape(set)) {
      if (!error_) emit_set(set, false);
      return;
    }
    std::optional<char32_t> value = parse_character_escape(false);
    if (value) emit_literal(*value);
  }

  // The capture index of group `name`, looking through the whole pattern.
  std::optional<std::size_t> find_group_name(const std::string& name) {
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    std::size_t save = pos_;
    std::size_t count = 0;
    bool in_class = false;
    std::optional<std::size_t> found;
    for (std::size_t i = 0; i < cps_.size() && !found; ++i) {
      char32_t c = cps_[i];
      if (c == '\\') {
        ++i;
      } else if (in_class) {
        if (c == ']') in_class = false;
      } else if (c == '[') {
        in_class = true;
      } else if (c == '(') {
        bool named = i + 3 < cps_.size() && cps_[i + 1] == '?' && cps_[i + 2] == '<' && cps_[i + 3] != '=' &&
                     cps_[i + 3] != '!';
        bool plain = !(i + 1 < cps_.size() && cps_[i + 1] == '?');
        if (named || plain) ++count;
        if (named) {
          pos_ = i + 3;
          std::optional<Error> saved = error_;
          std::string candidate = parse_group_name();
          error_ = saved;
          if (candidate == name) found = count;
        }
      }
    }
    pos_ = save;
    return found;
  }

  // One ClassAtom into `set`; returns the single code point it denotes, or
  // nullopt for a class escape (\d, \p{…}) that cannot bound a range.
  std::optional<char32_t> parse_class_atom(CharSet& set, bool& was_class_escape) {
    was_class_escape = false;
    char32_t c = peek();
    if (c != '\\') {
      ++pos_;
      return c;
    }
    ++pos_;
    if (at_end()) {
      fail("\\ at end of pattern");
      return std::nullopt;
    }
    if (parse_class_escape(set)) {
      was_class_escape = true;
      return std::nullopt;
    }
    if (peek() == 'B') {
      fail("Invalid class escape");
      return std::nullopt;
    }
    return parse_character_escape(true);
  }

  void parse_class() {
    ++pos_;  // [
    bool negate = eat('^');
    CharSet set;
    while (!error_) {
      if (at_end()) return fail("Unterminated character class");
      if (peek() == ']') {
        ++pos_;
        break;
      }
      bool first_is_class = false;
      CharSet scratch;
      std::optional<char32_t> first = parse_class_atom(scratch, first_is_class);
      if (error_) return;
      bool is_range = peek() == '-' && has(1) && peek(1) != ']';
      if (is_range) {
        ++pos_;  // -
        bool second_is_class = false;
        std::optional<char32_t> second = parse_class_atom(scratch, second_is_class);
        if (error_) return;
        if (first_is_class || second_is_class) return fail("Invalid character class");
        if (*second < *first) return fail("Range out of order in character class");
        set.ranges.push_back({*first, *second});
        continue;
      }
      if (first_is_class) {
        set.ranges.insert(set.ranges.end(), scratch.ranges.begin(), scratch.ranges.end());
        set.re2_items += scratch.re2_items;
        set.pcre2_items += scratch.pcre2_items;
        set.re2_ok = set.re2_ok && scratch.re2_ok;
      } else {
        set.ranges.push_back({*first, *first});
      }
    }
    if (!error_) emit_set(set, negate);
  }

  std::string_view pattern_;
  std::vector<char32_t> cps_;
  std::size_t pos_ = 0;
  std::size_t group_count_ = 0;
  std::size_t next_group_ = 0;
  std::map<std::string, std::size_t> names_;
  Translation out_;
  std::optional<Error> error_;
};

}  // namespace

Result<Translation> translate(std::string_view pattern) { return Translator(pattern).run(); }

}  // namespace weld::schema::regex_detail
