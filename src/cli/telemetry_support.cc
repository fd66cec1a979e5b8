// Telemetry glue shared by the run, proxy and batch commands (docs/telemetry.md).

#include "telemetry_support.h"

#include <CLI/CLI.hpp>
#include <cstdlib>

namespace weld::cli {

void add_telemetry_file_flag(CLI::App& app, std::optional<std::string>& file) {
  app.add_option("--telemetry-file", file,
                 "Append spans and metrics to FILE as OTLP JSON lines (OTLP export itself is configured "
                 "by the OTEL_* variables)")
      ->type_name("FILE");
}

std::unique_ptr<telemetry::Telemetry> start_telemetry(const std::optional<std::string>& file,
                                                      const std::function<void(std::string_view)>& warn,
                                                      telemetry::Config::Sender sender) {
  telemetry::Config config = telemetry::config_from_environment(
      [](const char* name) -> const char* { return std::getenv(name); }, WELD_VERSION);
  if (file) config.file = *file;
  config.sender = sender;
  // A bad setting that leaves nothing to export (a scheme weld cannot send
  // to) is said too: telemetry that silently does nothing is the failure.
  const std::vector<std::string> config_warnings = config.warnings;
  std::unique_ptr<telemetry::Telemetry> started = telemetry::Telemetry::start(std::move(config), WELD_VERSION);
  for (const auto& warning : started ? started->warnings() : config_warnings) warn("telemetry: " + warning);
  return started;
}

telemetry::SpanContext traceparent_from_environment() {
  const char* value = std::getenv("TRACEPARENT");
  if (value == nullptr) return {};
  return telemetry::parse_traceparent(value).value_or(telemetry::SpanContext{});
}

void finish_telemetry(telemetry::Telemetry* telemetry, const std::function<void(std::string_view)>& warn) {
  if (telemetry == nullptr) return;
  telemetry::Telemetry::Report report = telemetry->shutdown(kTelemetryExitFlush);
  if (report.spans_dropped == 0 && report.metric_exports_failed == 0) return;
  std::string text = "telemetry: ";
  if (report.spans_dropped > 0) {
    text += std::to_string(report.spans_exported) + " span(s) exported, " + std::to_string(report.spans_dropped) +
            " dropped";
  } else {
    text += std::to_string(report.metric_exports_failed) + " metrics export(s) failed";
  }
  if (!report.last_error.empty()) text += " (last error: " + report.last_error + ")";
  warn(text);
}

}  // namespace weld::cli
