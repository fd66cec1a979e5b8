// Lenient JSON recovery for the parse repairs of the argument text (docs/design.md, "Repairs").
//
// A recursive-descent parser like src/json/parse.cc, but it tolerates the
// mistakes models make when they write JSON by hand, and records each one.
// Nothing here is ever called "valid": check_arguments validates the value
// it returns against the schema before accepting it.

#include "lenient_parse.h"

#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "weld/json/parse.h"
#include "weld/json/pointer.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"

namespace weld::repair {
namespace {

constexpr int kMaxDepth = 512;
// Prose may hold many '{' / '[' that start nothing; trying each one is linear
// work, so the number of tries is bounded to keep the whole search linear.
constexpr int kMaxProseStarts = 64;
constexpr int kMaxFences = 8;

// Collects repairs, one entry per kind in first-seen order.
class RepairLog {
 public:
  void add(std::string_view kind, const std::string& path, std::string detail) {
    auto it = index_.find(std::string(kind));
    if (it != index_.end()) {
      ++counts_[it->second];
      return;
    }
    index_.emplace(std::string(kind), entries_.size());
    entries_.push_back(Repair{std::string(kind), path, std::move(detail)});
    counts_.push_back(1);
  }

  std::vector<Repair> take() {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (counts_[i] > 1) {
        entries_[i].detail += " (" + std::to_string(counts_[i]) + " times in all)";
      }
    }
    return std::move(entries_);
  }

 private:
  std::map<std::string, std::size_t> index_;
  std::vector<Repair> entries_;
  std::vector<std::size_t> counts_;
};

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '-' || c == '.';
}

