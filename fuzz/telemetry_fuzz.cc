// Fuzzes what telemetry reads from outside (docs/telemetry.md): the `traceparent`
// header (clients of the proxy send any bytes) and the OTEL_* key=value
// lists, and checks the OTLP JSON encoder on arbitrary names and values.
// Invariants: a parsed traceparent formats back to a value that parses to
// the same context; a span whose texts are valid UTF-8 encodes to JSON that
// weld's parser accepts; the protobuf of a span encoded when it ends, then
// wrapped (what the exporter sends), is the record's own encoding; nothing
// crashes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "weld/json/parse.h"
#include "weld/json/utf8.h"
#include "weld/telemetry/config.h"
#include "weld/telemetry/otlp.h"
#include "weld/telemetry/trace_context.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  using namespace weld::telemetry;

  if (std::optional<SpanContext> context = parse_traceparent(input)) {
    std::optional<SpanContext> again = parse_traceparent(format_traceparent(*context));
    if (!again || again->trace_id != context->trace_id || again->span_id != context->span_id ||
        again->sampled != context->sampled)
      std::abort();
  }

  int bad = 0;
  auto pairs = parse_key_value_list(input, &bad);
  if (bad < 0) std::abort();

  if (weld::json::is_valid_utf8(input)) {
    SpanData span;
    span.context.trace_id = new_trace_id();
    span.context.span_id = new_span_id();
    span.set_name(input);
    // A span's keys are literals; arbitrary keys reach the encoder as
    // resource attributes (OTEL_RESOURCE_ATTRIBUTES). Values of every kind;
    // "fuzz.pair" set once per pair (each replacing the last), and enough
    // text to spill the span's store to the heap.
    span.set("fuzz.value", input);
    span.set("fuzz.size", static_cast<std::int64_t>(size));
    span.set("fuzz.ratio", size == 0 ? 0.0 : static_cast<double>(bad) / static_cast<double>(size));
    span.set("fuzz.empty", pairs.empty());
    Attributes resource{{std::string(input), std::string(input)}};
    std::vector<std::string> keys;
    for (const auto& [key, value] : pairs) {
      if (weld::json::is_valid_utf8(key) && weld::json::is_valid_utf8(value)) {
        resource.push_back({key, value});
        span.set("fuzz.pair", value);
        keys.push_back(key);
      }
    }
    span.set("fuzz.keys", keys);
    std::string body = encode_traces(std::span(&span, 1), resource, Protocol::HttpJson, "fuzz");
    if (!weld::json::parse(body)) std::abort();
    const std::string proto = encode_traces(std::span(&span, 1), resource, Protocol::HttpProtobuf, "fuzz");
    std::string field;
    append_span_field(span, field);
    if (encode_traces_proto(field, resource, "fuzz") != proto) std::abort();
  }
  return 0;
}
