// close_prefix (see partial.h). One pass over the text with a stack of open
// containers, remembering the last place where everything before it is
// complete ("checkpoint"): after an opening bracket, and after each complete
// value. Nothing after a checkpoint pops the stack without making a newer
// checkpoint, so a checkpoint only needs the stack's depth, not a copy.

#include "weld/json/partial.h"

#include <vector>

namespace weld::json {
namespace {

enum class Expect {
  Value,        // a value (top level, after ':' or after ',' in an array)
  ValueOrClose, // after '['

  KeyOrClose,  // after '{'
  Key,         // after ',' in an object
  Colon,       // after a key
  CommaOrClose,
  Done,        // the root value is complete
};

// Not a string: a bad \u escape.
constexpr std::size_t kBadString = std::string_view::npos - 1;

// RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_number(std::string_view token) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t from = i;
    while (i < token.size() && token[i] >= '0' && token[i] <= '9') ++i;
    return i > from;
  };
  if (i < token.size() && token[i] == '-') ++i;
  if (i < token.size() && token[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < token.size() && token[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == token.size();
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool ends_token(char c) { return is_space(c) || c == ',' || c == ']' || c == '}'; }

// Length of the string starting at `text[start]` == '"' up to and including
// its closing quote; npos when it has not closed yet. `safe_end` receives the
// last position inside it where the content may be cut (not inside an
// escape, a \u sequence, a surrogate pair or a UTF-8 sequence).
std::size_t scan_string(std::string_view text, std::size_t start, std::size_t& safe_end) {
  std::size_t pos = start + 1;
  safe_end = pos;
  while (pos < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c == '"') return pos + 1 - start;
    if (c == '\\') {
      if (pos + 1 >= text.size()) return std::string_view::npos;
      if (text[pos + 1] != 'u') {
        pos += 2;
        safe_end = pos;
        continue;
      }
      if (pos + 6 > text.size()) return std::string_view::npos;
      unsigned code = 0;
      for (char h : text.substr(pos + 2, 4)) {
        int digit = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (digit < 0) return kBadString;
        code = code * 16 + static_cast<unsigned>(digit);
      }
      pos += 6;
      // A high surrogate is only safe once its low half follows.
      if (code < 0xD800 || code > 0xDBFF) safe_end = pos;
      continue;
    }
    std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (pos + length > text.size()) return std::string_view::npos;
    pos += length;
    safe_end = pos;
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<ClosedPrefix> close_prefix(std::string_view text) {
  std::vector<char> stack;  // the closers of the open containers, '}' or ']'
  Expect expect = Expect::Value;
  std::size_t values = 0;
  // The last checkpoint: text[0, cut) is complete at stack depth `depth`.
  std::optional<std::size_t> cut;
  std::size_t depth = 0;
  std::size_t cut_values = 0;
  // An open string value at the end: text[0, open_end) + '"' at depth
  // stack.size().
  std::optional<std::size_t> open_end;

  auto checkpoint = [&](std::size_t at) {
    cut = at;
    depth = stack.size();
    cut_values = values;
  };
  auto value_done = [&](std::size_t at) {
    ++values;
    if (stack.empty()) {
      expect = Expect::Done;
      checkpoint(at);
      return;
    }
    expect = Expect::CommaOrClose;
    checkpoint(at);
  };

  std::size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (is_space(c)) {
      ++pos;
      continue;
    }
    if (expect == Expect::Done) return std::nullopt;  // text after the root value
    if (expect == Expect::Colon) {
      if (c != ':') return std::nullopt;
      expect = Expect::Value;
      ++pos;
      continue;
    }
    if (expect == Expect::CommaOrClose) {
      if (c == ',') {
        expect = stack.back() == '}' ? Expect::Key : Expect::Value;
        ++pos;
        continue;
      }
      if (c != stack.back()) return std::nullopt;
      stack.pop_back();
      ++pos;
      value_done(pos);
      continue;
    }
    if (expect == Expect::KeyOrClose || expect == Expect::Key) {
      if (c == '}' && expect == Expect::KeyOrClose) {
        stack.pop_back();
        ++pos;
        value_done(pos);
        continue;
      }
      if (c != '"') return std::nullopt;
      std::size_t safe_end = 0;
      std::size_t length = scan_string(text, pos, safe_end);
      if (length == kBadString) return std::nullopt;
      if (length == std::string_view::npos) break;  // a key still being written
      pos += length;
      expect = Expect::Colon;
      continue;
    }
    // expect == Value or ValueOrClose.
    if (c == ']' && expect == Expect::ValueOrClose) {
      stack.pop_back();
      ++pos;
      value_done(pos);
      continue;
    }
    if (c == '{' || c == '[') {
      stack.push_back(c == '{' ? '}' : ']');
      ++pos;
      expect = c == '{' ? Expect::KeyOrClose : Expect::ValueOrClose;
      checkpoint(pos);
      continue;
    }
    if (c == '"') {
      std::size_t safe_end = 0;
      std::size_t length = scan_string(text, pos, safe_end);
      if (length == kBadString) return std::nullopt;
      if (length == std::string_view::npos) {
        if (!stack.empty()) open_end = safe_end;
        break;
      }
      pos += length;
      value_done(pos);
      continue;
    }
    // A number or a literal: complete once a delimiter follows.
    std::size_t end = pos;
    while (end < text.size() && !ends_token(text[end])) ++end;
    if (end == text.size()) break;
    std::string_view token = text.substr(pos, end - pos);
    bool literal = token == "true" || token == "false" || token == "null";
    if (!literal && !is_number(token)) return std::nullopt;
    pos = end;
    value_done(pos);
  }

  ClosedPrefix out;
  if (open_end) {
    out.text.assign(text.substr(0, *open_end));
    out.text += '"';
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) out.text += *it;
    out.complete_values = values;
    return out;
  }
  if (!cut) return std::nullopt;
  out.text.assign(text.substr(0, *cut));
  for (std::size_t i = depth; i-- > 0;) out.text += stack[i];
  out.complete_values = cut_values;
  return out;
}

}  // namespace weld::json