std::string hex_code_point(unsigned char c) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(c));
  return buffer;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  // Parses one value at the current position. With `whole`, only
  // whitespace may follow it.
  bool parse_document(json::Value& out, bool whole) {
    skip_whitespace();
    std::string path;
    if (!parse_value(out, 0, path)) return false;
    skip_whitespace();
    return !whole || pos_ == text_.size();
  }

  std::vector<Repair> take_repairs() { return log_.take(); }

 private:
  void skip_whitespace() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }

  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  bool starts_word(std::string_view word) const {
    if (text_.substr(pos_, word.size()) != word) return false;
    std::size_t end = pos_ + word.size();
    return end >= text_.size() || !is_key_char(text_[end]);
  }

  bool parse_value(json::Value& out, int depth, const std::string& path) {
    if (pos_ >= text_.size()) return false;
    char c = text_[pos_];
    switch (c) {
      case '{': return parse_object(out, depth + 1, path);
      case '[': return parse_array(out, depth + 1, path);
      case '"':
      case '\'': {
        std::string s;
        if (!parse_string(s, path)) return false;
        out = json::Value(std::move(s));
        return true;
      }
      default: break;
    }
    if (starts_word("true")) { pos_ += 4; out = json::Value(true); return true; }
    if (starts_word("false")) { pos_ += 5; out = json::Value(false); return true; }
    if (starts_word("null")) { pos_ += 4; out = json::Value(nullptr); return true; }
    if (starts_word("True")) {
      pos_ += 4;
      log_.add("python_literals", path, "True -> true");
      out = json::Value(true);
      return true;
    }
    if (starts_word("False")) {
      pos_ += 5;
      log_.add("python_literals", path, "False -> false");
      out = json::Value(false);
      return true;
    }
    if (starts_word("None")) {
      pos_ += 4;
      log_.add("python_literals", path, "None -> null");
      out = json::Value(nullptr);
      return true;
    }
    return parse_number(out);
  }

  // A number token per RFC 8259, converted by the strict parser so both
  // parsers agree on integers, reals and range errors.
  bool parse_number(json::Value& out) {
    std::size_t start = pos_;
    if (at('-')) ++pos_;
    std::size_t digits = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      // '+'/'-' only right after an exponent marker inside this token.
      bool exponent_sign =
          (c == '+' || c == '-') && pos_ > digits && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
      bool numeric = (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || exponent_sign;
      if (!numeric) break;
      ++pos_;
    }
    // "12abc" is not a number followed by garbage we could skip.
    if (pos_ < text_.size() && is_key_char(text_[pos_])) return false;
    if (pos_ == digits) return false;
    auto number = json::parse(text_.substr(start, pos_ - start));
    if (!number || !number->is_number()) return false;
    out = std::move(*number);
    return true;
  }

  bool parse_object(json::Value& out, int depth, const std::string& path) {
    if (depth > kMaxDepth) return false;
    ++pos_;  // '{'
    json::Object object;
    std::unordered_map<std::string, std::size_t> index;
    bool expect_member = true;  // false right after a member: need ',' or '}'
    while (true) {
      skip_whitespace();
      if (pos_ >= text_.size()) return false;
      char c = text_[pos_];
      if (c == '}') {
        ++pos_;
        break;
      }
      if (!expect_member) {
        if (c != ',') return false;
        ++pos_;
        skip_whitespace();
        if (at('}')) {
          log_.add("trailing_comma", path, "removed a trailing comma before '}'");
          ++pos_;
          break;
        }
        expect_member = true;
        continue;
      }
      std::string key;
      if (c == '"' || c == '\'') {
        if (!parse_string(key, path)) return false;
      } else if (is_key_char(c)) {
        std::size_t start = pos_;
        while (pos_ < text_.size() && is_key_char(text_[pos_])) ++pos_;
        key.assign(text_.substr(start, pos_ - start));
        std::string member_path = path;
        json::append_pointer(member_path, key);
        log_.add("unquoted_keys", member_path, "quoted the key " + json::quote(key));
      } else {
        return false;
      }
      skip_whitespace();
      if (!at(':')) return false;
      ++pos_;
      skip_whitespace();
      std::string member_path = path;
      json::append_pointer(member_path, key);
      json::Value value;
      if (!parse_value(value, depth, member_path)) return false;
      // A repeated key keeps its first position and its last value, like
      // the strict parser and JSON.parse.
      auto found = index.find(key);
      if (found != index.end()) {
        object[found->second].value = std::move(value);
      } else {
        index.emplace(key, object.size());
        object.push_back(json::Member{std::move(key), std::move(value)});
      }
      expect_member = false;
    }
    out = json::Value(std::move(object));
    return true;
  }

  bool parse_array(json::Value& out, int depth, const std::string& path) {
    if (depth > kMaxDepth) return false;
    ++pos_;  // '['
    json::Array array;
    bool expect_element = true;
    while (true) {
      skip_whitespace();
      if (pos_ >= text_.size()) return false;
      char c = text_[pos_];
      if (c == ']') {
        ++pos_;
        break;
      }
      if (!expect_element) {
        if (c != ',') return false;
        ++pos_;
        skip_whitespace();
        if (at(']')) {
          log_.add("trailing_comma", path, "removed a trailing comma before ']'");
          ++pos_;
          break;
        }
        expect_element = true;
        continue;
      }
      std::string element_path = path;
      json::append_pointer(element_path, array.size());
      json::Value value;
      if (!parse_value(value, depth, element_path)) return false;
      array.push_back(std::move(value));
      expect_element = false;
    }
    out = json::Value(std::move(array));
    return true;
  }

  // A string in double or single quotes. Invalid UTF-8 and lone surrogates
  // are refused, never replaced: a repair must not invent characters.
  bool parse_string(std::string& out, const std::string& path) {
    char quote = text_[pos_++];
    if (quote == '\'') log_.add("single_quotes", path, "converted a single-quoted string to double quotes");
    while (true) {
      if (pos_ >= text_.size()) return false;
      auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == static_cast<unsigned char>(quote)) {
        ++pos_;
        return true;
      }
      if (c < 0x20) {
        log_.add("control_characters", path, "escaped a raw control character (" + hex_code_point(c) + ") in a string");
        out.push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      if (c == '\\') {
        ++pos_;
        if (pos_ >= text_.size()) return false;
        if (text_[pos_] == '\'') {  // JavaScript's \' (single-quoted strings)
          out.push_back('\'');
          ++pos_;
        } else if (json::decode_escape(text_, pos_, out) != json::EscapeError::None) {
          return false;
        }
        continue;
      }
      if (c >= 0x80) {
        std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (len == 1 || pos_ + len > text_.size() || !json::is_valid_utf8(text_.substr(pos_, len))) return false;
        out.append(text_.substr(pos_, len));
        pos_ += len;
        continue;
      }
      out.push_back(static_cast<char>(c));
      ++pos_;
    }
  }

 public:
  std::size_t position() const { return pos_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  RepairLog log_;
};

std::string line_column(std::string_view text, std::size_t pos) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') { ++line; column = 1; } else { ++column; }
  }
  return "line " + std::to_string(line) + " column " + std::to_string(column);
}

bool only_space(std::string_view s) {
  for (char c : s) {
    if (!is_space(c)) return false;
  }
  return true;
}

