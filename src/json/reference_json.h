#pragma once
// A frozen copy of weld::json's parser and serializer as they were before the
// speed work of docs/bench-json.md (main at 88d2050), kept only as the
// reference for differential tests (src/json/parse_diff_test.cc) and the
// differential fuzzer (fuzz/json_diff_fuzz.cc): the fast versions must give
// the same values, bytes, error messages and positions. Never used by the
// product.
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#include "weld/base/result.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"
#include "weld/json/value.h"

namespace weld::json::reference {

namespace {

// A recursive-descent parser over a string_view. Depth is bounded by
// ParseOptions::max_depth so hostile input cannot overflow the stack.
class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : text_(text), options_(options) {}

  Result<Value> run() {
    skip_whitespace();
    Value value;
    if (!parse_value(value, 0)) return error_;
    skip_whitespace();
    if (pos_ != text_.size()) {
      fail("unexpected data after the JSON value");
      return error_;
    }
    return value;
  }

 private:
  bool fail(std::string message, ErrorCode code = ErrorCode::Parse) {
    if (!failed_) {
      failed_ = true;
      std::size_t line = 1, column = 1;
      for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
        if (text_[i] == '\n') { ++line; column = 1; } else { ++column; }
      }
      error_ = Error{code, std::move(message),
                     "line " + std::to_string(line) + " column " + std::to_string(column)};
    }
    return false;
  }

  bool fail_unexpected() {
    if (pos_ >= text_.size()) return fail("unexpected end of input");
    auto c = static_cast<unsigned char>(text_[pos_]);
    if (c >= 0x20 && c < 0x7F) return fail(std::string("unexpected character '") + static_cast<char>(c) + "'");
    char buffer[8];
    static constexpr char kHex[] = "0123456789ABCDEF";
    buffer[0] = '0'; buffer[1] = 'x'; buffer[2] = kHex[c >> 4]; buffer[3] = kHex[c & 0xF]; buffer[4] = 0;
    return fail(std::string("unexpected byte ") + buffer);
  }

