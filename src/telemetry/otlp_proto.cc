// OTLP as binary protobuf, encoded by hand (see otlp.h for why). Field
// numbers are opentelemetry-proto v1's (common.proto, resource.proto,
// trace.proto, metrics.proto); the e2e tests decode what this writes with
// the official JavaScript decoders generated from those files.

#include <cstring>

#include "otlp_internal.h"
#include "weld/telemetry/otlp.h"

namespace weld::telemetry::detail {
namespace {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Appends protobuf fields to a buffer; a nested message is written into its
// own Writer and appended with its length.
class Writer {
 public:
  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      out_ += static_cast<char>((value & 0x7F) | 0x80);
      value >>= 7;
    }
    out_ += static_cast<char>(value);
  }
  void tag(std::uint32_t field, WireType type) { varint((static_cast<std::uint64_t>(field) << 3) | type); }
  void uint_field(std::uint32_t field, std::uint64_t value) {
    tag(field, kVarint);
    varint(value);
  }
  void bytes_field(std::uint32_t field, std::string_view bytes) {
    tag(field, kLengthDelimited);
    varint(bytes.size());
    out_ += bytes;
  }
  void fixed64_field(std::uint32_t field, std::uint64_t value) {
    tag(field, kFixed64);
    fixed64(value);
  }
  void fixed64(std::uint64_t value) {
    for (int byte = 0; byte < 8; ++byte) out_ += static_cast<char>(value >> (8 * byte));
  }
  void double_field(std::uint32_t field, double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    fixed64_field(field, bits);
  }
  void fixed32_field(std::uint32_t field, std::uint32_t value) {
    tag(field, kFixed32);
    for (int byte = 0; byte < 4; ++byte) out_ += static_cast<char>(value >> (8 * byte));
  }
  void message(std::uint32_t field, const Writer& child) { bytes_field(field, child.out_); }
  std::string take() { return std::move(out_); }
  const std::string& data() const { return out_; }

 private:
  std::string out_;
};

template <std::size_t N>
std::string_view id_bytes(const std::array<std::uint8_t, N>& id) {
  return {reinterpret_cast<const char*>(id.data()), N};
}

// AnyValue (common.proto): string 1, bool 2, int 3, double 4, array 5.
Writer any_value(const AttributeValue& value) {
  Writer w;
  if (const auto* s = std::get_if<std::string>(&value)) {
    w.bytes_field(1, *s);
  } else if (const auto* b = std::get_if<bool>(&value)) {
    w.uint_field(2, *b ? 1 : 0);
  } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
    w.uint_field(3, static_cast<std::uint64_t>(*i));
  } else if (const auto* d = std::get_if<double>(&value)) {
    w.double_field(4, *d);
  } else if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    Writer array;  // ArrayValue: repeated AnyValue values = 1
    for (const auto& item : *list) array.message(1, any_value(AttributeValue(item)));
    w.message(5, array);
  }
  return w;
}

// KeyValue: key 1, value 2.
Writer key_value(std::string_view key, const AttributeValue& value) {
  Writer w;
  w.bytes_field(1, key);
  w.message(2, any_value(value));
  return w;
}

void attributes(Writer& w, std::uint32_t field, const Attributes& attrs) {
  for (const auto& attr : attrs) w.message(field, key_value(attr.key, attr.value));
}

void labels(Writer& w, std::uint32_t field, const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [key, value] : pairs) w.message(field, key_value(key, AttributeValue(value)));
}

// Resource: attributes 1.
Writer resource_message(const Attributes& resource) {
  Writer w;
  attributes(w, 1, resource);
  return w;
}

// InstrumentationScope: name 1, version 2.
Writer scope_message(std::string_view version) {
  Writer w;
  w.bytes_field(1, kScopeName);
  w.bytes_field(2, version);
  return w;
}

// Span (trace.proto): trace_id 1, span_id 2, parent_span_id 4, name 5,
// kind 6, start 7, end 8, attributes 9, status 15, flags 16.
Writer span_message(const SpanData& span) {
  Writer w;
  w.bytes_field(1, id_bytes(span.context.trace_id));
  w.bytes_field(2, id_bytes(span.context.span_id));
  if (has_parent(span)) w.bytes_field(4, id_bytes(span.parent_span_id));
  w.bytes_field(5, span.name);
  w.uint_field(6, static_cast<std::uint32_t>(span.kind));
  w.fixed64_field(7, span.start_unix_nano);
  w.fixed64_field(8, span.end_unix_nano);
  attributes(w, 9, span.attributes);
  if (span.status != StatusCode::Unset) {
    Writer status;  // Status: message 2, code 3
    if (!span.status_message.empty()) status.bytes_field(2, span.status_message);
    status.uint_field(3, static_cast<std::uint32_t>(span.status));
    w.message(15, status);
  }
  w.fixed32_field(16, span_flags(span));
  return w;
}

