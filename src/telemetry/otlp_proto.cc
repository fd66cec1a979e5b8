// OTLP as binary protobuf, encoded by hand (see otlp.h for why). Field
// numbers are opentelemetry-proto v1's (common.proto, resource.proto,
// trace.proto, metrics.proto); the e2e tests decode what this writes with
// the official JavaScript decoders generated from those files.

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>
#include <variant>

#include "otlp_internal.h"
#include "proto_wire.h"
#include "weld/telemetry/otlp.h"

namespace weld::telemetry::detail {
namespace {

using wire::WireType;
using wire::kVarint;
using wire::kFixed64;
using wire::kLengthDelimited;
using wire::kFixed32;
using wire::copy_bytes;

// Writes protobuf fields into one buffer. A nested message is written in
// place after a one-byte length placeholder, which is widened (the message
// moved up) when the message turns out longer than 127 bytes: no buffer per
// message and no copy of its bytes into its parent's (what an export of 512
// spans costs the proxy's CPU). The buffer may be a previous
// body's storage, written over without being cleared first.
class Writer {
 public:
  // Writes over `storage` from byte `from` on (the bytes before it are
  // kept: an append).
  Writer(std::string storage, std::size_t expected, std::size_t from = 0) : buffer_(std::move(storage)) {
    // Only the bytes not written before are cleared (std::string has no
    // uninitialised resize): a body written over the last one, of about its
    // size, clears next to nothing.
    expected = from + std::max<std::size_t>(expected, 256);
    if (buffer_.size() < expected) buffer_.resize(expected);
    at_ = buffer_.data() + from;
    end_ = buffer_.data() + buffer_.size();
  }

  /// The bytes written.
  std::string take() {
    buffer_.resize(size());
    return std::move(buffer_);
  }

  void varint(std::uint64_t value) {
    room(10);
    put_varint(value);
  }
  void tag(std::uint32_t field, WireType type) {
    room(10);
    put_tag(field, type);
  }
  void uint_field(std::uint32_t field, std::uint64_t value) {
    room(20);
    put_tag(field, kVarint);
    put_varint(value);
  }
  void bytes_field(std::uint32_t field, std::string_view bytes) {
    room(20 + bytes.size());
    at_ = wire::put_bytes_field(at_, field, bytes);
  }
  void fixed64_field(std::uint32_t field, std::uint64_t value) {
    room(20);
    put_tag(field, kFixed64);
    put_little_endian(value, 8);
  }
  void fixed64(std::uint64_t value) {
    room(8);
    put_little_endian(value, 8);
  }
  void double_field(std::uint32_t field, double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    fixed64_field(field, bits);
  }
  void fixed32_field(std::uint32_t field, std::uint32_t value) {
    room(20);
    put_tag(field, kFixed32);
    put_little_endian(value, 4);
  }
  // Field `field` holding KeyValue{key, value}: every length known before
  // the first byte, one check for room.
  template <typename Value>
  void key_value(std::uint32_t field, std::string_view key, const Value& value) {
    const std::size_t size = wire::key_value_size(field, key, value);
    room(size);
    at_ = wire::put_key_value(at_, field, key, value);
  }
  // `n` bytes that `put(char*)` writes, returning where it stopped.
  template <typename Put>
  void write(std::size_t n, Put&& put) {
    room(n);
    at_ = put(at_);
  }
  // Bytes already encoded (spans).
  void raw(std::string_view bytes) {
    room(bytes.size());
    copy_bytes(at_, bytes.data(), bytes.size());
    at_ += bytes.size();
  }
  // Field `field` holding the message that `body` writes into this Writer,
  // `expected` bytes long when the caller could tell: the length goes first,
  // in the bytes that many need (one when unknown), and the body is written
  // after it, in place. A message longer or shorter than that width is moved
  // once its length is known (no buffer per message, no copy of its bytes
  // into its parent's: what an export of 512 spans costs); a
  // right `expected` (spans and what holds them) moves nothing.
  template <typename Body>
  void message(std::uint32_t field, Body&& body, std::size_t expected = 0) {
    room(11);
    put_tag(field, kLengthDelimited);
    const std::size_t width = wire::varint_size(expected);
    const std::size_t start = size() + width;  // where the body begins
    at_ += width;
    body();
    const std::size_t length = size() - start;
    // A size computed beforehand is exact (the sizes here and the writers
    // above must agree): checked in Debug builds.
    assert(expected == 0 || length == expected);
    const std::size_t needed = wire::varint_size(length);
    if (needed != width) [[unlikely]] {
      if (needed > width) room(needed - width);
      char* body_start = buffer_.data() + start;
      char* moved = body_start - width + needed;
      std::memmove(moved, body_start, length);
      at_ = moved + length;
    }
    wire::put_varint(buffer_.data() + start - width, length);
  }