  void skip_whitespace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') ++pos_;
      else break;
    }
  }

  bool consume_literal(std::string_view literal) {
    if (text_.substr(pos_, literal.size()) != literal) return fail_unexpected();
    pos_ += literal.size();
    return true;
  }

  bool parse_value(Value& out, int depth) {
    if (pos_ >= text_.size()) return fail("unexpected end of input");
    switch (text_[pos_]) {
      case '{': return parse_object(out, depth + 1);
      case '[': return parse_array(out, depth + 1);
      case '"': {
        std::string s;
        if (!parse_string(s)) return false;
        out = Value(std::move(s));
        return true;
      }
      case 't': if (!consume_literal("true")) return false; out = Value(true); return true;
      case 'f': if (!consume_literal("false")) return false; out = Value(false); return true;
      case 'n': if (!consume_literal("null")) return false; out = Value(nullptr); return true;
      default: return parse_number(out);
    }
  }

  bool check_depth(int depth) {
    if (depth > options_.max_depth) {
      return fail("nesting deeper than " + std::to_string(options_.max_depth) + " levels", ErrorCode::Depth);
    }
    return true;
  }

  bool parse_object(Value& out, int depth) {
    if (!check_depth(depth)) return false;
    ++pos_;  // '{'
    Object object;
    // For large objects, a key index keeps duplicate detection linear.
    std::unordered_map<std::string, std::size_t> index;
    skip_whitespace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      out = Value(std::move(object));
      return true;
    }
    while (true) {
      skip_whitespace();
      if (pos_ >= text_.size() || text_[pos_] != '"') {
        if (pos_ < text_.size() && text_[pos_] == '}') return fail("trailing comma in object");
        return pos_ >= text_.size() ? fail("unexpected end of input") : fail("expected a string key");
      }
      std::string key;
      if (!parse_string(key)) return false;
      skip_whitespace();
      if (pos_ >= text_.size() || text_[pos_] != ':') {
        return pos_ >= text_.size() ? fail("unexpected end of input") : fail("expected ':' after key");
      }
      ++pos_;
      skip_whitespace();
      Value value;
      if (!parse_value(value, depth)) return false;
      std::size_t existing = find_key(object, index, key);
      if (existing != kNone) {
        object[existing].value = std::move(value);  // last value wins, first position kept
      } else {
        object.push_back(Member{std::move(key), std::move(value)});
        if (object.size() == kIndexThreshold) {
          for (std::size_t i = 0; i < object.size(); ++i) index.emplace(object[i].key, i);
        } else if (object.size() > kIndexThreshold) {
          index.emplace(object.back().key, object.size() - 1);
        }
      }
      skip_whitespace();
      if (pos_ >= text_.size()) return fail("unexpected end of input");
      if (text_[pos_] == ',') { ++pos_; continue; }
      if (text_[pos_] == '}') { ++pos_; break; }
      return fail("expected ',' or '}' in object");
    }
    out = Value(std::move(object));
    return true;
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static constexpr std::size_t kIndexThreshold = 16;

  std::size_t find_key(const Object& object, const std::unordered_map<std::string, std::size_t>& index,
                       const std::string& key) {
    if (object.size() < kIndexThreshold) {
      for (std::size_t i = 0; i < object.size(); ++i) {
        if (object[i].key == key) return i;
      }
      return kNone;
    }
    auto it = index.find(key);
    return it == index.end() ? kNone : it->second;
  }

  bool parse_array(Value& out, int depth) {
    if (!check_depth(depth)) return false;
    ++pos_;  // '['
    Array array;
    skip_whitespace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      out = Value(std::move(array));
      return true;
    }
    while (true) {
      skip_whitespace();
      if (pos_ < text_.size() && text_[pos_] == ']') return fail("trailing comma in array");
      Value value;
      if (!parse_value(value, depth)) return false;
      array.push_back(std::move(value));
      skip_whitespace();
      if (pos_ >= text_.size()) return fail("unexpected end of input");
      if (text_[pos_] == ',') { ++pos_; continue; }
      if (text_[pos_] == ']') { ++pos_; break; }
      return fail("expected ',' or ']' in array");
    }
    out = Value(std::move(array));
    return true;
  }

  bool parse_string(std::string& out) {
    ++pos_;  // opening quote
    std::size_t run_start = pos_;
    while (true) {
      if (pos_ >= text_.size()) return fail("unterminated string");
      auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        out.append(text_.data() + run_start, pos_ - run_start);
        ++pos_;
        return true;
      }
      if (c < 0x20) return fail("control character in string (must be escaped)");
      if (c == '\\') {
        out.append(text_.data() + run_start, pos_ - run_start);
        ++pos_;
        if (pos_ >= text_.size()) return fail("unterminated string");
        const char letter = text_[pos_];
        switch (decode_escape(text_, pos_, out)) {
          case EscapeError::None: break;
          case EscapeError::Truncated: return fail("unexpected end of input in \\u escape");
          case EscapeError::BadHex: return fail("invalid hex digit in \\u escape");
          case EscapeError::LoneSurrogate: return fail("lone surrogate in \\u escape");
          case EscapeError::Unknown: return fail(std::string("invalid escape '\\") + letter + "'");
        }
        run_start = pos_;
        continue;
      }
      if (c >= 0x80) {
        // Validate one UTF-8 sequence in place.
        std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (len == 1 || pos_ + len > text_.size() || !is_valid_utf8(text_.substr(pos_, len))) {
          return fail("invalid UTF-8 in string");
        }
        pos_ += len;
        continue;
      }
      ++pos_;
    }
  }

  bool parse_number(Value& out) {
    std::size_t start = pos_;
    bool is_integer = true;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    if (pos_ >= text_.size()) return fail_unexpected();
    if (text_[pos_] == '0') {
      ++pos_;
      if (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        return fail("leading zero in number");
      }
    } else if (text_[pos_] >= '1' && text_[pos_] <= '9') {
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    } else {
      return fail_unexpected();
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_integer = false;
      ++pos_;
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') {
        return fail("expected a digit after '.' in number");
      }
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      is_integer = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') {
        return fail("expected a digit in number exponent");
      }
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (is_integer) {
      std::int64_t i;
      auto [end, ec] = std::from_chars(first, last, i);
      if (ec == std::errc() && end == last) {
        out = Value(i);
        return true;
      }
      // Too large for int64 (a decision made after the freeze: ids keep their digits):
      // a Real that keeps its digits, within double's range.
      double d;
      if (std::from_chars(first, last, d).ec == std::errc::result_out_of_range) {
        pos_ = start;
        return fail("number out of range");
      }
      out = Value(BigInteger{std::string(first, last)});
      return true;
    }
    double d;
    auto [end, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      // Underflow (a tiny magnitude) rounds to zero; overflow has no value.
      std::string_view lexeme(first, static_cast<std::size_t>(last - first));
      std::size_t exp = lexeme.find_first_of("eE");
      if (exp == std::string_view::npos || exp + 1 >= lexeme.size() || lexeme[exp + 1] != '-') {
        pos_ = start;
        return fail("number out of range");
      }
      d = lexeme.front() == '-' ? -0.0 : 0.0;
    } else if (ec != std::errc() || end != last) {
      pos_ = start;
      return fail("invalid number");
    }
    out = Value(d);
    return true;
  }

  std::string_view text_;
  const ParseOptions& options_;
  std::size_t pos_ = 0;
  bool failed_ = false;
  Error error_;
};

}  // namespace

