#pragma once
/// \file
/// Prometheus counters and histograms for `/metrics` (docs/proxy.md, "Endpoints"): requests by
/// agent and outcome, validation failures, retries, repairs, upstream latency,
/// latency added by the proxy. Thread-safe; cheap enough for the hot path.

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "weld/proxy/outcome.h"

#include "weld/telemetry/metrics.h"

namespace weld::proxy {

/// A fixed-bucket latency histogram (seconds), lock-free.
class Histogram {
 public:
  static constexpr std::array<double, 16> kBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                     0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   10.0,  60.0};
  void observe(double seconds);
  /// Appends the Prometheus text lines for `name` (with `labels` like `agent="x"`, may be empty).
  void render(std::string& out, std::string_view name) const;
  /// The same values as an OTLP histogram point (no attributes).
  telemetry::MetricPoint point() const;

 private:
  std::array<std::atomic<std::uint64_t>, kBounds.size() + 1> buckets_{};
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::uint64_t> sum_micros_{0};
};

/// All of the proxy's metrics.
class Metrics {
 public:
  /// One finished request. `agent` is "" for untagged traffic.
  void record_request(std::string_view agent, Outcome outcome);
  void add_validation_failures(std::string_view agent, int n);
  void add_retries(std::string_view agent, int n);
  void add_repairs(std::string_view agent, int n);
  void observe_upstream(double seconds) { upstream_latency_.observe(seconds); }
  void observe_added(double seconds) { added_latency_.observe(seconds); }
  void connection_opened() { connections_.fetch_add(1, std::memory_order_relaxed); }
  void connection_closed() { connections_.fetch_sub(1, std::memory_order_relaxed); }
  void request_started() { in_flight_.fetch_add(1, std::memory_order_relaxed); }
  void request_finished() { in_flight_.fetch_sub(1, std::memory_order_relaxed); }
  void registry_reloaded(bool ok);

  /// Prometheus text exposition format 0.0.4.
  std::string render() const;
  /// Appends the same values to an OTLP snapshot, under the names of
  /// weld/telemetry/instruments.h (docs/telemetry.md, "Metrics": the two agree by construction).
  void collect(telemetry::MetricsSnapshot& out) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, Outcome>, std::uint64_t> requests_;  // (agent, outcome)
  std::map<std::string, std::uint64_t> validation_failures_;
  std::map<std::string, std::uint64_t> retries_;
  std::map<std::string, std::uint64_t> repairs_;
  std::atomic<std::uint64_t> passthrough_{0};  // agent "" Outcome::Passthrough, lock-free
  std::atomic<std::uint64_t> reloads_ok_{0};
  std::atomic<std::uint64_t> reloads_failed_{0};
  std::atomic<std::int64_t> connections_{0};
  std::atomic<std::int64_t> in_flight_{0};
  Histogram upstream_latency_;
  Histogram added_latency_;
};

}  // namespace weld::proxy
