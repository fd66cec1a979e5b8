// Compactor (see compact.h). Tokens are given out whole, except a string's
// content, which is cut where scan_string says it may be (never inside an
// escape, a surrogate pair or a UTF-8 sequence). The escaping and number
// rules are serialize's own: each piece goes through parse and serialize.

#include "weld/json/compact.h"

#include "scan.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"

namespace weld::json {

std::string Compactor::feed(std::string_view fragment) {
  if (stopped_) return {};
  pending_.append(fragment);
  return drain(false);
}

std::string Compactor::finish() {
  if (stopped_) return {};
  std::string out = drain(true);
  if (!stopped_ && (in_string_ || depth_ > 0 || !done_)) stopped_ = true;
  return out;
}

bool Compactor::append_string_content(std::string& out, std::string_view raw) {
  if (raw.empty()) return true;
  // Most content needs no rewriting: no escape, no control character, valid
  // UTF-8 is written by serialize as it is.
  bool plain = true;
  for (char c : raw) plain = plain && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
  if (plain && is_valid_utf8(raw)) {
    out += raw;
    return true;
  }
  std::string quoted;
  quoted.reserve(raw.size() + 2);
  quoted += '"';
  quoted += raw;
  quoted += '"';
  Result<Value> decoded = parse(quoted);
  if (!decoded || !decoded->is_string()) return false;
  quoted.clear();
  write_string(quoted, decoded->as_string());
  out.append(quoted, 1, quoted.size() - 2);
  return true;
}

std::string Compactor::drain(bool at_end) {
  std::string out;
  std::size_t pos = 0;
  auto stop = [&] {
    stopped_ = true;
    pending_.clear();
    return out;
  };
  auto value_done = [&] {
    if (depth_ == 0) done_ = true;
  };
  while (pos < pending_.size()) {
    if (in_string_) {
      // pending_[pos] is the string's opening quote (kept until it closes).
      std::size_t safe_end = 0;
      const std::size_t length = detail::scan_string(pending_, pos, safe_end);
      if (length == detail::kBadString) return stop();
      if (length == std::string_view::npos) {
        if (!append_string_content(out, std::string_view(pending_).substr(pos + 1, safe_end - pos - 1))) {
          return stop();
        }
        pending_.erase(pos + 1, safe_end - pos - 1);
        break;
      }
      if (!append_string_content(out, std::string_view(pending_).substr(pos + 1, length - 2))) return stop();
      out += '"';
      pos += length;
      in_string_ = false;
      value_done();  // a key only closes inside a container: no effect
      continue;
    }
    const char c = pending_[pos];
    if (detail::is_space(c)) {
      ++pos;
      continue;
    }
    if (done_) return stop();  // text after the root value
    switch (c) {
      case '{':
      case '[':
        ++depth_;
        out += c;
        ++pos;
        continue;
      case '}':
      case ']':
        if (depth_ == 0) return stop();
        --depth_;
        out += c;
        ++pos;
        value_done();
        continue;
      case ':':
      case ',':
        out += c;
        ++pos;
        continue;
      case '"':
        out += '"';
        in_string_ = true;
        continue;  // the quote stays: scan_string starts at it
      default:
        break;
    }
    // A number or a literal: complete once a delimiter follows.
    std::size_t end = pos;
    while (end < pending_.size() && !detail::ends_token(pending_[end]) && pending_[end] != ':') ++end;
    if (end == pending_.size() && !at_end) break;
    const std::string_view token = std::string_view(pending_).substr(pos, end - pos);
    if (token == "true" || token == "false" || token == "null") {
      out += token;
    } else if (detail::is_number(token)) {
      Result<Value> number = parse(token);
      if (!number) return stop();
      serialize_to(out, *number);
    } else {
      return stop();
    }
    pos = end;
    value_done();
  }
  pending_.erase(0, pos);
  return out;
}

}  // namespace weld::json
