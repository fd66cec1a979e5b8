// OTLP as JSON (the OTLP/HTTP JSON mapping of opentelemetry-proto v1):
// trace and span ids as hex strings, lowerCamelCase field names, 64-bit
// integers as decimal strings, enums as numbers. Also the line format of
// --telemetry-file (one request per line, as the Collector's file exporter
// writes).

#include <cmath>

#include "otlp_internal.h"
#include "weld/json/serialize.h"
#include "weld/json/value.h"
#include "weld/telemetry/otlp.h"

namespace weld::telemetry::detail {
namespace {

void number(std::string& out, double value) {
  // JSON has no NaN or infinity; no weld metric produces one, but a bad
  // clock must not make the body unreadable.
  json::serialize_to(out, json::Value(std::isfinite(value) ? value : 0.0));
}

void quoted_u64(std::string& out, std::uint64_t value) {
  out += '"';
  out += std::to_string(value);
  out += '"';
}

void string_value(std::string& out, std::string_view text) {
  out += "{\"stringValue\":";
  json::write_string(out, text);
  out += '}';
}

void int_value(std::string& out, std::int64_t value) {
  out += "{\"intValue\":\"";
  out += std::to_string(value);
  out += "\"}";
}

void double_value(std::string& out, double value) {
  out += "{\"doubleValue\":";
  number(out, value);
  out += '}';
}

void bool_value(std::string& out, bool value) { out += value ? "{\"boolValue\":true}" : "{\"boolValue\":false}"; }

// An array of strings: `for_each_item(f)` calls f with each.
template <typename Items>
void string_array_value(std::string& out, Items&& for_each_item) {
  out += "{\"arrayValue\":{\"values\":[";
  bool first = true;
  for_each_item([&](std::string_view item) {
    if (!first) out += ',';
    first = false;
    string_value(out, item);
  });
  out += "]}}";
}

// {"key":KEY,"value":...} with the value written by `value()`.
template <typename Value>
void key_value(std::string& out, std::string_view key, Value&& value) {
  out += "{\"key\":";
  json::write_string(out, key);
  out += ",\"value\":";
  value();
  out += '}';
}

void attributes(std::string& out, const Attributes& attrs) {
  out += "\"attributes\":[";
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    if (i > 0) out += ',';
    const AttributeValue& value = attrs[i].value;
    key_value(out, attrs[i].key, [&] {
      if (const auto* text = std::get_if<std::string>(&value)) {
        string_value(out, *text);
      } else if (const auto* flag = std::get_if<bool>(&value)) {
        bool_value(out, *flag);
      } else if (const auto* integer = std::get_if<std::int64_t>(&value)) {
        int_value(out, *integer);
      } else if (const auto* real = std::get_if<double>(&value)) {
        double_value(out, *real);
      } else if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
        string_array_value(out, [&](auto&& f) {
          for (const std::string& item : *list) f(item);
        });
      } else {
        out += "{}";
      }
    });
  }
  out += ']';
}

void attributes(std::string& out, const SpanData& span) {
  out += "\"attributes\":[";
  bool first = true;
  for (std::size_t i = 0; i < span.attribute_count(); ++i) {
    const AttributeView attribute = span.attribute(i);
    if (!first) out += ',';
    first = false;
    key_value(out, attribute.key, [&] {
      switch (attribute.kind) {
        case ValueKind::String: string_value(out, attribute.text); break;
        case ValueKind::Int: int_value(out, attribute.int_value); break;
        case ValueKind::Double: double_value(out, attribute.double_value); break;
        case ValueKind::Bool: bool_value(out, attribute.bool_value); break;
        case ValueKind::StringArray:
          string_array_value(out, [&](auto&& f) { SpanData::for_each_item(attribute, f); });
          break;
      }
    });
  }
  out += ']';
}

void labels(std::string& out, const std::vector<std::pair<std::string, std::string>>& pairs) {
  out += "\"attributes\":[";
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i > 0) out += ',';
    key_value(out, pairs[i].first, [&] { string_value(out, pairs[i].second); });
  }
  out += ']';
}

// "resource":{...},"scope...":[{"scope":{...},
void resource_and_scope(std::string& out, const Attributes& resource, std::string_view scope_key,
                        std::string_view version) {
  out += "\"resource\":{";
  attributes(out, resource);
  out += "},\"";
  out += scope_key;
  out += "\":[{\"scope\":{\"name\":";
  json::write_string(out, kScopeName);
  out += ",\"version\":";
  json::write_string(out, version);
  out += "},";
}

