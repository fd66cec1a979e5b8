// See sse_decoder.h. Used on the tagged path only (untagged streams are
// relayed as bytes, never decoded).

#include "sse_decoder.h"

namespace weld::proxy {

bool SseDecoder::end_line(const std::function<bool(std::string_view)>& on_event) {
  if (line_.empty()) {  // blank line: dispatch
    bool keep_going = true;
    if (has_data_) keep_going = on_event(data_);
    data_.clear();
    has_data_ = false;
    return keep_going;
  }
  std::string_view line = line_;
  if (line.front() != ':') {
    std::size_t colon = line.find(':');
    std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "data") {
      if (has_data_) data_ += '\n';
      data_ += value;
      has_data_ = true;
    }
  }
  line_.clear();
  return true;
}

bool SseDecoder::feed(std::string_view bytes, const std::function<bool(std::string_view)>& on_event) {
  for (char c : bytes) {
    if (c == '\n' && last_was_cr_) {  // the \n of a \r\n pair
      last_was_cr_ = false;
      continue;
    }
    last_was_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      if (!end_line(on_event)) return false;
      continue;
    }
    line_ += c;
    if (line_.size() + data_.size() > max_event_bytes_) {
      too_large_ = true;
      return false;
    }
  }
  return true;
}

}  // namespace weld::proxy
