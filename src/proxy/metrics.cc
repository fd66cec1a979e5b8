// Prometheus text for /metrics (docs/proxy.md, "Endpoints"). Untagged traffic counts on a
// lock-free counter; per-agent counters take a mutex (tagged requests cost
// a model call each, so the lock is never the bottleneck).

#include "weld/proxy/metrics.h"

#include <cstdio>

#include "weld/telemetry/instruments.h"

namespace weld::proxy {
namespace {

void append_escaped_label(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void render_by_agent(std::string& out, std::string_view name, std::string_view help,
                     const std::map<std::string, std::uint64_t>& values) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += " counter\n";
  for (const auto& [agent, n] : values) {
    out += name;
    out += "{agent=\"";
    append_escaped_label(out, agent);
    out += "\"} ";
    out += std::to_string(n);
    out += '\n';
  }
}

}  // namespace

void Histogram::observe(double seconds) {
  std::size_t idx = 0;
  while (idx < kBounds.size() && seconds > kBounds[idx]) ++idx;
  buckets_[idx].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  double micros = seconds * 1e6;
  sum_micros_.fetch_add(micros > 0 ? static_cast<std::uint64_t>(micros) : 0, std::memory_order_relaxed);
}

void Histogram::render(std::string& out, std::string_view name) const {
  std::uint64_t cumulative = 0;
  for (std::size_t idx = 0; idx < kBounds.size(); ++idx) {
    cumulative += buckets_[idx].load(std::memory_order_relaxed);
    out += name;
    out += "_bucket{le=\"";
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", kBounds[idx]);  // shortest: le="0.0025"
    out += bound;
    out += "\"} ";
    out += std::to_string(cumulative);
    out += '\n';
  }
  cumulative += buckets_[kBounds.size()].load(std::memory_order_relaxed);
  out += name;
  out += "_bucket{le=\"+Inf\"} ";
  out += std::to_string(cumulative);
  out += '\n';
  out += name;
  out += "_sum ";
  out += format_double(static_cast<double>(sum_micros_.load(std::memory_order_relaxed)) / 1e6);
  out += '\n';
  out += name;
  out += "_count ";
  out += std::to_string(count_.load(std::memory_order_relaxed));
  out += '\n';
}

telemetry::MetricPoint Histogram::point() const {
  telemetry::MetricPoint out;
  for (const auto& bucket : buckets_) out.bucket_counts.push_back(bucket.load(std::memory_order_relaxed));
  out.count = count_.load(std::memory_order_relaxed);
  out.sum = static_cast<double>(sum_micros_.load(std::memory_order_relaxed)) / 1e6;
  return out;
}

void Metrics::record_request(std::string_view agent, Outcome outcome) {
  if (agent.empty() && outcome == Outcome::Passthrough) {
    passthrough_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::lock_guard lock(mutex_);
  ++requests_[{std::string(agent), outcome}];
}

void Metrics::add_validation_failures(std::string_view agent, int n) {
  if (n <= 0) return;
  std::lock_guard lock(mutex_);
  validation_failures_[std::string(agent)] += static_cast<std::uint64_t>(n);
}

void Metrics::add_retries(std::string_view agent, int n) {
  if (n <= 0) return;
  std::lock_guard lock(mutex_);
  retries_[std::string(agent)] += static_cast<std::uint64_t>(n);
}

void Metrics::add_repairs(std::string_view agent, int n) {
  if (n <= 0) return;
  std::lock_guard lock(mutex_);
  repairs_[std::string(agent)] += static_cast<std::uint64_t>(n);
}

void Metrics::registry_reloaded(bool ok) { (ok ? reloads_ok_ : reloads_failed_).fetch_add(1); }

std::string Metrics::render() const {
  std::string out;
  out.reserve(4096);
  out += "# HELP weld_proxy_requests_total Requests answered, by agent (\"\" = untagged) and outcome.\n";
  out += "# TYPE weld_proxy_requests_total counter\n";
  out += "weld_proxy_requests_total{agent=\"\",outcome=\"passthrough\"} ";
  out += std::to_string(passthrough_.load(std::memory_order_relaxed));
  out += '\n';
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, n] : requests_) {
      out += "weld_proxy_requests_total{agent=\"";
      append_escaped_label(out, key.first);
      out += "\",outcome=\"";
      append_escaped_label(out, outcome_name(key.second));
      out += "\"} ";
      out += std::to_string(n);
      out += '\n';
    }
    render_by_agent(out, "weld_proxy_validation_failures_total",
                    "Upstream answers that failed the agent's schema (after repair).", validation_failures_);
    render_by_agent(out, "weld_proxy_retries_total", "Upstream attempts beyond the first.", retries_);
    render_by_agent(out, "weld_proxy_repairs_total", "Repairs applied to accepted answers.", repairs_);
  }
  out += "# HELP weld_proxy_upstream_latency_seconds Time from sending a request upstream to its last byte.\n";
  out += "# TYPE weld_proxy_upstream_latency_seconds histogram\n";
  upstream_latency_.render(out, "weld_proxy_upstream_latency_seconds");
  out += "# HELP weld_proxy_added_latency_seconds Time a request spent in the proxy outside upstream calls.\n";
  out += "# TYPE weld_proxy_added_latency_seconds histogram\n";
  added_latency_.render(out, "weld_proxy_added_latency_seconds");
  out += "# HELP weld_proxy_registry_reloads_total Registry reloads by result.\n";
  out += "# TYPE weld_proxy_registry_reloads_total counter\n";
  out += "weld_proxy_registry_reloads_total{result=\"ok\"} " + std::to_string(reloads_ok_.load()) + "\n";
  out += "weld_proxy_registry_reloads_total{result=\"refused\"} " + std::to_string(reloads_failed_.load()) + "\n";
  out += "# HELP weld_proxy_open_connections Client connections open now.\n";
  out += "# TYPE weld_proxy_open_connections gauge\n";
  out += "weld_proxy_open_connections " + std::to_string(connections_.load()) + "\n";
  out += "# HELP weld_proxy_requests_in_flight Requests being answered now.\n";
  out += "# TYPE weld_proxy_requests_in_flight gauge\n";
  out += "weld_proxy_requests_in_flight " + std::to_string(in_flight_.load()) + "\n";
  return out;
}

