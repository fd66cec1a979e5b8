#pragma once
// Shared by the two OTLP encoders (otlp_proto.cc, otlp_json.cc).

#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weld/telemetry/metrics.h"
#include "weld/telemetry/span.h"

namespace weld::telemetry::detail {

/// AggregationTemporality CUMULATIVE (metrics.proto).
inline constexpr std::uint32_t kCumulative = 2;

/// True when the span has a parent (a non-zero parent span id).
inline bool has_parent(const SpanData& span) {
  std::uint64_t id;
  static_assert(sizeof id == sizeof span.parent_span_id);
  std::memcpy(&id, span.parent_span_id.data(), sizeof id);
  return id != 0;
}

/// Span.flags: the W3C trace flags (bit 0: sampled).
inline std::uint32_t span_flags(const SpanData& span) { return span.context.sampled ? 0x01 : 0x00; }

/// `storage`: a previous body to write over (its allocation is reused).
std::string traces_proto(std::span<const SpanData* const> spans, const Attributes& resource, std::string_view version,
                         std::string storage);
std::string metrics_proto(const MetricsSnapshot& snapshot, const Attributes& resource, std::string_view version);
std::string traces_json(std::span<const SpanData* const> spans, const Attributes& resource, std::string_view version);
std::string metrics_json(const MetricsSnapshot& snapshot, const Attributes& resource, std::string_view version);

}  // namespace weld::telemetry::detail
