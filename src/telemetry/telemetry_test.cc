#include "weld/telemetry/telemetry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "proto_fields_test.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::telemetry {
namespace {

// Stands in for the collector: records each request and answers `status`,
// or, when `hang`, never answers: the exchange ends when the exporter
// cancels it or its total timeout passes (as libcurl ends it).
class FakeCollector : public provider::Transport {
 public:
  struct Shared {
    std::mutex mutex;
    std::vector<provider::HttpRequest> requests;
    int status = 200;
    bool hang = false;
    bool saw_cancel = false;
    /// How long each request takes to answer (a busy collector).
    std::chrono::milliseconds delay{0};
  };
  explicit FakeCollector(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}
  provider::TransportOutcome perform(const provider::HttpRequest& request, provider::ResponseSink& sink,
                                     provider::CancelToken& cancel) override {
    {
      std::lock_guard lock(shared_->mutex);
      shared_->requests.push_back(request);
    }
    std::this_thread::sleep_for(shared_->delay);
    if (shared_->hang) {
      const auto start = std::chrono::steady_clock::now();
      auto timed_out = [&] {
        return request.total_timeout.count() > 0 && std::chrono::steady_clock::now() - start >= request.total_timeout;
      };
      while (!cancel.cancelled.load() && !timed_out()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::lock_guard lock(shared_->mutex);
      shared_->saw_cancel = true;
      return {cancel.cancelled.load() ? provider::TransportOutcome::Kind::Cancelled
                                      : provider::TransportOutcome::Kind::IdleTimeout,
              "", false};
    }
    sink.on_headers(shared_->status, {});
    return {provider::TransportOutcome::Kind::Complete, "", true};
  }

 private:
  std::shared_ptr<Shared> shared_;
};

Config json_config(Protocol protocol = Protocol::HttpJson) {
  Config config;
  config.traces.url = "http://collector:4318/v1/traces";
  config.traces.protocol = protocol;
  config.traces.headers = {{"api-key", "sk-telemetry-secret"}};
  config.resource = {{"service.name", std::string("weld")}};
  return config;
}

TEST(Telemetry, NothingConfiguredMeansNoTelemetryAndNoOpSpans) {
  EXPECT_EQ(nullptr, Telemetry::start(Config{}, "0"));
  Span span = start_span(nullptr, "x", SpanKind::Internal, nullptr);
  EXPECT_FALSE(span.recording());
  EXPECT_FALSE(span.context().valid());
  span.set("k", std::string("v"));
  span.end();
}

TEST(Telemetry, ExportsAChildUnderItsParentWithTheConfiguredHeaders) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  auto telemetry = Telemetry::start(json_config(), "0", std::make_unique<FakeCollector>(shared));
  ASSERT_NE(nullptr, telemetry);
  SpanContext remote = *parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  Span parent = start_span(telemetry.get(), "parent", SpanKind::Server, &remote);
  Span child = start_span(telemetry.get(), "child", SpanKind::Client, &parent.context());
  child.set("weld.attempts", std::int64_t{2});
  child.set_error("timeout");
  child.end();
  parent.end();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(2u, report.spans_exported);
  EXPECT_EQ(0u, report.spans_dropped);
  ASSERT_EQ(1u, shared->requests.size());
  const provider::HttpRequest& request = shared->requests[0];
  EXPECT_EQ("http://collector:4318/v1/traces", request.url);
  ASSERT_NE(nullptr, provider::find_header(request.headers, "api-key"));
  EXPECT_EQ("application/json", *provider::find_header(request.headers, "content-type"));
  Result<json::Value> body = json::parse(request.body);
  ASSERT_TRUE(body) << request.body;
  std::string text = request.body;
  // Both spans share the remote trace id; the child names the parent's span id.
  EXPECT_NE(std::string::npos, text.find("\"parentSpanId\":\"00f067aa0ba902b7\""));
  EXPECT_NE(std::string::npos, text.find("\"parentSpanId\":\"" + to_hex(parent.context().span_id) + "\""));
  EXPECT_EQ(2u, [&] {
    std::size_t n = 0;
    for (std::size_t at = 0; (at = text.find("4bf92f3577b34da6a3ce929d0e0e4736", at)) != std::string::npos; ++at) ++n;
    return n;
  }());
  EXPECT_NE(std::string::npos, text.find("{\"key\":\"error.type\",\"value\":{\"stringValue\":\"timeout\"}}"));
}

// Protobuf traces are encoded when each span ends (on its
// thread) and wrapped when sent; the body holds each span as it ended.
TEST(Telemetry, AProtobufExportHoldsEachSpanAsItEnded) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  auto telemetry =
      Telemetry::start(json_config(Protocol::HttpProtobuf), "0", std::make_unique<FakeCollector>(shared));
  Span parent = start_span(telemetry.get(), "parent", SpanKind::Server, nullptr);
  std::thread([&] {  // a child ended on another thread
    Span child = start_span(telemetry.get(), "child", SpanKind::Client, &parent.context());
    child.set("gen_ai.usage.input_tokens", 12);
    child.set_error("timeout");
  }).join();
  parent.set("weld.agent", std::string_view("router"));
  parent.end();
  EXPECT_EQ(2u, telemetry->shutdown(std::chrono::milliseconds(5000)).spans_exported);
  ASSERT_EQ(1u, shared->requests.size());
  const provider::HttpRequest& request = shared->requests[0];
  EXPECT_NE(request.headers.end(), std::find(request.headers.begin(), request.headers.end(),
                                             std::pair<std::string, std::string>("Content-Type", "application/x-protobuf")));
  EXPECT_EQ("weld", field(field(field(field(field(request.body, 1), 1), 1), 2), 1));  // resource service.name
  std::vector<std::string_view> spans = fields(field(field(request.body, 1), 2), 2);
  ASSERT_EQ(2u, spans.size());
  EXPECT_EQ("child", field(spans[0], 5));
  EXPECT_EQ("parent", field(spans[1], 5));
  EXPECT_EQ(field(spans[0], 1), field(spans[1], 1));  // one trace
  EXPECT_EQ(field(spans[1], 2), field(spans[0], 4));  // child's parent_span_id
  EXPECT_EQ("timeout", field(field(spans[0], 15), 2));
  EXPECT_EQ("gen_ai.usage.input_tokens", field(fields(spans[0], 9)[0], 1));
  EXPECT_EQ("weld.agent", field(fields(spans[1], 9)[0], 1));
}

