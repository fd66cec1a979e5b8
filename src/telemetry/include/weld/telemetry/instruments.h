#pragma once
/// \file
/// Every metric weld exports over OTLP, declared once (docs/telemetry.md, "Metrics"). The proxy's
/// names are those of its Prometheus `/metrics` (docs/proxy.md, "Endpoints") written the
/// OpenTelemetry way: a collector's Prometheus exporter turns
/// `weld.proxy.requests` into `weld_proxy_requests_total` and
/// `weld.proxy.upstream_latency` (unit s) into
/// `weld_proxy_upstream_latency_seconds`, with the same labels.

#include <array>

#include "weld/telemetry/metrics.h"

namespace weld::telemetry::instruments {

/// Latency buckets (seconds): the proxy's Prometheus histogram bounds.
inline constexpr std::array<double, 16> kLatencyBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                          0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                                          1.0,    2.5,     10.0,   60.0};
/// Token-count buckets: the GenAI semantic conventions' advice.
inline constexpr std::array<double, 14> kTokenBounds = {1,      4,      16,      64,      256,     1024,    4096,
                                                        16384,  65536,  262144,  1048576, 4194304, 16777216,
                                                        67108864};
/// Run-duration buckets (seconds): GenAI operation-duration advice.
inline constexpr std::array<double, 14> kDurationBounds = {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64,
                                                           1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92};

// GenAI semantic conventions (gen_ai.client.*), one point per model request.
/// Model request duration; labels gen_ai.operation.name, gen_ai.request.model, gen_ai.provider.name.
inline constexpr Instrument kGenAiOperationDuration{"gen_ai.client.operation.duration", "GenAI operation duration.",
                                                    "s", InstrumentKind::Histogram, kDurationBounds};
/// Tokens per request; label gen_ai.token.type ("input" / "output") too.
inline constexpr Instrument kGenAiTokenUsage{"gen_ai.client.token.usage", "Measures number of input and output tokens used.",
                                             "{token}", InstrumentKind::Histogram, kTokenBounds};

// The headless run (and each batch row); label outcome = the result subtype.
/// Runs ended, by outcome.
inline constexpr Instrument kRunRequests{"weld.run.requests", "Runs ended, by outcome (the result subtype).",
                                         "{run}", InstrumentKind::Counter, {}};
/// structured_output calls (or native answers) evaluated.
inline constexpr Instrument kRunAttempts{"weld.run.attempts", "Structured answers evaluated.", "{attempt}",
                                         InstrumentKind::Counter, {}};
/// Repairs applied to accepted answers.
inline constexpr Instrument kRunRepairs{"weld.run.repairs", "Repairs applied to accepted answers.", "{repair}",
                                        InstrumentKind::Counter, {}};
/// Structured answers that failed the schema (after repair).
inline constexpr Instrument kRunValidationFailures{"weld.run.validation_failures",
                                                   "Structured answers that failed the schema (after repair).",
                                                   "{failure}", InstrumentKind::Counter, {}};
/// Tokens used, label gen_ai.token.type.
inline constexpr Instrument kRunTokens{"weld.run.tokens", "Tokens used by runs, by type (input / output).",
                                       "{token}", InstrumentKind::Counter, {}};
/// A run's wall time.
inline constexpr Instrument kRunDuration{"weld.run.duration", "Wall time of a run.", "s",
                                         InstrumentKind::Histogram, kDurationBounds};

// The proxy: the same names as /metrics (labels agent, outcome).
/// weld_proxy_requests_total.
inline constexpr Instrument kProxyRequests{"weld.proxy.requests",
                                           "Requests answered, by agent (\"\" = untagged) and outcome.", "{request}",
                                           InstrumentKind::Counter, {}};
/// weld_proxy_validation_failures_total.
inline constexpr Instrument kProxyValidationFailures{"weld.proxy.validation_failures",
                                                     "Upstream answers that failed the agent's schema (after repair).",
                                                     "{failure}", InstrumentKind::Counter, {}};
/// weld_proxy_retries_total.
inline constexpr Instrument kProxyRetries{"weld.proxy.retries", "Upstream attempts beyond the first.", "{retry}",
                                          InstrumentKind::Counter, {}};
/// weld_proxy_repairs_total.
inline constexpr Instrument kProxyRepairs{"weld.proxy.repairs", "Repairs applied to accepted answers.", "{repair}",
                                          InstrumentKind::Counter, {}};
/// weld_proxy_upstream_latency_seconds.
inline constexpr Instrument kProxyUpstreamLatency{"weld.proxy.upstream_latency",
                                                  "Time from sending a request upstream to its last byte.", "s",
                                                  InstrumentKind::Histogram, kLatencyBounds};
/// weld_proxy_added_latency_seconds.
inline constexpr Instrument kProxyAddedLatency{"weld.proxy.added_latency",
                                               "Time a request spent in the proxy outside upstream calls.", "s",
                                               InstrumentKind::Histogram, kLatencyBounds};

}  // namespace weld::telemetry::instruments
