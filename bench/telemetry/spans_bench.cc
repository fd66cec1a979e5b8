// The request thread's share of a tagged proxy request's telemetry (issue
// 18): the two spans RequestTrace records (src/proxy/request_trace.cc: the
// server span and the upstream attempt, with the same attributes), each
// encoded as the exporter does when it ends (append_span_field). Run with
// --benchmark_filter, or under callgrind for instruction counts:
//   valgrind --tool=callgrind build-bench/bench/telemetry/weld_spans_bench \
//     --benchmark_min_time=0.1
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "weld/telemetry/otlp.h"
#include "weld/telemetry/span.h"

namespace wt = weld::telemetry;

namespace {

// The attributes request_trace.cc sets, in its order.
void record_server(wt::SpanData& span, std::int64_t tokens) {
  span.set_name("POST /v1/chat/completions");
  span.kind = wt::SpanKind::Server;
  span.set("http.request.method", std::string_view("POST"));
  span.set("url.path", std::string_view("/v1/chat/completions"));
  span.set("gen_ai.operation.name", std::string_view("chat"));
  span.set("gen_ai.provider.name", std::string_view("openai"));
  span.set("gen_ai.request.model", std::string_view("bench"));
  span.set("gen_ai.usage.input_tokens", tokens);
  span.set("gen_ai.usage.output_tokens", tokens / 3);
  span.set("weld.repairs", std::int64_t{0});
  span.set("weld.validation_failures", std::int64_t{0});
  span.set("weld.agent", std::string_view("router"));
  span.set("weld.outcome", std::string_view("valid"));
  span.set("weld.attempts", std::int64_t{1});
  span.set("http.response.status_code", std::int64_t{200});
}

void record_attempt(wt::SpanData& span) {
  span.set_name("POST");
  span.kind = wt::SpanKind::Client;
  span.set("http.request.method", std::string_view("POST"));
  span.set("server.address", std::string_view("127.0.0.1"));
  span.set("weld.attempt", std::int64_t{1});
  span.set("http.response.status_code", std::int64_t{200});
}

// Ids and times as spans have them (not zero: their encodings have their real size).
void identify(wt::SpanData& span, std::uint64_t n) {
  span.context.trace_id.fill(static_cast<std::uint8_t>(n | 1));
  span.context.span_id.fill(static_cast<std::uint8_t>(n | 2));
  span.parent_span_id.fill(static_cast<std::uint8_t>(n | 4));
  span.start_unix_nano = 1'790'000'000'000'000'000 + n;
  span.end_unix_nano = span.start_unix_nano + 40'000;
}

// One request's two spans, recorded (each in a fresh record, as
// start_span makes them) and encoded into a chunk, as the exporter gathers them.
void BM_ProxyRequestSpans(benchmark::State& state) {
  std::string chunk;
  std::uint64_t n = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    if (chunk.size() > 64 * 1024) {
      bytes += chunk.size();
      chunk.clear();
    }
    auto server = std::make_unique_for_overwrite<wt::SpanData>();
    identify(*server, n);
    auto attempt = std::make_unique_for_overwrite<wt::SpanData>();
    identify(*attempt, n);
    record_attempt(*attempt);
    wt::append_span_field(*attempt, chunk);
    attempt.reset();
    record_server(*server, static_cast<std::int64_t>(100 + n % 900));
    wt::append_span_field(*server, chunk);
    server.reset();
    ++n;
  }
  state.counters["bytes/request"] = static_cast<double>(bytes + chunk.size()) / static_cast<double>(n);
}
BENCHMARK(BM_ProxyRequestSpans);

// Recording alone: the attributes set on the server span.
void BM_ServerSpanSets(benchmark::State& state) {
  std::uint64_t n = 0;
  for (auto _ : state) {
    auto server = std::make_unique_for_overwrite<wt::SpanData>();
    record_server(*server, static_cast<std::int64_t>(100 + n++ % 900));
    benchmark::DoNotOptimize(server->encoded_attributes_size());
  }
}
BENCHMARK(BM_ServerSpanSets);

}  // namespace

BENCHMARK_MAIN();
