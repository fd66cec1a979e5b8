// OTLP as binary protobuf, encoded by hand (see otlp.h for why). Field
// numbers are opentelemetry-proto v1's (common.proto, resource.proto,
// trace.proto, metrics.proto); the e2e tests decode what this writes with
// the official JavaScript decoders generated from those files.

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>
#include <variant>

#include "otlp_internal.h"
#include "weld/telemetry/otlp.h"

namespace weld::telemetry::detail {
namespace {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Copies a short string (an attribute key or value, an id) without a call
// to memcpy, whose setup costs more than the copy of a few bytes: two
// overlapping loads and stores of 4 bytes cover 4 to 8 bytes, of 8 bytes 8 to
// 16, four of 8 bytes 16 to 32.
inline void copy_bytes(char* to, const char* from, std::size_t n) {
  auto move8 = [](char* dst, const char* src) {
    std::uint64_t word;
    std::memcpy(&word, src, 8);
    std::memcpy(dst, &word, 8);
  };
  if (n >= 8 && n <= 16) {
    move8(to, from);
    move8(to + n - 8, from + n - 8);
  } else if (n > 16 && n <= 32) {
    move8(to, from);
    move8(to + 8, from + 8);
    move8(to + n - 16, from + n - 16);
    move8(to + n - 8, from + n - 8);
  } else if (n >= 4 && n < 8) {
    std::uint32_t head, tail;
    std::memcpy(&head, from, 4);
    std::memcpy(&tail, from + n - 4, 4);
    std::memcpy(to, &head, 4);
    std::memcpy(to + n - 4, &tail, 4);
  } else if (n < 4) {
    for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
  } else {
    std::memcpy(to, from, n);
  }
}

// Writes protobuf fields into one buffer. A nested message is written in
// place after a one-byte length placeholder, which is widened (the message
// moved up) when the message turns out longer than 127 bytes: no buffer per
// message and no copy of its bytes into its parent's (what an export of 512
// spans costs the proxy's CPU, issue 18). The buffer may be a previous
// body's storage, written over without being cleared first.
class Writer {
 public:
  Writer(std::string storage, std::size_t expected) : buffer_(std::move(storage)) {
    expected = std::max<std::size_t>(expected, 256);
    if (buffer_.size() < expected) buffer_.resize(std::max(expected, buffer_.capacity()));
    at_ = buffer_.data();
    end_ = at_ + buffer_.size();
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
    put_tag(field, kLengthDelimited);
    put_varint(bytes.size());
    copy_bytes(at_, bytes.data(), bytes.size());
    at_ += bytes.size();
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
  // Field `field` (< 16) holding KeyValue{key, AnyValue{string_value or
  // int_value}} (`text` or `number`) when it is shorter than 128 bytes: every
  // length known before the first byte, one check for room. Returns false
  // (nothing written) otherwise.
  bool short_key_value(std::uint32_t field, std::string_view key, const std::string_view* text,
                       const std::int64_t* number) {
    std::size_t any = 0;  // AnyValue's length
    if (text != nullptr) {
      if (text->size() >= 0x80) return false;
      any = 2 + text->size();
    } else {
      any = 1 + varint_size(static_cast<std::uint64_t>(*number));
    }
    const std::size_t length = 2 + key.size() + 2 + any;  // KeyValue's
    if (field >= 16 || key.size() >= 0x80 || length >= 0x80) return false;
    room(2 + length);
    // Written through a local pointer: a store through char* may alias at_
    // itself, which would be reloaded after every byte.
    char* p = at_;
    p[0] = static_cast<char>((field << 3) | kLengthDelimited);
    p[1] = static_cast<char>(length);
    p[2] = static_cast<char>((1 << 3) | kLengthDelimited);  // key 1
    p[3] = static_cast<char>(key.size());
    copy_bytes(p + 4, key.data(), key.size());
    p += 4 + key.size();
    p[0] = static_cast<char>((2 << 3) | kLengthDelimited);  // value 2
    p[1] = static_cast<char>(any);
    if (text != nullptr) {
      p[2] = static_cast<char>((1 << 3) | kLengthDelimited);  // string_value 1
      p[3] = static_cast<char>(text->size());
      copy_bytes(p + 4, text->data(), text->size());
      p += 4 + text->size();
    } else {
      p[2] = static_cast<char>((3 << 3) | kVarint);  // int_value 3
      p += 3;
      for (auto value = static_cast<std::uint64_t>(*number); ; value >>= 7) {
        if (value < 0x80) {
          *p++ = static_cast<char>(value);
          break;
        }
        *p++ = static_cast<char>((value & 0x7F) | 0x80);
      }
    }
    at_ = p;
    return true;
  }
  // Field `field` holding the message that `body` writes into this Writer.
  template <typename Body>
  void message(std::uint32_t field, Body&& body) {
    room(11);
    put_tag(field, kLengthDelimited);
    const std::size_t start = size() + 1;  // after the one-byte placeholder
    ++at_;
    body();
    const std::size_t length = size() - start;
    if (length < 0x80) [[likely]] {
      buffer_[start - 1] = static_cast<char>(length);
      return;
    }
    std::size_t width = 1;
    for (std::size_t rest = length >> 7; rest != 0; rest >>= 7) ++width;
    room(width - 1);
    char* body_start = buffer_.data() + start;
    std::memmove(body_start + width - 1, body_start, length);
    at_ = body_start - 1;
    put_varint(length);
    at_ += length;
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
  static std::size_t varint_size(std::uint64_t value) {
    std::size_t size = 1;
    for (; value >= 0x80; value >>= 7) ++size;
    return size;
  }
  // The put_ functions write at at_ without checking room.
  void put_varint(std::uint64_t value) {
    char* p = at_;
    while (value >= 0x80) {
      *p++ = static_cast<char>((value & 0x7F) | 0x80);
      value >>= 7;
    }
    *p++ = static_cast<char>(value);
    at_ = p;
  }
  void put_tag(std::uint32_t field, WireType type) { put_varint((static_cast<std::uint64_t>(field) << 3) | type); }
  void put_little_endian(std::uint64_t value, int bytes) {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(at_, &value, static_cast<std::size_t>(bytes));
      at_ += bytes;
    } else {
      for (int byte = 0; byte < bytes; ++byte) *at_++ = static_cast<char>(value >> (8 * byte));
    }
  }

  std::string buffer_;  // written up to at_; room up to end_
  char* at_ = nullptr;
  char* end_ = nullptr;
};

template <std::size_t N>
std::string_view id_bytes(const std::array<std::uint8_t, N>& id) {
  return {reinterpret_cast<const char*>(id.data()), N};
}

// AnyValue (common.proto): string 1, bool 2, int 3, double 4, array 5.
template <typename Items>
void string_array_value(Writer& w, Items&& for_each_item) {
  w.message(5, [&] {  // ArrayValue: repeated AnyValue values = 1
    for_each_item([&](std::string_view item) { w.message(1, [&] { w.bytes_field(1, item); }); });
  });
}

// KeyValue: key 1, value 2 (an AnyValue that `value` writes).
template <typename Value>
void key_value(Writer& w, std::uint32_t field, std::string_view key, Value&& value) {
  w.message(field, [&] {
    w.bytes_field(1, key);
    w.message(2, value);
  });
}

// A resource attribute.
void key_value(Writer& w, std::uint32_t field, std::string_view key, const AttributeValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) {
    const std::string_view view = *text;
    if (w.short_key_value(field, key, &view, nullptr)) return;
  } else if (const auto* number = std::get_if<std::int64_t>(&value)) {
    if (w.short_key_value(field, key, nullptr, number)) return;
  }
  key_value(w, field, key, [&] {
    if (const auto* text = std::get_if<std::string>(&value)) {
      w.bytes_field(1, *text);
    } else if (const auto* number = std::get_if<std::int64_t>(&value)) {
      w.uint_field(3, static_cast<std::uint64_t>(*number));
    } else if (const auto* real = std::get_if<double>(&value)) {
      w.double_field(4, *real);
    } else if (const auto* flag = std::get_if<bool>(&value)) {
      w.uint_field(2, *flag ? 1 : 0);
    } else if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
      string_array_value(w, [&](auto&& f) {
        for (const std::string& item : *list) f(item);
      });
    }
  });
}

// A span's attribute.
void key_value(Writer& w, std::uint32_t field, const SpanData& span, const SpanAttribute& attribute) {
  const std::string_view key = attribute.key.text();
  switch (attribute.kind) {
    case ValueKind::String: {
      const std::string_view text = span.string_value(attribute);
      if (!w.short_key_value(field, key, &text, nullptr)) key_value(w, field, key, [&] { w.bytes_field(1, text); });
      break;
    }
    case ValueKind::Int:
      if (!w.short_key_value(field, key, nullptr, &attribute.int_value)) {
        key_value(w, field, key, [&] { w.uint_field(3, static_cast<std::uint64_t>(attribute.int_value)); });
      }
      break;
    case ValueKind::Double: key_value(w, field, key, [&] { w.double_field(4, attribute.double_value); }); break;
    case ValueKind::Bool: key_value(w, field, key, [&] { w.uint_field(2, attribute.bool_value ? 1 : 0); }); break;
    case ValueKind::StringArray:
      key_value(w, field, key, [&] {
        string_array_value(w, [&](auto&& f) { span.for_each_item(attribute, f); });
      });
      break;
  }
}

// KeyValue with a string value (a metric label).
void key_string(Writer& w, std::uint32_t field, std::string_view key, std::string_view value) {
  w.message(field, [&] {
    w.bytes_field(1, key);
    w.message(2, [&] { w.bytes_field(1, value); });
  });
}

void attributes(Writer& w, std::uint32_t field, const Attributes& attrs) {
  for (const Attribute& attr : attrs) key_value(w, field, attr.key, attr.value);
}

void labels(Writer& w, std::uint32_t field, const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [key, value] : pairs) key_string(w, field, key, value);
}