// With --telemetry-file, spans stay records (the file gets them as JSON)
// and the collector gets the same protobuf.
TEST(Telemetry, AProtobufExportWithAFileSendsTheSameSpans) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config(Protocol::HttpProtobuf);
  config.file = ::testing::TempDir() + "/telemetry_protobuf_file_test.jsonl";
  std::remove(config.file.c_str());
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  for (std::string_view name : {"a", "b"}) start_span(telemetry.get(), name, SpanKind::Internal, nullptr).end();
  EXPECT_EQ(2u, telemetry->shutdown(std::chrono::milliseconds(5000)).spans_exported);
  ASSERT_EQ(1u, shared->requests.size());
  std::vector<std::string_view> spans = fields(field(field(shared->requests[0].body, 1), 2), 2);
  ASSERT_EQ(2u, spans.size());
  EXPECT_EQ("a", field(spans[0], 5));
  EXPECT_EQ("b", field(spans[1], 5));
  std::FILE* file = std::fopen(config.file.c_str(), "r");
  ASSERT_NE(nullptr, file);
  char buffer[4096];
  const std::string text(buffer, std::fread(buffer, 1, sizeof buffer, file));
  std::fclose(file);
  EXPECT_EQ(0u, text.find("{\"resourceSpans\":"));
  EXPECT_NE(std::string::npos, text.find("\"name\":\"b\""));
}

TEST(Telemetry, UnsampledParentsArePropagatedButNotExported) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  auto telemetry = Telemetry::start(json_config(), "0", std::make_unique<FakeCollector>(shared));
  SpanContext remote = *parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  Span span = start_span(telemetry.get(), "x", SpanKind::Server, &remote);
  EXPECT_EQ("4bf92f3577b34da6a3ce929d0e0e4736", to_hex(span.context().trace_id));
  span.end();
  EXPECT_EQ(0u, telemetry->shutdown(std::chrono::milliseconds(5000)).spans_exported);
  EXPECT_TRUE(shared->requests.empty());
}