void Metrics::collect(telemetry::MetricsSnapshot& out) const {
  namespace instruments = telemetry::instruments;
  auto counter = [](std::vector<std::pair<std::string, std::string>> labels, std::uint64_t n) {
    telemetry::MetricPoint point;
    point.attributes = std::move(labels);
    point.total = static_cast<std::int64_t>(n);
    return point;
  };
  auto by_agent = [&](const telemetry::Instrument& instrument, const std::map<std::string, std::uint64_t>& values) {
    telemetry::MetricData data{&instrument, {}};
    for (const auto& [agent, n] : values) data.points.push_back(counter({{"agent", agent}}, n));
    if (!data.points.empty()) out.metrics.push_back(std::move(data));
  };
  telemetry::MetricData requests{&instruments::kProxyRequests, {}};
  requests.points.push_back(counter({{"agent", ""}, {"outcome", "passthrough"}}, passthrough_.load()));
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, n] : requests_) {
      requests.points.push_back(counter({{"agent", key.first}, {"outcome", std::string(outcome_name(key.second))}}, n));
    }
    out.metrics.push_back(std::move(requests));
    by_agent(instruments::kProxyValidationFailures, validation_failures_);
    by_agent(instruments::kProxyRetries, retries_);
    by_agent(instruments::kProxyRepairs, repairs_);
  }
  out.metrics.push_back({&instruments::kProxyUpstreamLatency, {upstream_latency_.point()}});
  out.metrics.push_back({&instruments::kProxyAddedLatency, {added_latency_.point()}});
}

}  // namespace weld::proxy
