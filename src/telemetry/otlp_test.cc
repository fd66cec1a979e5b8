#include "weld/telemetry/otlp.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "proto_fields_test.h"
#include "weld/telemetry/instruments.h"

namespace weld::telemetry {
namespace {

SpanData sample_span() {
  SpanData span;
  span.context = *parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  span.parent_span_id = {1, 2, 3, 4, 5, 6, 7, 8};
  span.set_name("chat \"m\"");
  span.kind = SpanKind::Client;
  span.start_unix_nano = 1700000000000000001ULL;
  span.end_unix_nano = 1700000000000000002ULL;
  span.set("s", std::string_view("v"));
  span.set("i", std::int64_t{-5});
  span.set("d", 0.5);
  span.set("b", true);
  const std::vector<std::string> items{"x", "y"};
  span.set("a", items);
  span.status = StatusCode::Error;
  span.set_status_message("timeout");
  return span;
}

TEST(OtlpJson, SpanFieldsFollowTheJsonMapping) {
  std::string body =
      encode_traces(std::vector{sample_span()}, {{"service.name", std::string("weld")}}, Protocol::HttpJson, "9");
  Result<json::Value> parsed = json::parse(body);
  ASSERT_TRUE(parsed) << body;
  EXPECT_EQ(
      "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"weld\"}}]},"
      "\"scopeSpans\":[{\"scope\":{\"name\":\"weld\",\"version\":\"9\"},\"spans\":[{\"traceId\":"
      "\"4bf92f3577b34da6a3ce929d0e0e4736\",\"spanId\":\"00f067aa0ba902b7\",\"parentSpanId\":\"0102030405060708\","
      "\"flags\":1,\"name\":\"chat \\\"m\\\"\",\"kind\":3,\"startTimeUnixNano\":\"1700000000000000001\","
      "\"endTimeUnixNano\":\"1700000000000000002\",\"attributes\":[{\"key\":\"s\",\"value\":{\"stringValue\":\"v\"}},"
      "{\"key\":\"i\",\"value\":{\"intValue\":\"-5\"}},{\"key\":\"d\",\"value\":{\"doubleValue\":0.5}},"
      "{\"key\":\"b\",\"value\":{\"boolValue\":true}},{\"key\":\"a\",\"value\":{\"arrayValue\":{\"values\":["
      "{\"stringValue\":\"x\"},{\"stringValue\":\"y\"}]}}}],\"status\":{\"code\":2,\"message\":\"timeout\"}}]}]}]}",
      body);
}

// value[key] for an object, value[index] for an array.
const json::Value& at(const json::Value& value, std::string_view key) { return *value.find(key); }
const json::Value& at(const json::Value& value, std::size_t index) { return value.as_array().at(index); }

TEST(OtlpJson, MetricsAreCumulativeSumsAndHistograms) {
  MetricsRecorder recorder;
  recorder.add(instruments::kProxyRequests, 2, {{"agent", "a"}, {"outcome", "ok"}});
  recorder.add(instruments::kProxyRequests, 1, {{"agent", "a"}, {"outcome", "ok"}});
  recorder.record(instruments::kProxyUpstreamLatency, 0.003);
  recorder.record(instruments::kProxyUpstreamLatency, 100.0);
  std::string body = encode_metrics(recorder.snapshot(), {}, Protocol::HttpJson, "9");
  Result<json::Value> parsed = json::parse(body);
  ASSERT_TRUE(parsed) << body;
  const json::Value& metrics = at(at(at(at(at(*parsed, "resourceMetrics"), 0), "scopeMetrics"), 0), "metrics");
  ASSERT_EQ(2u, metrics.as_array().size());
  EXPECT_EQ("weld.proxy.requests", at(at(metrics, 0), "name").as_string());
  EXPECT_EQ("\"3\"", json::serialize(at(at(at(at(at(metrics, 0), "sum"), "dataPoints"), 0), "asInt")));
  EXPECT_EQ("true", json::serialize(at(at(at(metrics, 0), "sum"), "isMonotonic")));
  const json::Value& histogram = at(at(at(at(metrics, 1), "histogram"), "dataPoints"), 0);
  EXPECT_EQ("\"2\"", json::serialize(at(histogram, "count")));
  // 0.003 falls in (0.0025, 0.005], bucket 5; 100 past the last bound, bucket 16.
  EXPECT_EQ("[\"0\",\"0\",\"0\",\"0\",\"0\",\"1\",\"0\",\"0\",\"0\",\"0\",\"0\",\"0\",\"0\",\"0\",\"0\",\"0\",\"1\"]",
            json::serialize(at(histogram, "bucketCounts")));
  EXPECT_EQ("100.0", json::serialize(at(histogram, "max")));
}

TEST(OtlpProto, SpanSitsWhereTraceProtoPutsIt) {
  std::string body = encode_traces(std::vector{sample_span()}, {}, Protocol::HttpProtobuf, "9");
  // ExportTraceServiceRequest.resource_spans(1).scope_spans(2).spans(2)
  std::string_view span = field(field(field(body, 1), 2), 2);
  EXPECT_EQ("chat \"m\"", field(span, 5));
  EXPECT_EQ(std::string("\x4b\xf9\x2f\x35\x77\xb3\x4d\xa6\xa3\xce\x92\x9d\x0e\x0e\x47\x36", 16), field(span, 1));
  EXPECT_EQ(std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8), field(span, 4));
  // Status(15): message(2) "timeout".
  EXPECT_EQ("timeout", field(field(span, 15), 2));
  // Scope(1).name(1)
  EXPECT_EQ("weld", field(field(field(field(body, 1), 2), 1), 1));
}

// Span attributes are encoded when they are set: each KeyValue as
// common.proto has it, and a key set twice exported once, with its last value.
TEST(OtlpProto, SpanAttributesAreKeyValuesWithTheirLastValue) {
  SpanData span = sample_span();
  span.set("i", std::int64_t{300});      // replaces -5
  span.set("s", std::string_view("w"));  // replaces "v"
  std::string body = encode_traces(std::vector{span}, {}, Protocol::HttpProtobuf, "9");
  std::vector<std::string_view> attributes = fields(field(field(field(body, 1), 2), 2), 9);
  ASSERT_EQ(5u, attributes.size());  // s, i, d, b, a
  using namespace std::string_literals;
  // KeyValue: key(1) "s", value(2) AnyValue{string_value(1) "w"}.
  EXPECT_EQ("\x0a\x01s\x12\x03\x0a\x01w"s, attributes[0]);
  // int_value(3) 300: varint ac 02.
  EXPECT_EQ("\x0a\x01i\x12\x03\x18\xac\x02"s, attributes[1]);
  // double_value(4) 0.5: fixed64 little-endian 0x3fe0000000000000.
  EXPECT_EQ("\x0a\x01" "d\x12\x09\x21\x00\x00\x00\x00\x00\x00\xe0\x3f"s, attributes[2]);
  // bool_value(2) true.
  EXPECT_EQ("\x0a\x01" "b\x12\x02\x10\x01"s, attributes[3]);
  // array_value(5) ArrayValue{values(1) [{string_value "x"}, {string_value "y"}]}.
  EXPECT_EQ("\x0a\x01" "a\x12\x0c\x2a\x0a\x0a\x03\x0a\x01x\x0a\x03\x0a\x01y"s, attributes[4]);
}

// An attribute's KeyValue is written with one-byte lengths when it is
// shorter than 128 bytes and with wider ones past that: values of every
// length around the edge come out as protobuf has them, and read back.
TEST(OtlpProto, AttributesOnBothSidesOfOneByteLengths) {
  auto varint = [](std::size_t n) {
    std::string out;
    for (; n >= 0x80; n >>= 7) out += static_cast<char>((n & 0x7F) | 0x80);
    return out + static_cast<char>(n);
  };
  for (std::size_t n = 110; n <= 260; ++n) {
    SCOPED_TRACE(n);
    std::string value;
    for (std::size_t i = 0; i < n; ++i) value += static_cast<char>('a' + (i * 7 + n) % 26);
    SpanData span = sample_span();
    span.set("weld.outcome", std::string_view(value));
    std::string body = encode_traces(std::vector{span}, {}, Protocol::HttpProtobuf, "9");
    std::vector<std::string_view> attributes = fields(field(field(field(body, 1), 2), 2), 9);
    ASSERT_EQ(6u, attributes.size());
    const std::string any = "\x0a" + varint(n) + value;
    EXPECT_EQ("\x0a\x0cweld.outcome\x12" + varint(any.size()) + any, attributes[5]);
    EXPECT_EQ(value, span.attribute(5).text);
    EXPECT_EQ("weld.outcome", span.attribute(5).key);
  }
}

// A name of `size` bytes, each different from its neighbours: a string
// copied in pieces (short strings are) shows any piece out of place.
std::string name_of(std::size_t size) {
  std::string name;
  for (std::size_t i = 0; i < size; ++i) name += static_cast<char>('a' + i % 26);
  return name;
}

// Each message is written in place behind a one-byte length that is widened
// when the message is longer: spans of 127 bytes and more, and a request of
// hundreds of spans (a three-byte length), must still nest where they belong.
TEST(OtlpProto, LongMessagesKeepTheirPlace) {
  std::vector<SpanData> spans;
  for (std::size_t i = 0; i < 300; ++i) {
    SpanData span = sample_span();
    span.set_name(name_of(i));  // 0 to 299 bytes: span lengths on both sides of 128
    spans.push_back(span);
  }
  std::string body = encode_traces(spans, {{"service.name", std::string("weld")}}, Protocol::HttpProtobuf, "9");
  std::string_view scope_spans = field(field(body, 1), 2);
  EXPECT_EQ("weld", field(field(scope_spans, 1), 1));
  std::size_t seen = 0;
  for (std::string_view rest = scope_spans; !rest.empty();) {
    // Walk ScopeSpans' fields: scope (1) once, then one span (2) each.
    auto byte = [&] { return static_cast<unsigned char>(rest.front()); };
    std::uint32_t number = byte() >> 3;
    rest.remove_prefix(1);
    std::size_t size = 0;
    for (int shift = 0;; shift += 7) {
      size |= static_cast<std::size_t>(byte() & 0x7F) << shift;
      bool more = byte() & 0x80;
      rest.remove_prefix(1);
      if (!more) break;
    }
    std::string_view message = rest.substr(0, size);
    rest.remove_prefix(size);
    if (number != 2) continue;
    EXPECT_EQ(name_of(seen), field(message, 5));
    EXPECT_EQ("timeout", field(field(message, 15), 2));
    ++seen;
  }
  EXPECT_EQ(300u, seen);
}

// The exporter writes each body over the previous one's allocation: what it
// sends must not depend on what that allocation held.
TEST(OtlpProto, ABodyWrittenOverAnOlderOneIsTheSameAsAFreshOne) {
  std::vector<SpanData> many(40, sample_span());
  std::vector<SpanData> one{sample_span()};
  one[0].set_name(name_of(20));
  const Attributes resource{{"service.name", std::string("weld")}};
  std::string fresh = encode_traces(one, resource, Protocol::HttpProtobuf, "9");
  std::string older = encode_traces(many, resource, Protocol::HttpProtobuf, "9");
  ASSERT_GT(older.size(), fresh.size());
  EXPECT_EQ(fresh, encode_traces(one, resource, Protocol::HttpProtobuf, "9", std::move(older)));
}

// The exporter encodes each span when it ends and only wraps
// the bytes when it sends them: the body must be the one the records make.
TEST(OtlpProto, SpansEncodedWhenTheyEndMakeTheSameBodyAsTheirRecords) {
  std::vector<SpanData> spans;
  for (std::size_t i = 0; i < 200; i += 7) {
    SpanData span = sample_span();
    span.set_name(name_of(i));  // span lengths on both sides of 128
    if (i % 2 == 0) span.parent_span_id = {};
    if (i % 3 == 0) span.status = StatusCode::Unset;
    span.set("n", static_cast<std::int64_t>(i));
    spans.push_back(span);
  }
  const Attributes resource{{"service.name", std::string("weld")}};
  std::string fields = "kept";
  for (const SpanData& span : spans) append_span_field(span, fields);
  ASSERT_EQ(0u, fields.find("kept"));  // appended after what was there
  const std::string_view encoded = std::string_view(fields).substr(4);
  EXPECT_EQ(encode_traces(spans, resource, Protocol::HttpProtobuf, "9"), encode_traces_proto(encoded, resource, "9"));
  // The first three, written over an older, longer body's allocation.
  std::string three;
  for (std::size_t i = 0; i < 3; ++i) append_span_field(spans[i], three);
  ASSERT_EQ(0u, encoded.find(three));
  std::string older = encode_traces(std::vector<SpanData>(40, sample_span()), resource, Protocol::HttpProtobuf, "9");
  EXPECT_EQ(encode_traces(std::span(spans).first(3), resource, Protocol::HttpProtobuf, "9"),
            encode_traces_proto(three, resource, "9", std::move(older)));
  // No spans: the request still holds its resource and scope.
  EXPECT_EQ(encode_traces(std::span<const SpanData>(), resource, Protocol::HttpProtobuf, "9"),
            encode_traces_proto("", resource, "9"));
}

}  // namespace
}  // namespace weld::telemetry