 private:
  std::size_t size() const { return static_cast<std::size_t>(at_ - buffer_.data()); }
  // At least `n` writable bytes at at_.
  void room(std::size_t n) {
    if (static_cast<std::size_t>(end_ - at_) < n) [[unlikely]] grow(n);
  }
  [[gnu::noinline]] void grow(std::size_t n) {
    const std::size_t used = size();
    buffer_.resize(std::max(2 * buffer_.size(), used + n));
    at_ = buffer_.data() + used;
    end_ = buffer_.data() + buffer_.size();
  }
  // The put_ functions write at at_ without checking room.
  void put_varint(std::uint64_t value) { at_ = wire::put_varint(at_, value); }
  void put_tag(std::uint32_t field, WireType type) { at_ = wire::put_tag(at_, field, type); }
  void put_little_endian(std::uint64_t value, int bytes) { at_ = wire::put_fixed(at_, value, bytes); }

  std::string buffer_;  // written up to at_; room up to end_
  char* at_ = nullptr;
  char* end_ = nullptr;
};

template <std::size_t N>
std::string_view id_bytes(const std::array<std::uint8_t, N>& id) {
  return {reinterpret_cast<const char*>(id.data()), N};
}

// Calls `f` with what a resource attribute holds, as the wire writers take it.
template <typename F>
decltype(auto) with_value(const AttributeValue& value, F&& f) {
  return std::visit(
      [&](const auto& v) -> decltype(auto) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          return f(std::string_view(v));
        } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
          return f(std::span<const std::string>(v));
        } else {
          return f(v);
        }
      },
      value);
}

// A resource attribute: KeyValue with the AnyValue `value` holds.
void key_value(Writer& w, std::uint32_t field, std::string_view key, const AttributeValue& value) {
  with_value(value, [&](const auto& v) { w.key_value(field, key, v); });
}

std::size_t key_value_size(std::uint32_t field, std::string_view key, const AttributeValue& value) {
  return with_value(value, [&](const auto& v) { return wire::key_value_size(field, key, v); });
}

// KeyValue with a string value (a metric label).
void key_string(Writer& w, std::uint32_t field, std::string_view key, std::string_view value) {
  w.key_value(field, key, value);
}

void attributes(Writer& w, std::uint32_t field, const Attributes& attrs) {
  for (const Attribute& attr : attrs) key_value(w, field, attr.key, attr.value);
}

void labels(Writer& w, std::uint32_t field, const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [key, value] : pairs) key_string(w, field, key, value);
}

// The bytes of a length-delimited field of `size` bytes, tag (< 16) included.
std::size_t field_size(std::size_t size) { return 1 + wire::varint_size(size) + size; }

// Resource: attributes 1.
void resource_message(Writer& w, std::uint32_t field, const Attributes& resource, std::size_t size = 0) {
  w.message(field, [&] { attributes(w, 1, resource); }, size);
}

std::size_t resource_size(const Attributes& resource) {
  std::size_t size = 0;
  for (const Attribute& attr : resource) size += key_value_size(1, attr.key, attr.value);
  return size;
}

// InstrumentationScope: name 1, version 2.
void scope_message(Writer& w, std::uint32_t field, std::string_view version) {
  w.message(field, [&] {
    w.bytes_field(1, kScopeName);
    w.bytes_field(2, version);
  }, field_size(kScopeName.size()) + field_size(version.size()));
}

// Span (trace.proto): trace_id 1, span_id 2, parent_span_id 4, name 5,
// kind 6, start 7, end 8, attributes 9, status 15, flags 16.
std::size_t status_size(const SpanData& span) {
  const std::string_view message = span.status_message();
  return (message.empty() ? 0 : field_size(message.size())) + 1 +
         wire::varint_size(static_cast<std::uint32_t>(span.status));
}