// The queue's tests, for both forms of its spans: records (JSON) and
// spans encoded when they end (protobuf).
class TelemetryQueue : public ::testing::TestWithParam<Protocol> {};

INSTANTIATE_TEST_SUITE_P(Protocols, TelemetryQueue, ::testing::Values(Protocol::HttpJson, Protocol::HttpProtobuf),
                         [](const auto& info) { return info.param == Protocol::HttpJson ? "Json" : "Protobuf"; });

TEST_P(TelemetryQueue, AFullQueueDropsAndCounts) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config(GetParam());
  config.max_queue = 3;
  config.max_batch = 100;  // the sender waits for the schedule delay, so the queue fills
  config.schedule_delay = std::chrono::milliseconds(60'000);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  for (int i = 0; i < 5; ++i) start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(3u, report.spans_exported);
  EXPECT_EQ(2u, report.spans_dropped);
}

// The names of the spans in one OTLP request body, JSON or protobuf, in order.
std::vector<std::string> span_names(const std::string& body) {
  std::vector<std::string> names;
  if (!body.starts_with('{')) {
    for (std::string_view span : fields(field(field(body, 1), 2), 2)) names.emplace_back(field(span, 5));
    return names;
  }
  Result<json::Value> request = json::parse(body);
  if (!request) return {"(not JSON)"};
  const json::Value& scope = request->find("resourceSpans")->as_array().at(0).find("scopeSpans")->as_array().at(0);
  for (const json::Value& span : scope.find("spans")->as_array()) names.push_back(span.find("name")->as_string());
  return names;
}

// Spans in one OTLP request body, JSON or protobuf.
std::size_t spans_in(const std::string& body) { return span_names(body).size(); }