void span_json(std::string& out, const SpanData& span) {
  out += "{\"traceId\":\"" + to_hex(span.context.trace_id) + "\",\"spanId\":\"" + to_hex(span.context.span_id) + "\"";
  if (has_parent(span)) out += ",\"parentSpanId\":\"" + to_hex(span.parent_span_id) + "\"";
  out += ",\"flags\":" + std::to_string(span_flags(span));
  out += ",\"name\":";
  json::write_string(out, span.name());
  out += ",\"kind\":" + std::to_string(static_cast<int>(span.kind));
  out += ",\"startTimeUnixNano\":";
  quoted_u64(out, span.start_unix_nano);
  out += ",\"endTimeUnixNano\":";
  quoted_u64(out, span.end_unix_nano);
  out += ',';
  attributes(out, span);
  out += ",\"status\":{";
  if (span.status != StatusCode::Unset) {
    out += "\"code\":" + std::to_string(static_cast<int>(span.status));
    if (!span.status_message().empty()) {
      out += ",\"message\":";
      json::write_string(out, span.status_message());
    }
  }
  out += "}}";
}

void point_times(std::string& out, const MetricsSnapshot& snapshot) {
  out += ",\"startTimeUnixNano\":";
  quoted_u64(out, snapshot.start_unix_nano);
  out += ",\"timeUnixNano\":";
  quoted_u64(out, snapshot.time_unix_nano);
}

void metric_json(std::string& out, const MetricData& data, const MetricsSnapshot& snapshot) {
  const Instrument& instrument = *data.instrument;
  out += "{\"name\":";
  json::write_string(out, instrument.name);
  out += ",\"description\":";
  json::write_string(out, instrument.description);
  out += ",\"unit\":";
  json::write_string(out, instrument.unit);
  const bool counter = instrument.kind == InstrumentKind::Counter;
  out += counter ? ",\"sum\":{\"dataPoints\":[" : ",\"histogram\":{\"dataPoints\":[";
  for (std::size_t i = 0; i < data.points.size(); ++i) {
    const MetricPoint& point = data.points[i];
    if (i > 0) out += ',';
    out += '{';
    labels(out, point.attributes);
    point_times(out, snapshot);
    if (counter) {
      out += ",\"asInt\":\"" + std::to_string(point.total) + "\"}";
      continue;
    }
    out += ",\"count\":";
    quoted_u64(out, point.count);
    out += ",\"sum\":";
    number(out, point.sum);
    out += ",\"bucketCounts\":[";
    for (std::size_t b = 0; b < point.bucket_counts.size(); ++b) {
      if (b > 0) out += ',';
      quoted_u64(out, point.bucket_counts[b]);
    }
    out += "],\"explicitBounds\":[";
    for (std::size_t b = 0; b < instrument.bounds.size(); ++b) {
      if (b > 0) out += ',';
      number(out, instrument.bounds[b]);
    }
    out += ']';
    if (point.has_min_max) {
      out += ",\"min\":";
      number(out, point.min);
      out += ",\"max\":";
      number(out, point.max);
    }
    out += '}';
  }
  out += "],\"aggregationTemporality\":" + std::to_string(kCumulative);
  if (counter) out += ",\"isMonotonic\":true";
  out += "}}";
}

}  // namespace

std::string traces_json(std::span<const SpanData* const> spans, const Attributes& resource, std::string_view version) {
  std::string out = "{\"resourceSpans\":[{";
  resource_and_scope(out, resource, "scopeSpans", version);
  out += "\"spans\":[";
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (i > 0) out += ',';
    span_json(out, *spans[i]);
  }
  out += "]}]}]}";
  return out;
}

std::string metrics_json(const MetricsSnapshot& snapshot, const Attributes& resource, std::string_view version) {
  std::string out = "{\"resourceMetrics\":[{";
  resource_and_scope(out, resource, "scopeMetrics", version);
  out += "\"metrics\":[";
  for (std::size_t i = 0; i < snapshot.metrics.size(); ++i) {
    if (i > 0) out += ',';
    metric_json(out, snapshot.metrics[i], snapshot);
  }
  out += "]}]}]}";
  return out;
}

}  // namespace weld::telemetry::detail

namespace weld::telemetry {

std::string encode_traces(std::span<const SpanData* const> spans, const Attributes& resource, Protocol protocol,
                          std::string_view scope_version, std::string storage) {
  return protocol == Protocol::HttpJson ? detail::traces_json(spans, resource, scope_version)
                                        : detail::traces_proto(spans, resource, scope_version, std::move(storage));
}

std::string encode_traces(std::span<const SpanData> spans, const Attributes& resource, Protocol protocol,
                          std::string_view scope_version, std::string storage) {
  std::vector<const SpanData*> pointers;
  pointers.reserve(spans.size());
  for (const SpanData& span : spans) pointers.push_back(&span);
  return encode_traces(std::span<const SpanData* const>(pointers), resource, protocol, scope_version, std::move(storage));
}

std::string encode_metrics(const MetricsSnapshot& snapshot, const Attributes& resource, Protocol protocol,
                           std::string_view scope_version) {
  return protocol == Protocol::HttpJson ? detail::metrics_json(snapshot, resource, scope_version)
                                        : detail::metrics_proto(snapshot, resource, scope_version);
}

std::string_view content_type(Protocol protocol) {
  return protocol == Protocol::HttpJson ? "application/json" : "application/x-protobuf";
}

}  // namespace weld::telemetry