// The Span message's length, computed as span_message writes it.
std::size_t span_size(const SpanData& span) {
  std::size_t size = field_size(16) + field_size(8) + (has_parent(span) ? field_size(8) : 0);
  size += field_size(span.name().size());
  size += 1 + wire::varint_size(static_cast<std::uint32_t>(span.kind));
  size += 2 * (1 + 8);
  size += span.encoded_attributes_size();
  if (span.status != StatusCode::Unset) size += field_size(status_size(span));
  return size + 2 + 4;  // flags: a two-byte tag, fixed32
}

// Writes the Span message's fields (`size` bytes, from span_size) at `p`,
// which has room for them: every length is known before the first byte, so
// the fields go straight out, with no nesting to resolve (what ending a
// proxy's span costs its request thread).
char* put_span(char* p, const SpanData& span) {
  p = wire::put_bytes_field(p, 1, id_bytes(span.context.trace_id));
  p = wire::put_bytes_field(p, 2, id_bytes(span.context.span_id));
  if (has_parent(span)) p = wire::put_bytes_field(p, 4, id_bytes(span.parent_span_id));
  p = wire::put_bytes_field(p, 5, span.name());
  p = wire::put_tag(p, 6, kVarint);
  p = wire::put_varint(p, static_cast<std::uint32_t>(span.kind));
  p = wire::put_fixed(wire::put_tag(p, 7, kFixed64), span.start_unix_nano, 8);
  p = wire::put_fixed(wire::put_tag(p, 8, kFixed64), span.end_unix_nano, 8);
  // attributes 9: their bytes, encoded when they were set, copied in runs
  // (those set one after the other lie one after the other).
  if (const std::optional<std::string_view> all = span.encoded_attributes()) {
    p = wire::put_bytes(p, *all);  // the usual span: one copy
  } else {
    TextRef run{0, 0};
    for (const TextRef& encoded : span.encoded_refs()) {
      if (run.size != 0 && encoded.offset == run.offset + run.size) {
        run.size += encoded.size;
        continue;
      }
      if (run.size != 0) p = wire::put_bytes(p, span.bytes(run));
      run = encoded;
    }
    if (run.size != 0) p = wire::put_bytes(p, span.bytes(run));
  }
  if (span.status != StatusCode::Unset) {  // Status: message 2, code 3
    p = wire::put_tag(p, 15, kLengthDelimited);
    p = wire::put_varint(p, status_size(span));
    if (!span.status_message().empty()) p = wire::put_bytes_field(p, 2, span.status_message());
    p = wire::put_tag(p, 3, kVarint);
    p = wire::put_varint(p, static_cast<std::uint32_t>(span.status));
  }
  return wire::put_fixed(wire::put_tag(p, 16, kFixed32), span_flags(span), 4);
}

// The Span as field `field` (< 16) of its parent, tag and length included
// (field_size(size) bytes).
char* put_span_field(char* p, std::uint32_t field, const SpanData& span, std::size_t size) {
  p = wire::put_tag(p, field, kLengthDelimited);
  p = wire::put_varint(p, size);
  char* end = put_span(p, span);
  assert(static_cast<std::size_t>(end - p) == size);  // span_size and put_span agree
  return end;
}

void span_message(Writer& w, std::uint32_t field, const SpanData& span, std::size_t size) {
  w.write(field_size(size), [&](char* p) { return put_span_field(p, field, span, size); });
}

// NumberDataPoint: start 2, time 3, as_int 6 (sfixed64), attributes 7.
void number_point(Writer& w, std::uint32_t field, const MetricPoint& point, const MetricsSnapshot& snapshot) {
  w.message(field, [&] {
    w.fixed64_field(2, snapshot.start_unix_nano);
    w.fixed64_field(3, snapshot.time_unix_nano);
    w.fixed64_field(6, static_cast<std::uint64_t>(point.total));
    labels(w, 7, point.attributes);
  });
}

// HistogramDataPoint: start 2, time 3, count 4, sum 5, bucket_counts 6
// (packed fixed64), explicit_bounds 7 (packed double), attributes 9, min 11, max 12.
void histogram_point(Writer& w, std::uint32_t field, const MetricPoint& point, const Instrument& instrument,
                     const MetricsSnapshot& snapshot) {
  w.message(field, [&] {
    w.fixed64_field(2, snapshot.start_unix_nano);
    w.fixed64_field(3, snapshot.time_unix_nano);
    w.fixed64_field(4, point.count);
    w.double_field(5, point.sum);
    w.message(6, [&] {
      for (std::uint64_t count : point.bucket_counts) w.fixed64(count);
    });
    w.message(7, [&] {
      for (double bound : instrument.bounds) {
        std::uint64_t bits;
        std::memcpy(&bits, &bound, sizeof bits);
        w.fixed64(bits);
      }
    });
    labels(w, 9, point.attributes);
    if (point.has_min_max) {
      w.double_field(11, point.min);
      w.double_field(12, point.max);
    }
  });
}