// NumberDataPoint: start 2, time 3, as_int 6 (sfixed64), attributes 7.
Writer number_point(const MetricPoint& point, const MetricsSnapshot& snapshot) {
  Writer w;
  w.fixed64_field(2, snapshot.start_unix_nano);
  w.fixed64_field(3, snapshot.time_unix_nano);
  w.fixed64_field(6, static_cast<std::uint64_t>(point.total));
  labels(w, 7, point.attributes);
  return w;
}

// HistogramDataPoint: start 2, time 3, count 4, sum 5, bucket_counts 6
// (packed fixed64), explicit_bounds 7 (packed double), attributes 9, min 11, max 12.
Writer histogram_point(const MetricPoint& point, const Instrument& instrument, const MetricsSnapshot& snapshot) {
  Writer w;
  w.fixed64_field(2, snapshot.start_unix_nano);
  w.fixed64_field(3, snapshot.time_unix_nano);
  w.fixed64_field(4, point.count);
  w.double_field(5, point.sum);
  Writer counts, bounds;
  for (std::uint64_t count : point.bucket_counts) counts.fixed64(count);
  for (double bound : instrument.bounds) {
    std::uint64_t bits;
    std::memcpy(&bits, &bound, sizeof bits);
    bounds.fixed64(bits);
  }
  w.bytes_field(6, counts.data());
  w.bytes_field(7, bounds.data());
  labels(w, 9, point.attributes);
  if (point.has_min_max) {
    w.double_field(11, point.min);
    w.double_field(12, point.max);
  }
  return w;
}

// Metric: name 1, description 2, unit 3, sum 7 / histogram 9.
Writer metric_message(const MetricData& data, const MetricsSnapshot& snapshot) {
  const Instrument& instrument = *data.instrument;
  Writer w;
  w.bytes_field(1, instrument.name);
  w.bytes_field(2, instrument.description);
  w.bytes_field(3, instrument.unit);
  Writer body;  // Sum: points 1, temporality 2, monotonic 3; Histogram: points 1, temporality 2
  for (const MetricPoint& point : data.points) {
    body.message(1, instrument.kind == InstrumentKind::Counter ? number_point(point, snapshot)
                                                               : histogram_point(point, instrument, snapshot));
  }
  body.uint_field(2, kCumulative);
  if (instrument.kind == InstrumentKind::Counter) {
    body.uint_field(3, 1);
    w.message(7, body);
  } else {
    w.message(9, body);
  }
  return w;
}

}  // namespace

std::string traces_proto(const std::vector<SpanData>& spans, const Attributes& resource, std::string_view version) {
  Writer scope_spans;  // ScopeSpans: scope 1, spans 2
  scope_spans.message(1, scope_message(version));
  for (const SpanData& span : spans) scope_spans.message(2, span_message(span));
  Writer resource_spans;  // ResourceSpans: resource 1, scope_spans 2
  resource_spans.message(1, resource_message(resource));
  resource_spans.message(2, scope_spans);
  Writer request;  // ExportTraceServiceRequest: resource_spans 1
  request.message(1, resource_spans);
  return request.take();
}

std::string metrics_proto(const MetricsSnapshot& snapshot, const Attributes& resource, std::string_view version) {
  Writer scope_metrics;  // ScopeMetrics: scope 1, metrics 2
  scope_metrics.message(1, scope_message(version));
  for (const MetricData& data : snapshot.metrics) scope_metrics.message(2, metric_message(data, snapshot));
  Writer resource_metrics;  // ResourceMetrics: resource 1, scope_metrics 2
  resource_metrics.message(1, resource_message(resource));
  resource_metrics.message(2, scope_metrics);
  Writer request;  // ExportMetricsServiceRequest: resource_metrics 1
  request.message(1, resource_metrics);
  return request.take();
}

}  // namespace weld::telemetry::detail