// An exporter sending batches of `max_batch` as they fill (the schedule
// never comes) to a collector that takes `delay` to answer each.
std::unique_ptr<Telemetry> start_batching(Protocol protocol, const std::shared_ptr<FakeCollector::Shared>& shared,
                                          std::chrono::milliseconds delay, std::size_t max_batch) {
  shared->delay = delay;
  Config config = json_config(protocol);
  config.max_batch = max_batch;
  config.schedule_delay = std::chrono::milliseconds(60'000);
  return Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
}

// With spans ending steadily while an export is in flight, the
// sender sent what had piled up meanwhile at once, so a proxy under load
// made one small request per export's duration (36 spans a request instead
// of 512), and the sending cost more than the spans.
TEST_P(TelemetryQueue, ASteadyStreamOfSpansIsSentInFullBatches) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  auto telemetry = start_batching(GetParam(), shared, std::chrono::milliseconds(5), 10);
  for (int i = 0; i < 95; ++i) {
    start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(95u, report.spans_exported);
  ASSERT_EQ(10u, shared->requests.size());
  for (std::size_t i = 0; i + 1 < shared->requests.size(); ++i) EXPECT_EQ(10u, spans_in(shared->requests[i].body));
  EXPECT_EQ(5u, spans_in(shared->requests.back().body));  // the rest, at the exit flush
}

// Threads of this process.
std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// Waits up to 5 s for the collector to have received `n` requests.
bool received(FakeCollector::Shared& shared, std::size_t n) {
  for (int i = 0; i < 5000; ++i) {
    {
      std::lock_guard lock(shared.mutex);
      if (shared.requests.size() >= n) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// A run ends within the first export's schedule; the sender
// thread it started cost ~2% of its wall time and sent nothing.
TEST_P(TelemetryQueue, AWhenNeededSenderIsNotStartedForAShortLife) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  const std::size_t before = thread_count();
  {
    auto at_start = Telemetry::start(json_config(GetParam()), "0", std::make_unique<FakeCollector>(shared));
    EXPECT_EQ(before + 1, thread_count());  // what the count below would see
  }
  Config config = json_config(GetParam());
  config.sender = Config::Sender::WhenNeeded;
  config.schedule_delay = std::chrono::milliseconds(60'000);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  for (int i = 0; i < 3; ++i) start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
  EXPECT_EQ(before, thread_count());
  EXPECT_TRUE(shared->requests.empty());
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(3u, report.spans_exported);
  ASSERT_EQ(1u, shared->requests.size());
  EXPECT_EQ(3u, spans_in(shared->requests[0].body));
}

TEST_P(TelemetryQueue, AWhenNeededSenderStartsWhenTheFirstExportIsDue) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config(GetParam());
  config.sender = Config::Sender::WhenNeeded;
  config.schedule_delay = std::chrono::milliseconds(50);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  start_span(telemetry.get(), "early", SpanKind::Internal, nullptr).end();
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  EXPECT_TRUE(shared->requests.empty());  // nothing sends until a span ends
  start_span(telemetry.get(), "late", SpanKind::Internal, nullptr).end();
  // Sent by the thread that span started, before any shutdown: both spans.
  ASSERT_TRUE(received(*shared, 1));
  {
    std::lock_guard lock(shared->mutex);
    EXPECT_EQ(2u, spans_in(shared->requests[0].body));
  }
  EXPECT_EQ(2u, telemetry->shutdown(std::chrono::milliseconds(5000)).spans_exported);
}

TEST_P(TelemetryQueue, AWhenNeededSenderStartsForAFullBatch) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config(GetParam());
  config.sender = Config::Sender::WhenNeeded;
  config.max_batch = 3;
  config.schedule_delay = std::chrono::milliseconds(60'000);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  for (int i = 0; i < 4; ++i) start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
  ASSERT_TRUE(received(*shared, 1));
  {
    std::lock_guard lock(shared->mutex);
    EXPECT_EQ(3u, spans_in(shared->requests[0].body));
  }
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(4u, report.spans_exported);
  EXPECT_EQ(2u, shared->requests.size());
}

// What piles up while an export is in flight goes in several batches of
// at most max_batch, each span once, in the order they ended.
TEST_P(TelemetryQueue, WhatPilesUpGoesInFullBatchesInOrder) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  auto telemetry = start_batching(GetParam(), shared, std::chrono::milliseconds(100), 2);
  for (int i = 0; i < 9; ++i) {
    start_span(telemetry.get(), "span-" + std::to_string(i), SpanKind::Internal, nullptr).end();
    if (i == 1) {
      ASSERT_TRUE(received(*shared, 1));  // the first batch is in flight
    }
  }
  EXPECT_EQ(9u, telemetry->shutdown(std::chrono::milliseconds(5000)).spans_exported);
  std::lock_guard lock(shared->mutex);
  ASSERT_EQ(5u, shared->requests.size());
  int next = 0;
  for (std::size_t r = 0; r < shared->requests.size(); ++r) {
    const std::string& body = shared->requests[r].body;
    EXPECT_EQ(r + 1 < shared->requests.size() ? 2u : 1u, spans_in(body));
    for (std::size_t at = 0; (at = body.find("span-", at)) != std::string::npos; at += 5) {
      EXPECT_EQ('0' + next, body[at + 5]) << "request " << r;
      ++next;
    }
  }
  EXPECT_EQ(9, next);
}

TEST_P(TelemetryQueue, AFailedExportCountsItsSpansAndSaysWhereWithoutTheKey) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  shared->status = 503;
  Config config = json_config(GetParam());
  config.traces.url = "http://user:sk-in-url@collector:4318/v1/traces?key=sk-query";
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(1u, report.spans_dropped);
  EXPECT_EQ("POST http://collector:4318/v1/traces?…: HTTP 503", report.last_error);  // the query never shown
}

// A collector that accepts and never answers must not hold the
// exit longer than the flush budget.
TEST_P(TelemetryQueue, AHangingCollectorIsAbandonedWhenTheFlushBudgetRunsOut) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  shared->hang = true;
  auto telemetry = Telemetry::start(json_config(GetParam()), "0", std::make_unique<FakeCollector>(shared));
  start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(20));
  EXPECT_TRUE(shared->saw_cancel);
  EXPECT_EQ(1u, report.spans_dropped);
  EXPECT_EQ("POST http://collector:4318/v1/traces: abandoned when the exit flush ran out of time", report.last_error);
}

