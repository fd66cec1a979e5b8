// The OpenTelemetry environment variables (docs/telemetry.md, "Configuration"; the names and defaults
// are those of the OpenTelemetry specification's "Environment Variable
// Specification" and "OTLP Exporter Configuration"). Bad values never fail
// the run: they are skipped with a warning the CLI prints once.

#include "weld/telemetry/config.h"

#include <algorithm>
#include <charconv>

#include "weld/provider/http.h"
#include "weld/base/text.h"

namespace weld::telemetry {
namespace {

// The first set, non-empty variable of `names`.
const char* first_set(const Getenv& getenv, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = getenv(name);
    if (value != nullptr && *value != '\0') return value;
  }
  return nullptr;
}

bool is_http_url(std::string_view url) { return url.starts_with("http://") || url.starts_with("https://"); }

// A warning, once: the two signals read the same variables, and a bad
// value must not be reported twice.
void warn_once(std::vector<std::string>& warnings, std::string text) {
  if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) warnings.push_back(std::move(text));
}

// An endpoint as users mean it: "127.0.0.1:4318" (no scheme, as many
// collectors' docs and gRPC exporters write it) is http://127.0.0.1:4318,
// said once. Another scheme stays as given (and is refused below).
std::string with_scheme(std::string_view variable, std::string url, std::vector<std::string>& warnings) {
  if (url.empty() || url.find("://") != std::string::npos) return url;
  warn_once(warnings, std::string(variable) + "=" + provider::url_for_messages(url) + " has no scheme; read as http://" +
                          provider::url_for_messages(url));
  return "http://" + url;
}

// One signal ("TRACES" / "METRICS", path "v1/traces" / "v1/metrics").
SignalEndpoint read_signal(const Getenv& getenv, const std::string& signal, std::string_view path,
                           std::vector<std::string>& warnings) {
  SignalEndpoint endpoint;
  const std::string prefix = "OTEL_EXPORTER_OTLP_" + signal + "_";
  const std::string exporter_var = "OTEL_" + signal + "_EXPORTER";
  if (const char* exporter = getenv(exporter_var.c_str()); exporter != nullptr && *exporter != '\0') {
    std::string_view value = trim(exporter, kHttpSpace);
    if (value == "none") return endpoint;
    if (value != "otlp") {
      warn_once(warnings, exporter_var + "=" + std::string(value) + " is not supported (only otlp and none); using otlp");
    }
  }
  const std::string signal_variable = prefix + "ENDPOINT";
  if (const char* url = getenv(signal_variable.c_str()); url != nullptr && *url != '\0') {
    // The signal's own endpoint is used as given (its path included).
    endpoint.url = with_scheme(signal_variable, std::string(trim(url, kHttpSpace)), warnings);
  } else if (const char* base = getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); base != nullptr && *base != '\0') {
    // The signal's path goes after the base's path, before any query.
    std::string base_url = with_scheme("OTEL_EXPORTER_OTLP_ENDPOINT", std::string(trim(base, kHttpSpace)), warnings);
    endpoint.url = provider::url_with_path(base_url, path);
  }
  if (!endpoint.url.empty() && !is_http_url(endpoint.url)) {
    warn_once(warnings, "the OTLP " + std::string(path).substr(3) + " endpoint " + provider::url_for_messages(endpoint.url) +
                            " is not an http:// or https:// URL; " + std::string(path).substr(3) + " are not exported");
    endpoint.url.clear();
  }
  if (const char* protocol = first_set(getenv, {(prefix + "PROTOCOL").c_str(), "OTEL_EXPORTER_OTLP_PROTOCOL"})) {
    std::string_view value = trim(protocol, kHttpSpace);
    if (value == "http/json") {
      endpoint.protocol = Protocol::HttpJson;
    } else if (value != "http/protobuf") {
      warn_once(warnings, "OTEL_EXPORTER_OTLP_PROTOCOL=" + std::string(value) +
                              " is not supported (http/protobuf or http/json); using http/protobuf");
    }
  }
  // The general headers, then the signal's own (a temporary's c_str() would
  // not outlive a range-for's initializer list, hence the named strings).
  const std::string signal_headers = prefix + "HEADERS";
  for (const std::string& name : {std::string("OTEL_EXPORTER_OTLP_HEADERS"), signal_headers}) {
    const char* headers = getenv(name.c_str());
    if (headers == nullptr) continue;
    int bad = 0;
    for (auto& header : parse_key_value_list(headers, &bad)) endpoint.headers.push_back(std::move(header));
    // The values may be keys: the warning names the variable, never its text.
    if (bad > 0) warn_once(warnings, name + ": " + std::to_string(bad) + " entr" + (bad == 1 ? "y" : "ies") +
                                         " without key=value skipped");
  }
  if (const char* timeout = first_set(getenv, {(prefix + "TIMEOUT").c_str(), "OTEL_EXPORTER_OTLP_TIMEOUT"})) {
    std::string_view value = trim(timeout, kHttpSpace);
    long long ms = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (ec != std::errc() || end != value.data() + value.size() || ms <= 0) {
      warn_once(warnings, "OTEL_EXPORTER_OTLP_TIMEOUT must be a positive number of milliseconds (got \"" +
                              std::string(value) + "\"); using 10000");
    } else {
      endpoint.timeout = std::chrono::milliseconds(ms);
    }
  }
  return endpoint;
}

