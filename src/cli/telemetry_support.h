#pragma once
// Telemetry for the commands (docs/telemetry.md): reads the OTEL_* variables and
// --telemetry-file, starts the exporter (nullptr when nothing is
// configured), and at exit flushes for a bounded time and says once on
// stderr what could not be exported.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "weld/telemetry/telemetry.h"

namespace CLI {
class App;
}

namespace weld::cli {

/// Adds `--telemetry-file FILE` (the same words for every command).
void add_telemetry_file_flag(CLI::App& app, std::optional<std::string>& file);

/// How long a command's exit waits for the last export: an unreachable or
/// hanging collector delays the exit by at most this (plus the transport's
/// 50 ms cancellation poll), and never changes the exit code.
inline constexpr std::chrono::milliseconds kTelemetryExitFlush{1000};

/// Starts telemetry from the environment and `file` (--telemetry-file), or
/// returns nullptr. Configuration warnings go to `warn` (one line each,
/// without "weld: "). `sender`: when its background thread starts (a run:
/// when needed, a proxy or a batch: at once). Start it after SignalGuard:
/// its thread must inherit the blocked signals.
std::unique_ptr<telemetry::Telemetry> start_telemetry(const std::optional<std::string>& file,
                                                      const std::function<void(std::string_view)>& warn,
                                                      telemetry::Config::Sender sender);

/// The parent of a run's span: TRACEPARENT when it holds a valid
/// traceparent, else none (a new trace).
telemetry::SpanContext traceparent_from_environment();

/// Flushes (at most kTelemetryExitFlush) and reports what was lost, once.
void finish_telemetry(telemetry::Telemetry* telemetry, const std::function<void(std::string_view)>& warn);

}  // namespace weld::cli