// How many requests the collector has received.
std::size_t requests_received(FakeCollector::Shared& shared) {
  std::lock_guard lock(shared.mutex);
  return shared.requests.size();
}

// Every span name the collector received, in the order received.
std::vector<std::string> names_received(FakeCollector::Shared& shared) {
  std::lock_guard lock(shared.mutex);
  std::vector<std::string> names;
  for (const auto& request : shared.requests) {
    for (std::string& name : span_names(request.body)) names.push_back(std::move(name));
  }
  return names;
}

// "prefix-0" … "prefix-<n-1>".
std::vector<std::string> numbered(const std::string& prefix, int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(prefix + "-" + std::to_string(i));
  return names;
}

// Ends `n` spans named `prefix-i` on the calling thread.
void end_spans(Telemetry* telemetry, const std::string& prefix, int n) {
  for (const std::string& name : numbered(prefix, n)) start_span(telemetry, name, SpanKind::Internal, nullptr).end();
}

// While the sender runs, each thread gathers the spans it ends
// and hands them to the queue a chunk at a time (64 with the default
// bounds), so that request threads do not share a lock per span.
// Nothing gathered is lost: threads that have ended, and the thread that
// shuts down, are all collected by the exit flush.
TEST_P(TelemetryQueue, SpansGatheredByThreadsThatEndedGoAtTheExitFlush) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config(GetParam());
  config.schedule_delay = std::chrono::milliseconds(60'000);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { end_spans(telemetry.get(), "t" + std::to_string(t), 10); });
  for (std::thread& thread : threads) thread.join();
  end_spans(telemetry.get(), "main", 3);
  EXPECT_TRUE(shared->requests.empty());  // fewer than a chunk each: all still gathered
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(43u, report.spans_exported);
  EXPECT_EQ(0u, report.spans_dropped);
  std::vector<std::string> got = names_received(*shared);
  std::vector<std::string> want = numbered("main", 3);
  for (int t = 0; t < 4; ++t) {
    for (std::string& name : numbered("t" + std::to_string(t), 10)) want.push_back(std::move(name));
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(want, got);
}

// What a live thread has gathered goes with the scheduled export, not only
// at exit; a thread's full chunk goes to the queue at once, and a full
// batch goes as soon as it is full.
TEST_P(TelemetryQueue, GatheredSpansGoOnTheScheduleAndTwoFullBatchesAtOnce) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config(GetParam());
  config.schedule_delay = std::chrono::milliseconds(600);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  end_spans(telemetry.get(), "few", 5);
  ASSERT_TRUE(received(*shared, 1));  // the schedule
  EXPECT_EQ(numbered("few", 5), names_received(*shared));
  // One batch (512 spans, eight chunks) waits: the sender wakes for two
  // (each wake-up and each request cost more than their bytes).
  end_spans(telemetry.get(), "one", 512);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(1u, requests_received(*shared));
  // A second: both go at once, long before the next schedule, 512 a request.
  const auto start = std::chrono::steady_clock::now();
  end_spans(telemetry.get(), "two", 512);
  ASSERT_TRUE(received(*shared, 3));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  std::vector<std::string> want = numbered("few", 5);
  for (const char* name : {"one", "two"}) {
    for (std::string& span : numbered(name, 512)) want.push_back(std::move(span));
  }
  EXPECT_EQ(want, names_received(*shared));
  {
    std::lock_guard lock(shared->mutex);
    EXPECT_EQ(512u, spans_in(shared->requests[1].body));
    EXPECT_EQ(512u, spans_in(shared->requests[2].body));
  }
  EXPECT_EQ(1029u, telemetry->shutdown(std::chrono::milliseconds(5000)).spans_exported);
}

