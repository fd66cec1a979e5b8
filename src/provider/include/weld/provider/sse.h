#pragma once
/// \file
/// An incremental Server-Sent Events decoder following the WHATWG HTML
/// "event stream interpretation" rules: `event:`, `data:` (several lines
/// joined with "\n"), `id:`, `retry:`, `:` comments, CRLF/CR/LF line ends, a
/// leading BOM, an optional single space after the colon. Bytes may arrive in
/// arbitrary chunks (a field, a line end or a UTF-8 sequence may be split).
/// Invalid UTF-8 is replaced by U+FFFD as the standard's decoder does.
/// Memory is bounded: a line or an event larger than the limit is an error.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"

namespace weld::provider {

/// One dispatched event.
struct SseEvent {
  /// The `event:` field, "message" when absent.
  std::string type = "message";
  /// The `data:` lines joined with "\n".
  std::string data;
  /// The last event id seen so far (the `id:` field persists across events).
  std::string id;
  /// The `retry:` value in milliseconds, when this event carried one.
  std::optional<std::int64_t> retry_ms;
};

/// Limits of `SseDecoder`.
struct SseLimits {
  /// Longest line accepted, in bytes (without its line end).
  std::size_t max_line_bytes = 16u << 20;
  /// Largest event accepted (sum of its data, in bytes).
  std::size_t max_event_bytes = 16u << 20;
};

/// Incremental SSE decoder. Usage:
/// \code
///   weld::provider::SseDecoder decoder;
///   std::vector<weld::provider::SseEvent> events;
///   for (auto chunk : chunks)
///     if (auto st = decoder.feed(chunk, events); !st) return st.error();
///   // events now holds every complete event; decoder.finish() at EOF.
/// \endcode
class SseDecoder {
 public:
  explicit SseDecoder(SseLimits limits = {}) : limits_(limits) {}

  /// Consumes `bytes` and appends each event completed by them to `out`.
  /// After an error (code "protocol": a line or event over the limit) the
  /// decoder stays failed and returns the same error.
  Status feed(std::string_view bytes, std::vector<SseEvent>& out);

  /// End of stream. Per the standard, an event not terminated by a blank
  /// line is discarded; `true` is returned when such a partial event (or a
  /// partial line) was pending, so a caller can report a truncated stream.
  bool finish();

  /// Number of comment lines (`:`…) seen; servers send them as keep-alives.
  std::size_t comment_count() const { return comments_; }
  /// Number of field lines (`data:`, `event:`, …) seen: progress, unlike
  /// comments and blank lines.
  std::size_t field_line_count() const { return field_lines_; }
  /// True when the line still being received is a field line (not a
  /// comment): its bytes are progress too.
  bool pending_field_line() const { return !line_.empty() && line_.front() != ':'; }

 private:
  Status fail(std::string message);
  Status process_line(std::string_view line, std::vector<SseEvent>& out);
  void dispatch(std::vector<SseEvent>& out);

  SseLimits limits_;
  std::string line_;          // bytes of the current, unterminated line
  bool bom_checked_ = false;  // the first bytes were checked for a BOM
  bool skip_lf_ = false;      // the previous line ended in CR: a following LF belongs to it
  std::string event_type_;
  std::string data_;
  bool has_data_ = false;     // at least one data field (data may be empty)
  bool pending_fields_ = false;
  std::string last_id_;
  std::optional<std::int64_t> retry_ms_;
  std::size_t comments_ = 0;
  std::size_t field_lines_ = 0;
  std::optional<Error> error_;
};

}  // namespace weld::provider