// Metric: name 1, description 2, unit 3, sum 7 / histogram 9.
void metric_message(Writer& w, std::uint32_t field, const MetricData& data, const MetricsSnapshot& snapshot) {
  const Instrument& instrument = *data.instrument;
  const bool counter = instrument.kind == InstrumentKind::Counter;
  w.message(field, [&] {
    w.bytes_field(1, instrument.name);
    w.bytes_field(2, instrument.description);
    w.bytes_field(3, instrument.unit);
    // Sum: points 1, temporality 2, monotonic 3; Histogram: points 1, temporality 2.
    w.message(counter ? 7 : 9, [&] {
      for (const MetricPoint& point : data.points) {
        if (counter) {
          number_point(w, 1, point, snapshot);
        } else {
          histogram_point(w, 1, point, instrument, snapshot);
        }
      }
      w.uint_field(2, kCumulative);
      if (counter) w.uint_field(3, 1);
    });
  });
}

// An ExportTraceServiceRequest whose ScopeSpans' spans, `spans_size` bytes
// in all, `write_spans` writes.
template <typename WriteSpans>
std::string traces_request(std::size_t spans_size, const Attributes& resource, std::string_view version,
                           std::string storage, WriteSpans&& write_spans) {
  // Every length known before its message is written: nothing is moved.
  const std::size_t scope_size = field_size(kScopeName.size()) + field_size(version.size());
  const std::size_t scope_spans_size = field_size(scope_size) + spans_size;
  const std::size_t resource_attributes_size = resource_size(resource);
  const std::size_t resource_spans_size = field_size(resource_attributes_size) + field_size(scope_spans_size);
  // Room for the body and the few bytes a write asks for beyond what it
  // writes (a varint's widest), so that the buffer never grows.
  Writer w(std::move(storage), field_size(resource_spans_size) + 32);
  w.message(1, [&] {  // ExportTraceServiceRequest: resource_spans 1
    resource_message(w, 1, resource, resource_attributes_size);  // ResourceSpans: resource 1, scope_spans 2
    w.message(2, [&] {
      scope_message(w, 1, version);  // ScopeSpans: scope 1, spans 2
      write_spans(w);
    }, scope_spans_size);
  }, resource_spans_size);
  return w.take();
}

}  // namespace

std::string traces_proto(std::span<const SpanData* const> spans, const Attributes& resource, std::string_view version,
                         std::string storage) {
  std::vector<std::uint32_t> sizes(spans.size());
  std::size_t spans_size = 0;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    sizes[i] = static_cast<std::uint32_t>(span_size(*spans[i]));
    spans_size += field_size(sizes[i]);
  }
  return traces_request(spans_size, resource, version, std::move(storage), [&](Writer& w) {
    for (std::size_t i = 0; i < spans.size(); ++i) span_message(w, 2, *spans[i], sizes[i]);
  });
}

std::string metrics_proto(const MetricsSnapshot& snapshot, const Attributes& resource, std::string_view version) {
  Writer w({}, 4096);
  w.message(1, [&] {  // ExportMetricsServiceRequest: resource_metrics 1
    resource_message(w, 1, resource);  // ResourceMetrics: resource 1, scope_metrics 2
    w.message(2, [&] {
      scope_message(w, 1, version);  // ScopeMetrics: scope 1, metrics 2
      for (const MetricData& data : snapshot.metrics) metric_message(w, 2, data, snapshot);
    });
  });
  return w.take();
}

}  // namespace weld::telemetry::detail

namespace weld::telemetry {

void append_span_field(const SpanData& span, std::string& out) {
  const std::size_t size = detail::span_size(span);
  const std::size_t from = out.size();
  out.resize(from + detail::field_size(size));
  detail::put_span_field(out.data() + from, 2, span, size);  // ScopeSpans: spans 2
}

std::string encode_traces_proto(std::string_view span_fields, const Attributes& resource,
                                std::string_view scope_version, std::string storage) {
  return detail::traces_request(span_fields.size(), resource, scope_version, std::move(storage),
                                [&](detail::Writer& w) { w.raw(span_fields); });
}

}  // namespace weld::telemetry