// The queue's bound holds for gathered spans: what does not fit is dropped
// and counted, every span either sent or counted.
TEST_P(TelemetryQueue, GatheredSpansThatDoNotFitAreDroppedAndCounted) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  shared->delay = std::chrono::milliseconds(200);  // a slow collector: the queue fills
  Config config = json_config(GetParam());
  config.max_queue = 32;
  config.max_batch = 32;  // chunks of 4
  config.schedule_delay = std::chrono::milliseconds(60'000);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) threads.emplace_back([&, t] { end_spans(telemetry.get(), "t" + std::to_string(t), 100); });
  for (std::thread& thread : threads) thread.join();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_GT(report.spans_dropped, 0u);
  EXPECT_EQ(200u, report.spans_exported + report.spans_dropped);
  EXPECT_EQ(report.spans_exported, names_received(*shared).size());
  std::lock_guard lock(shared->mutex);
  for (const auto& request : shared->requests) EXPECT_LE(spans_in(request.body), 32u);
}

// A span that ends after the exit flush is dropped and counted, whether its
// thread gathered spans before or never did.
TEST_P(TelemetryQueue, ASpanEndingAfterTheFlushIsCountedAsDropped) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  auto telemetry = Telemetry::start(json_config(GetParam()), "0", std::make_unique<FakeCollector>(shared));
  end_spans(telemetry.get(), "before", 2);
  EXPECT_EQ(2u, telemetry->shutdown(std::chrono::milliseconds(5000)).spans_exported);
  end_spans(telemetry.get(), "after", 1);
  std::thread([&] { end_spans(telemetry.get(), "new-thread", 1); }).join();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(2u, report.spans_exported);
  EXPECT_EQ(2u, report.spans_dropped);
  EXPECT_EQ(numbered("before", 2), names_received(*shared));
}

// One thread ending spans for two exporters in turn: each gets its own.
TEST_P(TelemetryQueue, AThreadEndingSpansForTwoExportersGivesEachItsOwn) {
  auto shared_a = std::make_shared<FakeCollector::Shared>();
  auto shared_b = std::make_shared<FakeCollector::Shared>();
  auto a = Telemetry::start(json_config(GetParam()), "0", std::make_unique<FakeCollector>(shared_a));
  auto b = Telemetry::start(json_config(GetParam()), "0", std::make_unique<FakeCollector>(shared_b));
  for (int i = 0; i < 5; ++i) {
    start_span(a.get(), "a-" + std::to_string(i), SpanKind::Internal, nullptr).end();
    start_span(b.get(), "b-" + std::to_string(i), SpanKind::Internal, nullptr).end();
  }
  EXPECT_EQ(5u, a->shutdown(std::chrono::milliseconds(5000)).spans_exported);
  EXPECT_EQ(5u, b->shutdown(std::chrono::milliseconds(5000)).spans_exported);
  std::vector<std::string> got_a = names_received(*shared_a);
  std::vector<std::string> got_b = names_received(*shared_b);
  std::sort(got_a.begin(), got_a.end());
  std::sort(got_b.begin(), got_b.end());
  EXPECT_EQ(numbered("a", 5), got_a);
  EXPECT_EQ(numbered("b", 5), got_b);
}

TEST(Telemetry, TheFileGetsOtlpJsonLinesOfSpansAndMetrics) {
  Config config;
  config.file = ::testing::TempDir() + "/telemetry_file_test.jsonl";
  std::remove(config.file.c_str());
  auto telemetry = Telemetry::start(config, "0");
  ASSERT_NE(nullptr, telemetry);
  start_span(telemetry.get(), "run", SpanKind::Internal, nullptr).end();
  static constexpr Instrument kCounter{"weld.test", "", "1", InstrumentKind::Counter, {}};
  telemetry->metrics().add(kCounter, 4);
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(1u, report.spans_exported);
  std::FILE* file = std::fopen(config.file.c_str(), "r");
  ASSERT_NE(nullptr, file);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
  std::fclose(file);
  std::size_t newline = text.find('\n');
  ASSERT_NE(std::string::npos, newline);
  EXPECT_TRUE(json::parse(text.substr(0, newline)));
  EXPECT_EQ(0u, text.find("{\"resourceSpans\":"));
  EXPECT_EQ(newline + 1, text.find("{\"resourceMetrics\":"));
  EXPECT_EQ(text.size() - 1, text.find('\n', newline + 1));
}

}  // namespace
}  // namespace weld::telemetry