// A positive integer variable, or `fallback` (with a warning when set but bad).
long long positive(const Getenv& getenv, const char* name, long long fallback, std::vector<std::string>& warnings) {
  const char* text = getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  std::string_view value = trim(text, kHttpSpace);
  long long n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n <= 0) {
    warnings.push_back(std::string(name) + " must be a positive integer (got \"" + std::string(value) + "\"); using " +
                       std::to_string(fallback));
    return fallback;
  }
  return n;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_key_value_list(std::string_view text, int* bad) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view entry = trim(text.substr(0, comma), kHttpSpace);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (entry.empty()) continue;
    std::size_t eq = entry.find('=');
    std::string_view key = eq == std::string_view::npos ? std::string_view() : trim(entry.substr(0, eq), kHttpSpace);
    if (key.empty()) {
      if (bad != nullptr) ++*bad;
      continue;
    }
    out.emplace_back(percent_decode(key), percent_decode(trim(entry.substr(eq + 1), kHttpSpace)));
  }
  return out;
}

Config config_from_environment(const Getenv& getenv, std::string_view version) {
  Config config;
  const char* disabled = getenv("OTEL_SDK_DISABLED");
  if (disabled != nullptr && trim(disabled, kHttpSpace) == "true") return config;
  config.traces = read_signal(getenv, "TRACES", "v1/traces", config.warnings);
  config.metrics = read_signal(getenv, "METRICS", "v1/metrics", config.warnings);
  config.schedule_delay = std::chrono::milliseconds(positive(getenv, "OTEL_BSP_SCHEDULE_DELAY", 1000, config.warnings));
  config.metric_interval =
      std::chrono::milliseconds(positive(getenv, "OTEL_METRIC_EXPORT_INTERVAL", 60000, config.warnings));
  config.max_queue = static_cast<std::size_t>(positive(getenv, "OTEL_BSP_MAX_QUEUE_SIZE", 2048, config.warnings));
  config.max_batch = static_cast<std::size_t>(positive(getenv, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512, config.warnings));

  // Resource: OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME (which wins
  // for service.name), then weld's own.
  std::string service_name = "weld";
  if (const char* attributes = getenv("OTEL_RESOURCE_ATTRIBUTES")) {
    int bad = 0;
    for (auto& [key, value] : parse_key_value_list(attributes, &bad)) {
      if (key == "service.name") {
        service_name = value;
        continue;
      }
      config.resource.push_back({key, value});
    }
    if (bad > 0) config.warnings.push_back("OTEL_RESOURCE_ATTRIBUTES: " + std::to_string(bad) + " entr" +
                                           (bad == 1 ? "y" : "ies") + " without key=value skipped");
  }
  if (const char* name = getenv("OTEL_SERVICE_NAME"); name != nullptr && !trim(name, kHttpSpace).empty()) {
    service_name = trim(name, kHttpSpace);
  }
  config.resource.insert(config.resource.begin(), {"service.name", service_name});
  config.resource.push_back({"service.version", std::string(version)});
  config.resource.push_back({"telemetry.sdk.name", std::string("weld")});
  config.resource.push_back({"telemetry.sdk.language", std::string("cpp")});
  config.resource.push_back({"telemetry.sdk.version", std::string(version)});
  return config;
}

}  // namespace weld::telemetry