// The whole of `text` as one document.
bool parse_whole(std::string_view text, LenientParse& out) {
  Parser parser(text);
  if (!parser.parse_document(out.value, /*whole=*/true)) return false;
  out.repairs = parser.take_repairs();
  return true;
}

// A Markdown code fence: ```lang\n … ``` (the closing fence may be missing
// when the answer was cut off).
bool parse_fenced(std::string_view text, LenientParse& out) {
  std::size_t search = 0;
  for (int fence = 0; fence < kMaxFences; ++fence) {
    std::size_t open = text.find("```", search);
    if (open == std::string_view::npos) return false;
    std::size_t body = open + 3;
    while (body < text.size() && text[body] == '`') ++body;
    // Language tag: "json", "JSON", "json5", "javascript"… up to the line end.
    std::size_t tag_end = body;
    while (tag_end < text.size() && is_key_char(text[tag_end])) ++tag_end;
    std::string_view tag = text.substr(body, tag_end - body);
    body = tag_end;
    std::size_t close = text.find("```", body);
    std::string_view inner = text.substr(body, close == std::string_view::npos ? std::string_view::npos : close - body);
    LenientParse candidate;
    if (parse_whole(inner, candidate)) {
      std::string detail = "removed a Markdown code fence (```" + std::string(tag) + ")";
      std::size_t after = close == std::string_view::npos ? text.size() : close + 3;
      while (after < text.size() && text[after] == '`') ++after;
      if (!only_space(text.substr(0, open)) || !only_space(text.substr(after))) detail += " and the text around it";
      if (close == std::string_view::npos) detail += "; the closing fence was missing";
      out.value = std::move(candidate.value);
      out.repairs.clear();
      out.repairs.push_back(Repair{"code_fence", "", std::move(detail)});
      for (auto& repair : candidate.repairs) out.repairs.push_back(std::move(repair));
      return true;
    }
    if (close == std::string_view::npos) return false;
    search = close + 3;
  }
  return false;
}

// The object or array inside prose ("Here you go: {…} Let me know…"). When
// the prose holds a second complete document of the same kind after it (a
// model that corrected itself: `{"age":36} … no, {"age":99}`), there is no
// guessing which one is meant: `ambiguous` says where both are, and the
// answer is invalid (the model is asked again).
bool parse_in_prose(std::string_view text, LenientParse& out, std::optional<Error>& ambiguous) {
  std::size_t search = 0;
  int tries = 0;
  for (; tries < kMaxProseStarts; ++tries) {
    std::size_t start = text.find_first_of("{[", search);
    if (start == std::string_view::npos) return false;
    Parser parser(text.substr(start));
    json::Value value;
    if (parser.parse_document(value, /*whole=*/false)) {
      // Another document of the same kind after this one?
      const char opener = text[start];
      for (std::size_t next = text.find(opener, start + parser.position());
           next != std::string_view::npos && ++tries < kMaxProseStarts; next = text.find(opener, next + 1)) {
        Parser second(text.substr(next));
        json::Value other;
        if (second.parse_document(other, /*whole=*/false)) {
          ambiguous = Error{ErrorCode::Parse,
                            "the text holds more than one JSON " + std::string(opener == '{' ? "object" : "array") +
                                " (at " + line_column(text, start) + " and at " + line_column(text, next) +
                                "); weld does not guess which one is the answer: send exactly one",
                            line_column(text, next)};
          return false;
        }
      }
      out.value = std::move(value);
      out.repairs.clear();
      out.repairs.push_back(Repair{"extracted_json", "",
                                   "took the JSON document at " + line_column(text, start) +
                                       " and ignored the text around it"});
      for (auto& repair : parser.take_repairs()) out.repairs.push_back(std::move(repair));
      return true;
    }
    search = start + 1;
  }
  return false;
}

}  // namespace

Result<LenientParse> lenient_parse(std::string_view text) {
  LenientParse out;
  if (parse_whole(text, out)) return out;
  if (parse_fenced(text, out)) return out;
  std::optional<Error> ambiguous;
  if (parse_in_prose(text, out, ambiguous)) return out;
  if (ambiguous) return *ambiguous;
  auto strict = json::parse(text);
  if (!strict) return strict.error();
  // Unreachable in practice (the lenient grammar includes the strict one);
  // kept so a disagreement between the parsers cannot lose a value.
  out.value = std::move(*strict);
  return out;
}

}  // namespace weld::repair