// Resource: attributes 1.
void resource_message(Writer& w, std::uint32_t field, const Attributes& resource) {
  w.message(field, [&] { attributes(w, 1, resource); });
}

// InstrumentationScope: name 1, version 2.
void scope_message(Writer& w, std::uint32_t field, std::string_view version) {
  w.message(field, [&] {
    w.bytes_field(1, kScopeName);
    w.bytes_field(2, version);
  });
}

// Span (trace.proto): trace_id 1, span_id 2, parent_span_id 4, name 5,
// kind 6, start 7, end 8, attributes 9, status 15, flags 16.
void span_message(Writer& w, std::uint32_t field, const SpanData& span) {
  w.message(field, [&] {
    w.bytes_field(1, id_bytes(span.context.trace_id));
    w.bytes_field(2, id_bytes(span.context.span_id));
    if (has_parent(span)) w.bytes_field(4, id_bytes(span.parent_span_id));
    w.bytes_field(5, span.name());
    w.uint_field(6, static_cast<std::uint32_t>(span.kind));
    w.fixed64_field(7, span.start_unix_nano);
    w.fixed64_field(8, span.end_unix_nano);
    for (const SpanAttribute& attribute : span.attributes()) key_value(w, 9, span, attribute);
    if (span.status != StatusCode::Unset) {
      w.message(15, [&] {  // Status: message 2, code 3
        if (!span.status_message().empty()) w.bytes_field(2, span.status_message());
        w.uint_field(3, static_cast<std::uint32_t>(span.status));
      });
    }
    w.fixed32_field(16, span_flags(span));
  });
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

}  // namespace

std::string traces_proto(std::span<const SpanData> spans, const Attributes& resource, std::string_view version,
                         std::string storage) {
  Writer w(std::move(storage), 256 + 512 * spans.size());
  w.message(1, [&] {  // ExportTraceServiceRequest: resource_spans 1
    resource_message(w, 1, resource);  // ResourceSpans: resource 1, scope_spans 2
    w.message(2, [&] {
      scope_message(w, 1, version);  // ScopeSpans: scope 1, spans 2
      for (const SpanData& span : spans) span_message(w, 2, span);
    });
  });
  return w.take();
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
