#include "weld/telemetry/telemetry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

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

Config json_config() {
  Config config;
  config.traces.url = "http://collector:4318/v1/traces";
  config.traces.protocol = Protocol::HttpJson;
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

TEST(Telemetry, AFullQueueDropsAndCounts) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config();
  config.max_queue = 3;
  config.max_batch = 100;  // the sender waits for the schedule delay, so the queue fills
  config.schedule_delay = std::chrono::milliseconds(60'000);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  for (int i = 0; i < 5; ++i) start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(3u, report.spans_exported);
  EXPECT_EQ(2u, report.spans_dropped);
}

// Spans in one OTLP JSON request body.
std::size_t spans_in(const std::string& body) {
  std::size_t n = 0;
  for (std::size_t at = 0; (at = body.find("\"spanId\"", at)) != std::string::npos; ++at) ++n;
  return n;
}

// issue 18: with spans ending steadily while an export is in flight, the
// sender sent what had piled up meanwhile at once, so a proxy under load
// made one small request per export's duration (36 spans a request instead
// of 512), and the sending cost more than the spans.
TEST(Telemetry, ASteadyStreamOfSpansIsSentInFullBatches) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  shared->delay = std::chrono::milliseconds(5);
  Config config = json_config();
  config.max_batch = 10;
  config.schedule_delay = std::chrono::milliseconds(60'000);
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
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

// issue 18: a run ends within the first export's schedule; the sender
// thread it started cost ~2% of its wall time and sent nothing.
TEST(Telemetry, AWhenNeededSenderIsNotStartedForAShortLife) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  const std::size_t before = thread_count();
  {
    auto at_start = Telemetry::start(json_config(), "0", std::make_unique<FakeCollector>(shared));
    EXPECT_EQ(before + 1, thread_count());  // what the count below would see
  }
  Config config = json_config();
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

TEST(Telemetry, AWhenNeededSenderStartsWhenTheFirstExportIsDue) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config();
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

TEST(Telemetry, AWhenNeededSenderStartsForAFullBatch) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  Config config = json_config();
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

TEST(Telemetry, AFailedExportCountsItsSpansAndSaysWhereWithoutTheKey) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  shared->status = 503;
  Config config = json_config();
  config.traces.url = "http://user:sk-in-url@collector:4318/v1/traces?key=sk-query";
  auto telemetry = Telemetry::start(config, "0", std::make_unique<FakeCollector>(shared));
  start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(5000));
  EXPECT_EQ(1u, report.spans_dropped);
  EXPECT_EQ("POST http://collector:4318/v1/traces: HTTP 503", report.last_error);
}

// issue 18: a collector that accepts and never answers must not hold the
// exit longer than the flush budget.
TEST(Telemetry, AHangingCollectorIsAbandonedWhenTheFlushBudgetRunsOut) {
  auto shared = std::make_shared<FakeCollector::Shared>();
  shared->hang = true;
  auto telemetry = Telemetry::start(json_config(), "0", std::make_unique<FakeCollector>(shared));
  start_span(telemetry.get(), "x", SpanKind::Internal, nullptr).end();
  Telemetry::Report report = telemetry->shutdown(std::chrono::milliseconds(20));
  EXPECT_TRUE(shared->saw_cancel);
  EXPECT_EQ(1u, report.spans_dropped);
  EXPECT_EQ("POST http://collector:4318/v1/traces: abandoned when the exit flush ran out of time", report.last_error);
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
