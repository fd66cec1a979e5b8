#pragma once
/// \file
/// W3C Trace Context (https://www.w3.org/TR/trace-context/): trace and span
/// ids, and the `traceparent` header that carries them between processes
/// (docs/telemetry.md). A run joins the trace in `TRACEPARENT`; the proxy continues a
/// client's `traceparent` and sends its own upstream.
///
/// \code
///   std::optional<weld::telemetry::SpanContext> parent =
///       weld::telemetry::parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
///   std::string header = weld::telemetry::format_traceparent(*parent);
/// \endcode

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace weld::telemetry {

/// 16 bytes; all zero is invalid.
using TraceId = std::array<std::uint8_t, 16>;
/// 8 bytes; all zero is invalid.
using SpanId = std::array<std::uint8_t, 8>;

/// Where a span sits in a trace: what a child needs from its parent.
struct SpanContext {
  TraceId trace_id{};
  SpanId span_id{};
  /// The `sampled` flag (bit 0 of trace-flags).
  bool sampled = true;
  /// True when it came from another process (a `traceparent`).
  bool remote = false;

  /// False for the all-zero (absent) context.
  bool valid() const;
};

/// A fresh random trace id (never all zero).
TraceId new_trace_id();
/// A fresh random span id (never all zero).
SpanId new_span_id();

/// Lower-case hex of `bytes`.
std::string to_hex(const std::uint8_t* bytes, std::size_t size);
inline std::string to_hex(const TraceId& id) { return to_hex(id.data(), id.size()); }
inline std::string to_hex(const SpanId& id) { return to_hex(id.data(), id.size()); }

/// Parses a `traceparent` value ("00-<32 hex>-<16 hex>-<2 hex>", lower-case
/// hex; a future version may append "-..." fields). nullopt when it is not
/// one, or when an id is all zero: the caller then starts a new trace, as
/// the W3C recommendation says.
std::optional<SpanContext> parse_traceparent(std::string_view value);

/// "00-<trace id>-<span id>-<01|00>".
std::string format_traceparent(const SpanContext& context);
/// Appends the same to `out` (no allocation when `out` has the room: the
/// proxy writes one per upstream request).
void append_traceparent(std::string& out, const SpanContext& context);

}  // namespace weld::telemetry
