// close_prefix (see partial.h). One pass over the text with a stack of open
// containers, remembering the last place where everything before it is
// complete ("checkpoint"): after an opening bracket, and after each complete
// value. Nothing after a checkpoint pops the stack without making a newer
// checkpoint, so a checkpoint only needs the stack's depth, not a copy.

#include "weld/json/partial.h"

#include <vector>

#include "scan.h"

namespace weld::json {
namespace {

using detail::ends_token;
using detail::is_number;
using detail::is_space;
using detail::kBadString;
using detail::scan_string;

enum class Expect {
  Value,        // a value (top level, after ':' or after ',' in an array)
  ValueOrClose, // after '['

  KeyOrClose,  // after '{'
  Key,         // after ',' in an object
  Colon,       // after a key
  CommaOrClose,
  Done,        // the root value is complete
};

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
