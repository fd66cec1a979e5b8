// SSE decoding per the WHATWG HTML standard, section "Interpreting an event
// stream" (https://html.spec.whatwg.org/multipage/server-sent-events.html).
// Line splitting works on bytes, so a UTF-8 sequence split across chunks is
// simply buffered until its line ends; each complete line is then
// checked and invalid UTF-8 is replaced by U+FFFD like the standard's decoder.
#include "weld/provider/sse.h"

#include <cstring>
#include <string>


namespace weld::provider {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// Length of the well-formed UTF-8 sequence at s[i] (Unicode Table 3-7), or 0.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = byte(0);
  if (c < 0x80) return 1;
  std::size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + need >= s.size()) return 0;  // truncated sequence
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (std::size_t k = 2; k <= need; ++k)
    if ((byte(k) & 0xC0) != 0x80) return 0;
  return need + 1;
}

bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = sequence_length(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// Valid UTF-8 passes through; each malformed byte becomes U+FFFD.
std::string to_valid_utf8(std::string_view line) {
  std::string out;
  out.reserve(line.size() + 8);
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t len = sequence_length(line, i);
    if (len == 0) {
      out.append("\xEF\xBF\xBD");
      ++i;
    } else {
      out.append(line.substr(i, len));
      i += len;
    }
  }
  return out;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

Status SseDecoder::fail(std::string message) {
  error_ = Error{ErrorCode::Protocol, std::move(message), ""};
  line_.clear();
  data_.clear();
  return *error_;
}

Status SseDecoder::feed(std::string_view bytes, std::vector<SseEvent>& out) {
  if (error_) return *error_;
  std::string bom_prefixed;
  if (!bom_checked_) {
    // The BOM itself may be split across chunks: hold the first bytes in
    // line_ until they either complete a BOM or stop matching one.
    std::size_t take = 0;
    while (take < bytes.size() && line_.size() < kBom.size() &&
           bytes[take] == kBom[line_.size()]) {
      line_.push_back(bytes[take]);
      ++take;
    }
    if (line_.size() == kBom.size()) {
      line_.clear();
      bom_checked_ = true;
      bytes.remove_prefix(take);
    } else if (take == bytes.size()) {
      return Ok{};  // still a possible BOM prefix
    } else {
      bom_checked_ = true;
      bom_prefixed = line_;
      bom_prefixed.append(bytes.substr(take));
      line_.clear();
      bytes = bom_prefixed;
    }
  }
  while (!bytes.empty()) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (bytes.front() == '\n') {
        bytes.remove_prefix(1);
        continue;
      }
    }
    // memchr for LF, then for CR before it (string_view::find_first_of
    // calls memchr on the needle for every haystack byte: it dominated
    // profiles; see bench/sse).
    const char* begin = bytes.data();
    const void* lf = std::memchr(begin, '\n', bytes.size());
    std::size_t end = lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - begin) : bytes.size();
    if (const void* cr = std::memchr(begin, '\r', end))
      end = static_cast<std::size_t>(static_cast<const char*>(cr) - begin);
    if (end == bytes.size()) {
      if (line_.size() + bytes.size() > limits_.max_line_bytes)
        return fail("SSE line longer than " + std::to_string(limits_.max_line_bytes) + " bytes");
      line_.append(bytes);
      return Ok{};
    }
    if (line_.size() + end > limits_.max_line_bytes)
      return fail("SSE line longer than " + std::to_string(limits_.max_line_bytes) + " bytes");
    skip_lf_ = bytes[end] == '\r';
    Status st = Ok{};
    if (line_.empty()) {
      st = process_line(bytes.substr(0, end), out);
    } else {
      line_.append(bytes.substr(0, end));
      std::string line = std::move(line_);
      line_.clear();
      st = process_line(line, out);
    }
    if (!st) return st;
    bytes.remove_prefix(end + 1);
  }
  return Ok{};
}

Status SseDecoder::process_line(std::string_view raw, std::vector<SseEvent>& out) {
  if (raw.empty()) {
    dispatch(out);
    return Ok{};
  }
  std::string fixed;
  std::string_view line = raw;
  if (!is_valid_utf8(raw)) {
    fixed = to_valid_utf8(raw);
    line = fixed;
  }
  if (line.front() == ':') {
    ++comments_;
    return Ok{};
  }
  ++field_lines_;
  std::string_view field = line;
  std::string_view value;
  if (std::size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  pending_fields_ = true;
  if (field == "event") {
    event_type_.assign(value);
  } else if (field == "data") {
    std::size_t added = value.size() + (has_data_ ? 1 : 0);
    if (data_.size() + added > limits_.max_event_bytes)
      return fail("SSE event larger than " + std::to_string(limits_.max_event_bytes) + " bytes");
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (field == "retry") {
    if (all_digits(value) && value.size() <= 15) retry_ms_ = std::stoll(std::string(value));
  }
  // Any other field is ignored, as the standard says.
  return Ok{};
}

void SseDecoder::dispatch(std::vector<SseEvent>& out) {
  pending_fields_ = false;
  if (!has_data_) {
    // No data: nothing is dispatched; the event type buffer is reset.
    event_type_.clear();
    retry_ms_.reset();
    return;
  }
  SseEvent event;
  if (!event_type_.empty()) event.type = std::move(event_type_);
  event.data = std::move(data_);
  event.id = last_id_;
  event.retry_ms = retry_ms_;
  out.push_back(std::move(event));
  event_type_.clear();
  data_.clear();
  has_data_ = false;
  retry_ms_.reset();
}

bool SseDecoder::finish() {
  bool partial = pending_fields_ || !line_.empty();
  line_.clear();
  data_.clear();
  event_type_.clear();
  has_data_ = false;
  pending_fields_ = false;
  return partial;
}

}  // namespace weld::provider
