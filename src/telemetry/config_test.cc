#include "weld/telemetry/config.h"

#include <gtest/gtest.h>

#include <map>

namespace weld::telemetry {
namespace {

Config from(const std::map<std::string, std::string>& env) {
  return config_from_environment(
      [&env](const char* name) -> const char* {
        auto found = env.find(name);
        return found == env.end() ? nullptr : found->second.c_str();
      },
      "1.2.3");
}

std::string attribute(const Config& config, std::string_view key) {
  for (const auto& attr : config.resource) {
    if (attr.key == key) return std::get<std::string>(attr.value);
  }
  return "<absent>";
}

TEST(TelemetryConfig, OffWithoutAnEndpoint) {
  Config config = from({{"OTEL_SERVICE_NAME", "x"}});
  EXPECT_FALSE(config.enabled());
}

TEST(TelemetryConfig, TheBaseEndpointGetsEachSignalsPath) {
  Config config = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}});
  EXPECT_EQ("http://collector:4318/v1/traces", config.traces.url);
  EXPECT_EQ("http://collector:4318/v1/metrics", config.metrics.url);
  EXPECT_EQ(Protocol::HttpProtobuf, config.traces.protocol);
  EXPECT_EQ(std::chrono::milliseconds(10000), config.traces.timeout);
}

TEST(TelemetryConfig, ASignalsOwnEndpointIsUsedAsGiven) {
  Config config = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"},
                        {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://traces.example/custom"}});
  EXPECT_EQ("https://traces.example/custom", config.traces.url);
  EXPECT_EQ("http://collector:4318/v1/metrics", config.metrics.url);
}

TEST(TelemetryConfig, NoneTurnsASignalOff) {
  Config config = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, {"OTEL_TRACES_EXPORTER", "none"}});
  EXPECT_EQ("", config.traces.url);
  EXPECT_EQ("http://c:4318/v1/metrics", config.metrics.url);
  EXPECT_FALSE(from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, {"OTEL_SDK_DISABLED", "true"}}).enabled());
}

TEST(TelemetryConfig, JsonProtocolHeadersAndTimeout) {
  Config config = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"},
                        {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"},
                        {"OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b%3Dc, x-tenant = t1 ,broken"},
                        {"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"}});
  EXPECT_EQ(Protocol::HttpJson, config.traces.protocol);
  ASSERT_EQ(2u, config.traces.headers.size());
  EXPECT_EQ("api-key", config.traces.headers[0].first);
  EXPECT_EQ("a b=c", config.traces.headers[0].second);
  EXPECT_EQ("x-tenant", config.traces.headers[1].first);
  EXPECT_EQ("t1", config.traces.headers[1].second);
  EXPECT_EQ(std::chrono::milliseconds(2500), config.metrics.timeout);
  // The malformed entry is reported by the variable's name, never its text,
  // and once (both signals read the variable; it was reported twice).
  ASSERT_EQ(1u, config.warnings.size());
  EXPECT_EQ("OTEL_EXPORTER_OTLP_HEADERS: 1 entry without key=value skipped", config.warnings[0]);
}

TEST(TelemetryConfig, BadValuesWarnAndKeepTheDefault) {
  Config config = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "grpc://collector:4317"},
                        {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m/v1/metrics"},
                        {"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"},
                        {"OTEL_BSP_MAX_QUEUE_SIZE", "-3"}});
  EXPECT_EQ("", config.traces.url);
  EXPECT_EQ("http://m/v1/metrics", config.metrics.url);
  EXPECT_EQ(2048u, config.max_queue);
  std::string all;
  for (const auto& warning : config.warnings) all += warning + "\n";
  EXPECT_EQ("the OTLP traces endpoint grpc://collector:4317/v1/traces is not an http:// or https:// URL; traces are not "
            "exported\n"
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported (http/protobuf or http/json); using http/protobuf\n"
            "OTEL_BSP_MAX_QUEUE_SIZE must be a positive integer (got \"-3\"); using 2048\n",
            all);  // each once
}

// "127.0.0.1:4318" exported nothing, silently: read as users mean it.
TEST(TelemetryConfig, AnEndpointWithoutSchemeIsReadAsHttp) {
  Config config = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "127.0.0.1:4318"}});
  EXPECT_EQ("http://127.0.0.1:4318/v1/traces", config.traces.url);
  EXPECT_EQ("http://127.0.0.1:4318/v1/metrics", config.metrics.url);
  ASSERT_EQ(1u, config.warnings.size());
  EXPECT_EQ("OTEL_EXPORTER_OTLP_ENDPOINT=127.0.0.1:4318 has no scheme; read as http://127.0.0.1:4318", config.warnings[0]);
  Config own = from({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "collector:4318/v1/traces"}});
  EXPECT_EQ("http://collector:4318/v1/traces", own.traces.url);
}

// A query in the base endpoint: the signal's path goes before it (it went
// after), and no message shows it.
TEST(TelemetryConfig, AQueryStaysAfterTheSignalsPathAndIsNeverShown) {
  Config config = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://otlp.example/base/?api-key=k3y-9"}});
  EXPECT_EQ("https://otlp.example/base/v1/traces?api-key=k3y-9", config.traces.url);
  EXPECT_EQ("https://otlp.example/base/v1/metrics?api-key=k3y-9", config.metrics.url);
  Config bad = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "c:4318?api-key=k3y-9"}});
  ASSERT_EQ(1u, bad.warnings.size());
  EXPECT_EQ("OTEL_EXPORTER_OTLP_ENDPOINT=c:4318?… has no scheme; read as http://c:4318?…", bad.warnings[0]);
}

TEST(TelemetryConfig, ResourceAttributesAndServiceName) {
  Config config = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"},
                        {"OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs,deployment.environment=ci"}});
  EXPECT_EQ("from-attrs", attribute(config, "service.name"));
  EXPECT_EQ("ci", attribute(config, "deployment.environment"));
  EXPECT_EQ("1.2.3", attribute(config, "service.version"));
  EXPECT_EQ("weld", attribute(from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"}}), "service.name"));
  Config named = from({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"},
                       {"OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs"},
                       {"OTEL_SERVICE_NAME", "nightly"}});
  EXPECT_EQ("nightly", attribute(named, "service.name"));
}

}  // namespace
}  // namespace weld::telemetry
