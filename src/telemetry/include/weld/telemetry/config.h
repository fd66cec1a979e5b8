#pragma once
/// \file
/// Telemetry configuration from the standard OpenTelemetry environment
/// variables (docs/telemetry.md, "Configuration") and `--telemetry-file`. Export is off unless an
/// endpoint (or a file) is given.

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weld/telemetry/span.h"

namespace weld::telemetry {

/// OTLP/HTTP payload encoding (OTEL_EXPORTER_OTLP_PROTOCOL).
enum class Protocol { HttpProtobuf, HttpJson };

/// One signal's (traces' or metrics') destination.
struct SignalEndpoint {
  /// Full URL ("http://host:4318/v1/traces"); empty: this signal is not sent.
  std::string url;
  Protocol protocol = Protocol::HttpProtobuf;
  /// Extra request headers (OTEL_EXPORTER_OTLP_HEADERS): may hold keys, so
  /// they are never printed.
  std::vector<std::pair<std::string, std::string>> headers;
  /// Longest wait for one export request (OTEL_EXPORTER_OTLP_TIMEOUT).
  std::chrono::milliseconds timeout{10'000};
};

/// Everything the exporter needs.
struct Config {
  SignalEndpoint traces;
  SignalEndpoint metrics;
  /// --telemetry-file: spans (and metrics) as OTLP JSON lines. Empty: none.
  std::string file;
  /// service.name and the other resource attributes.
  Attributes resource;
  /// How long to wait between span exports (OTEL_BSP_SCHEDULE_DELAY) and
  /// metric exports (OTEL_METRIC_EXPORT_INTERVAL).
  std::chrono::milliseconds schedule_delay{1'000};
  std::chrono::milliseconds metric_interval{60'000};
  /// Spans held for export at most (OTEL_BSP_MAX_QUEUE_SIZE); more are dropped and counted.
  std::size_t max_queue = 2048;
  /// Spans per export request (OTEL_BSP_MAX_EXPORT_BATCH_SIZE).
  std::size_t max_batch = 512;
  /// When the background sender starts. `AtStart`: with the exporter, so
  /// that spans go within `schedule_delay` and metrics every
  /// `metric_interval` from the first second (a proxy, a batch).
  /// `WhenNeeded`: at the first span ended after the first `schedule_delay`
  /// (or a full batch); a process that ends within its first second (most
  /// runs) never starts it, and `shutdown` sends everything. Until it starts,
  /// nothing is exported on a schedule.
  enum class Sender { AtStart, WhenNeeded };
  Sender sender = Sender::AtStart;
  /// Non-fatal problems with the variables, for the CLI to print once.
  std::vector<std::string> warnings;

  /// True when anything is exported (an endpoint or a file).
  bool enabled() const { return !traces.url.empty() || !metrics.url.empty() || !file.empty(); }
};

/// Reads one environment variable; nullptr when unset.
using Getenv = std::function<const char*(const char*)>;

/// The configuration from the environment. `service_name` is the default
/// service.name ("weld"); `version` goes into service.version. Bad values
/// are skipped with a warning, never fatal: telemetry must not fail the work.
Config config_from_environment(const Getenv& getenv, std::string_view version);

/// Parses a W3C-baggage-style list "k1=v1,k2=v2" (values percent-decoded),
/// as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES use. Entries
/// without '=' or with an empty key are skipped and counted in `bad`.
std::vector<std::pair<std::string, std::string>> parse_key_value_list(std::string_view text, int* bad = nullptr);

}  // namespace weld::telemetry