inline Result<Value> parse(std::string_view text, const ParseOptions& options = {}) {
  return Parser(text, options).run();
}


// ---- serializer ----

inline void write_string(std::string& out, std::string_view s);

namespace {

inline void write_real(std::string& out, double d) {
  if (!std::isfinite(d)) {  // not representable in JSON; JSON.stringify writes null
    out += "null";
    return;
  }
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
  std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
  out += text;
  if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

inline void newline(std::string& out, int indent, int depth) {
  out.push_back('\n');
  out.append(static_cast<std::size_t>(indent * depth), ' ');
}

inline void write(std::string& out, const Value& value, int indent, int depth) {
  switch (value.type()) {
    case Type::Null: out += "null"; return;
    case Type::Boolean: out += value.as_bool() ? "true" : "false"; return;
    case Type::Integer: {
      char buffer[24];
      auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value.as_integer());
      out.append(buffer, end);
      return;
    }
    case Type::Real:
      if (const std::string* digits = value.big_integer_digits()) {
        out += *digits;
        return;
      }
      write_real(out, value.as_real());
      return;
    case Type::String: reference::write_string(out, value.as_string()); return;
    case Type::Array: {
      const Array& array = value.as_array();
      out.push_back('[');
      for (std::size_t i = 0; i < array.size(); ++i) {
        if (i > 0) out.push_back(',');
        if (indent > 0) newline(out, indent, depth + 1);
        write(out, array[i], indent, depth + 1);
      }
      if (indent > 0 && !array.empty()) newline(out, indent, depth);
      out.push_back(']');
      return;
    }
    case Type::Object: {
      const Object& object = value.as_object();
      out.push_back('{');
      for (std::size_t i = 0; i < object.size(); ++i) {
        if (i > 0) out.push_back(',');
        if (indent > 0) newline(out, indent, depth + 1);
        reference::write_string(out, object[i].key);
        out.push_back(':');
        if (indent > 0) out.push_back(' ');
        write(out, object[i].value, indent, depth + 1);
      }
      if (indent > 0 && !object.empty()) newline(out, indent, depth);
      out.push_back('}');
      return;
    }
  }
}

}  // namespace

inline void write_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run_start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run_start, i - run_start);
    run_start = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
  }
  out.append(s.data() + run_start, s.size() - run_start);
  out.push_back('"');
}

inline std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  reference::write_string(out, s);
  return out;
}

inline void serialize_to(std::string& out, const Value& value, const SerializeOptions& options) {
  write(out, value, options.indent, 0);
}

inline std::string serialize(const Value& value, const SerializeOptions& options = {}) {
  std::string out;
  reference::serialize_to(out, value, options);
  return out;
}

/// Exact equality for the differential checks: same types (Integer vs Real),
/// same key order, same bits of every double.
inline bool same_exact(const Value& a, const Value& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::Null: return true;
    case Type::Boolean: return a.as_bool() == b.as_bool();
    case Type::Integer: return a.as_integer() == b.as_integer();
    case Type::Real: {
      const std::string* big_a = a.big_integer_digits();
      const std::string* big_b = b.big_integer_digits();
      if (big_a != nullptr || big_b != nullptr) return big_a != nullptr && big_b != nullptr && *big_a == *big_b;
      double x = a.as_real(), y = b.as_real();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case Type::String: return a.as_string() == b.as_string();
    case Type::Array: {
      const Array& x = a.as_array();
      const Array& y = b.as_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!same_exact(x[i], y[i])) return false;
      }
      return true;
    }
    case Type::Object: {
      const Object& x = a.as_object();
      const Object& y = b.as_object();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i].key != y[i].key || !same_exact(x[i].value, y[i].value)) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace weld::json::reference
