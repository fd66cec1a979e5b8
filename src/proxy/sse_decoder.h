#pragma once
// Incremental SSE decoder for upstream streams (the WHATWG event-stream
// format): bytes in any split, `data:` payloads out, one per event. Lines may
// end in \n, \r\n or \r; multi-line data is joined with \n; comments and
// other fields are ignored. An event larger than the limit is an error.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace weld::proxy {

class SseDecoder {
 public:
  explicit SseDecoder(std::size_t max_event_bytes = 16u << 20) : max_event_bytes_(max_event_bytes) {}
  /// Feeds bytes; calls `on_event(data)` for each complete event with data.
  /// Stops early and returns false when `on_event` returns false, or when an
  /// event exceeds the limit (then `too_large()` is true).
  bool feed(std::string_view bytes, const std::function<bool(std::string_view data)>& on_event);
  bool too_large() const { return too_large_; }

 private:
  bool end_line(const std::function<bool(std::string_view)>& on_event);
  std::string line_;
  std::string data_;
  bool has_data_ = false;
  bool last_was_cr_ = false;
  bool too_large_ = false;
  std::size_t max_event_bytes_;
};

}  // namespace weld::proxy
